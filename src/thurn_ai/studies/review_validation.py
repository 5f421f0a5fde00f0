"""The game review's validation set, read off the files experiments/review.py saves in results/review/: the
numbers of its front page (findings) and the tables of its report.

- planted.csv: planted mistakes, each reviewed and confirmed by a search at 10 times the budget. Recall: the
  confirmed plants (the deep search's loss reaches the mistake threshold) the review labels a mistake or worse;
  the same in win chance (the old unit: a loss of 10 points of win chance), for the choice of unit.
- selfplay.csv: the mistakes-or-worse a review gives a strong search's own moves (false alarms), per seat and
  game.
- order.csv: whether the weaker bot of each game (random, greedy against heuristic) has the lowest accuracy and
  the largest total loss of points, and in win chance the largest total loss.
- board214.csv: the board record's move 214; speed.csv: the time of a 3-player review.
- drift.csv: every decision's expected points (best and played), for `drift_table`: where a seat's expected
  points move between the first decision and the final score.
- order_truth.csv: large losses of the greedy games played on both ways by the bots that sat at the table (the
  table's loss), beside the review's: `truth_numbers`, with the two tests declared before the games.
- order_table.csv, order_table_games.csv: the decisions of order.csv that `thurn-ai review --table` played on at
  the table, and the games it went through; `at_table` puts them back into order.csv's games, for
  `table_order_numbers`, with the adoption rule declared before the games (TABLE_RULE).
"""
from __future__ import annotations

from pathlib import Path

import pandas as pd

from ..play.review_rating import THRESHOLDS, label_of
from ..stats.summary import mean_ci, welch, wilson_interval
from .findings import Number
from .markdown import table

#: the old unit's mistake threshold (lost win chance), to compare the units on the same decisions
WIN_MISTAKE = 0.10
MISTAKE_OR_WORSE = ("mistake", "blunder")


def relabel(d: pd.DataFrame) -> pd.Series:
    """Each decision's label under the review's thresholds today, from its smaller loss (a run made with other
    thresholds reads the same as one made with these, as far as the decisions searched twice reach: every
    decision whose first pair lost the first threshold of that run)."""
    return _smaller(d).map(lambda x: label_of(x) or "")


def _share(k: float, n: int, says: str) -> Number:
    lo, hi = wilson_interval(k, n)
    return Number(k / n if n else float("nan"), lo, hi, "share", games=n, says=says)


def _read(out: Path, name: str) -> pd.DataFrame | None:
    path = Path(out) / name
    return pd.read_csv(path, keep_default_na=False) if path.exists() else None


def planted_numbers(p: pd.DataFrame) -> dict[str, Number]:
    ok = p[p["deep_loss_points"].astype(float) >= THRESHOLDS["mistake"]]
    labelled = relabel(ok).isin(MISTAKE_OR_WORSE)
    out = {"planted.positions": Number(len(p), digits=0, games=len(p), says="planted positions reviewed"),
           "planted.confirmed": Number(len(ok), digits=0, games=len(p),
                                       says="of them confirmed at 10x the budget (a loss of a mistake or more)"),
           "recall.points": _share(labelled.sum(), len(ok), "confirmed plants the review labels a mistake or "
                                   "worse (expected points), 95% Wilson"),
           "recall.win": _share((ok["loss_win"].astype(float) >= WIN_MISTAKE).sum(), len(ok),
                                "the same plants that lose 10+ points of win chance (the old unit), 95% Wilson")}
    for kind, g in p.groupby("kind"):
        out[f"confirmed.{kind}"] = Number(int(_confirmed(g).sum()), digits=0, games=len(g),
                                          says=f"{kind} plants confirmed, of {len(g)}")
    return out


def selfplay_numbers(s: pd.DataFrame) -> dict[str, Number]:
    seats = s.groupby(["players", "game", "seat"])
    per = seats.apply(lambda g: relabel(g).isin(MISTAKE_OR_WORSE).sum(), include_groups=False)
    win = seats.apply(lambda g: (g["loss_win"].astype(float) >= WIN_MISTAKE).sum(), include_groups=False)
    games = s.groupby(["players", "game"]).ngroups
    out = {"selfplay.mistakes": Number(float(per.mean()), digits=2, games=games,
                                       says="mistakes or worse per seat and game in the search's self-play"),
           "selfplay.win_mistakes": Number(float(win.mean()), digits=2, games=games,
                                           says="decisions losing 10+ points of win chance per seat and game")}
    for players, g in per.groupby(level="players"):
        out[f"selfplay.p{players}"] = Number(float(g.mean()), digits=2, games=g.index.droplevel(2).nunique(),
                                             says=f"mistakes or worse per seat and game, {players} players")
    return out


def order_table(o: pd.DataFrame) -> pd.DataFrame:
    """One row a game: the weaker bot's seat, whether it has the lowest accuracy, the largest total loss of
    points, the largest total loss of win chance."""
    rows = []
    for (weaker, players, game), g in o.groupby(["weaker", "players", "game"]):
        seats = g.groupby("seat").agg(bot=("bot", "first"), accuracy=("accuracy", "mean"),
                                      loss=("loss_points", "sum"), loss_win=("loss_win", "sum"))
        mine = seats[seats["bot"] == weaker].index[0]
        others = seats.drop(index=mine)
        rows.append({"weaker": weaker, "players": players, "game": game, "seat": mine,
                     "accuracy": seats.loc[mine, "accuracy"], "best_other_accuracy": others["accuracy"].min(),
                     "loss": seats.loc[mine, "loss"], "largest_other_loss": others["loss"].max(),
                     "worst_accuracy": bool(seats.loc[mine, "accuracy"] < others["accuracy"].min()),
                     "largest_loss": bool(seats.loc[mine, "loss"] > others["loss"].max()),
                     "largest_loss_win": bool(seats.loc[mine, "loss_win"] > others["loss_win"].max())})
    return pd.DataFrame(rows)


def order_summary_lines(t: pd.DataFrame) -> list[str]:
    """One row per weaker bot and player count: in how many games it has the lowest accuracy, the largest total
    loss of points, both."""
    return table(["weaker", "players", "games", "lowest accuracy", "largest total loss", "both"],
                 ([w, n, len(g), int(g["worst_accuracy"].sum()), int(g["largest_loss"].sum()),
                   int((g["worst_accuracy"] & g["largest_loss"]).sum())]
                  for (w, n), g in t.groupby(["weaker", "players"])))


def order_numbers(o: pd.DataFrame) -> dict[str, Number]:
    t = order_table(o)
    out = {}
    for weaker, g in t.groupby("weaker"):
        for key, hit, what in (("accuracy", g["worst_accuracy"], "has the lowest accuracy"),
                               ("loss", g["largest_loss"], "has the largest total loss of points"),
                               ("both", g["worst_accuracy"] & g["largest_loss"],
                                "has the lowest accuracy and the largest total loss of points"),
                               ("win", g["largest_loss_win"], "loses the most win chance (the old unit)")):
            out[f"order.{weaker}.{key}"] = _share(int(hit.sum()), len(g), f"games in which {weaker} {what}, "
                                                  "95% Wilson")
    return out


def order_confirm_numbers(c: pd.DataFrame) -> dict[str, Number]:
    """The large losses of greedy-against-heuristic games searched again at 10 times the budget, by bot."""
    out = {}
    for bot, g in c.groupby("bot"):
        deep = g["deep_loss_points"].astype(float)
        out[f"confirm.{bot}.confirmed"] = _share(int((deep >= THRESHOLDS["mistake"]).sum()), len(g),
                                                 f"{bot}'s sampled losses of a mistake or more (3-4 players) that "
                                                 "the search at 10 times the budget confirms, 95% Wilson")
        out[f"confirm.{bot}.review_loss"] = Number(float(g["loss_points"].astype(float).mean()), digits=2,
                                                   games=len(g), says=f"{bot}: their mean loss by the review (points)")
        out[f"confirm.{bot}.deep_loss"] = Number(float(deep.mean()), digits=2, games=len(g),
                                                 says=f"{bot}: their mean loss by the search at 10x (points)")
    return out


#: drift_table's parts of a seat's game, in order: they add up from `start` to `score`
DRIFT_PARTS = ("start", "own", "within", "between", "end")


def drift_table(d: pd.DataFrame) -> pd.DataFrame:
    """One row a seat and game of drift.csv: how its expected final points (the review's unit) went from its
    first decision to its final score, in parts that add up exactly (start + own + within + between + end =
    score): `start`, the best move's value at its first decision; `own`, the sum over its decisions of the
    played move's value less the best's (the review's losses, with a second search's gains left in);
    `within`, the changes from one decision to the next within its turns (the searches' disagreement, a
    drawn card); `between`, from its last decision of a turn to its first of the next (the other players'
    turns and cards -- as the review's search expected them, a sum near 0); `end`, the final score less the
    value after its last decision."""
    rows = []
    keys = ["review", "kind", "players", "game", "seat"]
    for key, g in d.sort_values([*keys, "move"]).groupby(keys):
        best, played = g["best_points"].astype(float).to_numpy(), g["played_points"].astype(float).to_numpy()
        turns = g["turn"].to_numpy()
        step = best[1:] - played[:-1]
        same = turns[1:] == turns[:-1]
        score = float(g["score"].iloc[0])
        rows.append({**dict(zip(keys, key)), "bot": g["bot"].iloc[0], "start": best[0],
                     "own": float((played - best).sum()), "within": float(step[same].sum()),
                     "between": float(step[~same].sum()), "end": score - played[-1], "score": score,
                     "loss": float(g["loss_points"].astype(float).sum()),
                     "loss_margin": float(g["loss_margin"].astype(float).sum())})
    return pd.DataFrame(rows)


def drift_numbers(d: pd.DataFrame) -> dict[str, Number]:
    """The drift stage's numbers: by review, kind and bot, a seat's mean change between turns and mean total
    loss over a game (t intervals, 3 and 4 players pooled); the declared test (the search's seat at a heuristic
    table against self-play, the default review); the greedy games' order of players by each review, and in
    the default review's margin over the table."""
    t = drift_table(d)
    out: dict[str, Number] = {}
    for (review, kind, bot), g in t.groupby(["review", "kind", "bot"]):
        for part, what in (("between", "expected points gained between its turns"),
                           ("loss", "total loss by the review (points)")):
            m, lo, hi = mean_ci(g[part])
            out[f"drift.{review}.{kind}.{bot}.{part}"] = Number(m, lo, hi, digits=1, games=len(g), says=(
                f"{kind} games, the {review} review: a {bot} seat's {what} over a game (mean of its seat-games, "
                "95% t interval)"))
    default = t[t["review"] == "default"]
    a = default[(default["kind"] == "one_search") & (default["bot"] == "mcts")]["between"]
    b = default[(default["kind"] == "selfplay")]["between"]
    if len(a) and len(b):
        diff, lo, hi, p = welch(a, b)
        out["drift.test.difference"] = Number(diff, lo, hi, digits=1, games=len(a) + len(b), says=(
            "the search's seat: points gained between turns at a heuristic table less in self-play (Welch, 95%)"))
        out["drift.test.p"] = Number(p, digits=7, games=len(a) + len(b), says="the declared test's p-value (Welch)")
    greedy = d[d["kind"] == "greedy"]
    for name, g in greedy.groupby("review"):
        o = order_table(g)
        out[f"drift.greedy.{name}.both"] = _share(int((o["worst_accuracy"] & o["largest_loss"]).sum()), len(o), (
            f"greedy games reviewed by the {name} review in which greedy has the lowest accuracy and the largest "
            "total loss of points, 95% Wilson"))
    seats = t[(t["kind"] == "greedy") & (t["review"] == "default")]
    worst = [bool(g.loc[g["bot"] == "greedy", "loss_margin"].max() > g.loc[g["bot"] != "greedy", "loss_margin"].max())
             for _, g in seats.groupby(["players", "game"])]
    if worst:
        out["drift.greedy.margin"] = _share(sum(worst), len(worst), (
            "greedy games in which greedy loses the most margin over the table (its points less the others' mean), "
            "95% Wilson"))
    return out


def drift_lines(d: pd.DataFrame) -> list[str]:
    """report.md's drift table: the mean parts of a seat's game by review, kind, count and bot."""
    t = drift_table(d)
    cols = [*DRIFT_PARTS, "score", "loss", "loss_margin"]
    m = t.groupby(["review", "kind", "players", "bot"])[cols].mean().reset_index()
    n = t.groupby(["review", "kind", "players", "bot"]).size().to_numpy()
    return table(["review", "kind", "players", "bot", "seat-games", *cols],
                 ([r.review, r.kind, r.players, r.bot, int(k), *(f"{getattr(r, c):+.1f}" if c in DRIFT_PARTS[1:]
                                                                 else f"{getattr(r, c):.1f}" for c in cols)]
                  for r, k in zip(m.itertuples(), n)))


#: order_truth's declared tests: one-sided, alpha 0.05, Holm over the two
TRUTH_ALPHA = 0.05


def truth_numbers(t: pd.DataFrame) -> dict[str, Number]:
    """order_truth.csv's numbers: by bot, the sampled decisions' mean loss by the review and at the table that
    played, and the review's excess (t intervals); the declared tests (experiments/review.py's text): (a) the
    review's loss exceeds the table's for `heuristic` (one-sample t test of the excess, one-sided), (b) the
    excess is larger for `heuristic` than for `greedy` (Welch, one-sided), Holm-adjusted over the two."""
    from scipy import stats as sps
    from statsmodels.stats.multitest import multipletests
    t = t.assign(excess=t["loss_points"].astype(float) - t["table_loss"].astype(float))
    out: dict[str, Number] = {}
    for bot, g in t.groupby("bot"):
        for col, what in (("loss_points", "mean loss by the review"), ("table_loss", "mean loss at the table that "
                          "played (the recorded bots play on)"), ("excess", "the review's loss less the table's")):
            m, lo, hi = mean_ci(g[col].astype(float))
            out[f"truth.{bot}.{col}"] = Number(m, lo, hi, digits=2, games=len(g), says=(
                f"{bot}'s sampled decisions the review says lose a mistake or more (3-4 players): {what}, points, "
                "95% t interval"))
        out[f"truth.{bot}.real"] = _share(int((g["table_loss"].astype(float) >= THRESHOLDS["mistake"]).sum()),
                                          len(g), f"{bot}: those whose loss at the table is a mistake or more, "
                                          "95% Wilson")
    h, gr = t[t["bot"] == "heuristic"]["excess"], t[t["bot"] == "greedy"]["excess"]
    if len(h) > 1 and len(gr) > 1:
        pa = float(sps.ttest_1samp(h, 0.0, alternative="greater").pvalue)
        pb = float(sps.ttest_ind(h, gr, equal_var=False, alternative="greater").pvalue)
        reject, adjusted, _, _ = multipletests([pa, pb], alpha=TRUTH_ALPHA, method="holm")
        for key, p, adj, ok, what in (("a", pa, adjusted[0], reject[0], "heuristic's review loss exceeds the table's"),
                                      ("b", pb, adjusted[1], reject[1],
                                       "the excess is larger for heuristic than for greedy")):
            out[f"truth.test.{key}.p"] = Number(adj, digits=7, games=len(h) + len(gr), says=(
                f"declared test ({key}), {what}: p-value, one-sided, Holm-adjusted over the two (raw {p:.2g})"))
            out[f"truth.test.{key}.accepted"] = Number(float(ok), unit="number", digits=0, games=len(h) + len(gr),
                                                       says=f"declared test ({key}) accepted at {TRUTH_ALPHA} (1: yes)")
    return out


def truth_lines(t: pd.DataFrame) -> list[str]:
    """report.md's table of order_truth: by bot and the kind of decision (phase, played move's kind, best's)."""
    t = t.assign(kind=t["phase"] + ": " + t["played"].str.split().str[0] + " for " + t["best"].str.split().str[0])
    groups = sorted(t.groupby(["bot", "kind"]), key=lambda item: (item[0][0], -len(item[1])))
    return table(["bot", "decision (phase: played for best)", "decisions", "mean loss (review)",
                  "mean loss (at the table)"],
                 ([bot, kind, len(g), f"{g['loss_points'].astype(float).mean():.2f}",
                   f"{g['table_loss'].astype(float).mean():.2f}"] for (bot, kind), g in groups))


#: what order_table.csv keeps of a decision played on at the table (with its game's keys and move): the rest of
#: its row is order.csv's
TABLE_COLUMNS = ("loss_search", "loss_points", "label", "uncertainty", "accuracy")
GAME_KEYS = ["weaker", "players", "game"]


def at_table(o: pd.DataFrame, t: pd.DataFrame, games: pd.DataFrame) -> pd.DataFrame:
    """The order games the table went through (`games`: order_table_games.csv) as `--table` rates them:
    order.csv's rows (`o`), those played on (`t`: order_table.csv) with the table's TABLE_COLUMNS and
    rated_by 'table', the others with rated_by 'search'."""
    keys = [*GAME_KEYS, "move"]
    out = o.merge(games[GAME_KEYS], on=GAME_KEYS).set_index(keys)
    out["rated_by"], out["loss_search"] = "search", float("nan")
    for c in ("uncertainty", "loss_points", "accuracy"):     # read as text where a column has blanks
        out[c] = pd.to_numeric(out[c], errors="coerce")
    out.update(t.set_index(keys)[list(TABLE_COLUMNS)].assign(rated_by="table"))
    return out.reset_index()


def _table_frame(out: Path) -> pd.DataFrame | None:
    """at_table of the files in `out`, if the table's stage has run."""
    frames = [_read(out, name) for name in ("order.csv", "order_table.csv", "order_table_games.csv")]
    return at_table(*frames) if all(f is not None and len(f) for f in frames) else None


#: order_table's adoption rule (experiments/review.py's text, before the games): the weaker bot has the lowest
#: accuracy and the largest total loss in at least this share of its games at each count (random: every game)
TABLE_RULE = {"greedy": 0.8, "random": 1.0}


def table_order_numbers(t: pd.DataFrame) -> dict[str, Number]:
    """order_table.csv's numbers: by weaker bot and count, the share of games in which the weaker bot has the
    lowest accuracy and the largest total loss at the table (95% Wilson); `table.adopted`: 1 if every count of
    both pairings meets TABLE_RULE."""
    o = order_table(t)
    out: dict[str, Number] = {}
    ok = True
    for (weaker, players), g in o.groupby(["weaker", "players"]):
        both = g["worst_accuracy"] & g["largest_loss"]
        out[f"table.{weaker}.p{players}.both"] = _share(int(both.sum()), len(g), (
            f"{players}-player games of {weaker} against heuristic reviewed at the table (--table) in which {weaker} "
            "has the lowest accuracy and the largest total loss of points, 95% Wilson"))
        out[f"table.{weaker}.p{players}.accuracy"] = _share(int(g["worst_accuracy"].sum()), len(g), (
            f"{players}-player games of {weaker} against heuristic reviewed at the table (--table) in which {weaker} "
            "has the lowest accuracy, 95% Wilson"))
        ok &= bool(both.mean() >= TABLE_RULE[weaker])
    # what is left of each bot's loss in the greedy games at 3-4 players: the part the table played on and the
    # part it kept from the search (a seat's game; exploratory, no test declared)
    g = t[(t["weaker"] == "greedy") & (t["players"] >= 3)].assign(
        loss=lambda x: x["loss_points"].astype(float), at_table=lambda x: x["rated_by"] == "table")
    for bot, b in g.groupby("bot"):
        seats = b.groupby(["players", "game", "seat"])
        for key, part, what in (("at_table", True, "played on at the table"), ("by_search", False, "kept from the "
                                                                                "search (not played on)")):
            m, lo, hi = mean_ci(seats.apply(lambda x, part=part: x.loc[x["at_table"] == part, "loss"].sum()))
            out[f"table.{bot}.{key}"] = Number(m, lo, hi, digits=1, games=seats.ngroups, says=(
                f"greedy games at 3-4 players, --table: a {bot} seat's loss {what}, points a game, 95% t"))
        played_on = b[b["at_table"]]
        if len(played_on):
            out[f"table.{bot}.zero"] = _share(int((played_on["loss"] == 0).sum()), len(played_on), (
                f"greedy games at 3-4 players: {bot}'s moves played on at the table that lost nothing there (the "
                "move played did as well or better; its loss counted as 0), 95% Wilson"))
    out["table.adopted"] = Number(float(ok and set(o["weaker"]) == set(TABLE_RULE)), digits=0, games=len(o), says=(
        "the order of players at the table meets the rule declared before the games at every count (1: yes)"))
    return out


#: how a decision played on at the table counts in a seat's accuracy and total loss, from the table's mean loss
#: over its deals and that mean's standard error (table_all.csv, fresh.csv): `clamped` as `--table` counts it
#: today (0 when the move played did as well or better), `mean` the mean as it is (a harmless move counts 0 on
#: average, a move that did better than the search's best counts below 0), `smaller` the mean less its error,
#: not below 0 (what the table is sure of; the label's own rule). In this order on a tie (table_all_choice).
TABLE_COUNTS = {"clamped": lambda m, se: max(m, 0.0), "smaller": lambda m, se: max(m - se, 0.0),
                "mean": lambda m, se: m}


def rated_at_table(o: pd.DataFrame, t: pd.DataFrame, count: str) -> pd.DataFrame:
    """The games of `o` (every decision: order.csv's or fresh.csv's rows) with each decision of `t` (played on:
    table_loss, table_se) counted by TABLE_COUNTS[count] in loss_points and accuracy; the others as the search
    rated them. Only the games `t` went through (a game with no row in `t` is left out)."""
    from ..play.review_rating import accuracy_of
    keys = [*GAME_KEYS, "move"]
    t = t.dropna(subset=["table_loss"])
    out = o.merge(t[GAME_KEYS].drop_duplicates(), on=GAME_KEYS).set_index(keys)
    out["loss_points"] = pd.to_numeric(out["loss_points"], errors="coerce")
    on = t.set_index(keys)
    counted = pd.Series([TABLE_COUNTS[count](float(m), float(se)) for m, se in zip(on["table_loss"], on["table_se"])],
                        index=on.index, dtype=float)
    out.loc[counted.index, "loss_points"] = counted
    out.loc[counted.index, "accuracy"] = counted.map(accuracy_of)
    out["accuracy"] = pd.to_numeric(out["accuracy"], errors="coerce")
    return out.reset_index()


def _both_shares(f: pd.DataFrame) -> pd.Series:
    """By player count: the share of games in which the weaker bot has the lowest accuracy and the largest
    total loss (order_table's two columns)."""
    o = order_table(f)
    return (o["worst_accuracy"] & o["largest_loss"]).groupby(o["players"]).mean()


def table_all_choice(o: pd.DataFrame, t: pd.DataFrame) -> str:
    """The count table_all chooses (experiments/review.py's rule, declared before most of its games were
    read): the highest smaller share over the player counts of games in which greedy has the lowest accuracy
    and the largest total loss; on a tie the first in TABLE_COUNTS."""
    scores = {c: float(_both_shares(rated_at_table(o, t, c)).min()) for c in TABLE_COUNTS}
    return max(TABLE_COUNTS, key=lambda c: (scores[c], -list(TABLE_COUNTS).index(c)))


def table_all_numbers(o: pd.DataFrame, t: pd.DataFrame, prefix: str = "table_all",
                      what: str = "greedy games at 3-4 players (order.csv)") -> dict[str, Number]:
    """For each count of TABLE_COUNTS and player count: the share of games in which greedy has the lowest
    accuracy and the largest total loss, every inaccuracy or worse played on at the table (95% Wilson); by bot,
    the mean loss at the table and by the search of the decisions played on (95% t)."""
    out: dict[str, Number] = {}
    for count in TABLE_COUNTS:
        f = order_table(rated_at_table(o, t, count))
        for players, g in f.groupby("players"):
            both = g["worst_accuracy"] & g["largest_loss"]
            out[f"{prefix}.{count}.p{players}"] = _share(int(both.sum()), len(g), (
                f"{what}, every inaccuracy or worse played on at the table and counted `{count}`: games in which "
                f"greedy has the lowest accuracy and the largest total loss, {players} players, 95% Wilson"))
    on = t.dropna(subset=["table_loss"])
    for bot, b in on.groupby("bot"):
        for key, values in (("table", b["table_loss"].astype(float)), ("search", _search_loss(b))):
            m, lo, hi = mean_ci(values)
            out[f"{prefix}.{bot}.{key}"] = Number(m, lo, hi, digits=2, games=len(b), says=(
                f"{what}: {bot}'s decisions played on (a search loss of an inaccuracy or more), mean loss "
                f"{'at the table' if key == 'table' else 'by the search'}, points, 95% t"))
    return out


#: the fresh games' check (experiments/review.py, declared before their rows were read): the chosen count
#: orders greedy last in accuracy and total loss in at least this share of the games at 3 and at 4 players
FRESH_RULE = 0.8


def fresh_numbers(f: pd.DataFrame, choice: str) -> dict[str, Number]:
    """fresh.csv's numbers: table_all_numbers of its games, the default review's order in them, and
    `fresh.passed`: 1 if the count table_all chose (`choice`) meets FRESH_RULE at every count."""
    on = f.dropna(subset=["table_loss"])
    out = table_all_numbers(f, on, "fresh", "fresh greedy games at 3-4 players (fresh.csv)")
    default = _both_shares(f)
    for players, share in default.items():
        n = int((f["players"] == players).groupby(f["game"]).any().sum())
        out[f"fresh.default.p{players}"] = _share(round(share * n), n, (
            f"fresh greedy games at {players} players, the default review (the search's losses): games in which "
            "greedy has the lowest accuracy and the largest total loss, 95% Wilson"))
    shares = _both_shares(rated_at_table(f, on, choice))
    out["fresh.passed"] = Number(float(bool((shares >= FRESH_RULE).all()) and set(shares.index) == {3, 4}),
                                 digits=0, games=int(f.groupby(["players", "game"]).ngroups), says=(
        f"the count chosen on table_all ({choice}) orders greedy last in at least {FRESH_RULE:.0%} of the fresh "
        "games at 3 and at 4 players (1: yes)"))
    return out


def _table_all_frames(out: Path) -> tuple[pd.DataFrame, pd.DataFrame] | None:
    """order.csv's greedy games and table_all.csv, if its stage has run."""
    o, t = _read(out, "order.csv"), _read(out, "table_all.csv")
    if o is None or t is None or not len(t):
        return None
    t = t.assign(table_loss=t["table_loss"].astype(float), table_se=t["table_se"].astype(float))
    return o[o["weaker"] == "greedy"], t


def _fresh_frame(out: Path) -> pd.DataFrame | None:
    f = _read(out, "fresh.csv")
    if f is None or not len(f):
        return None
    return f.assign(table_loss=pd.to_numeric(f["table_loss"], errors="coerce"),
                    table_se=pd.to_numeric(f["table_se"], errors="coerce"))


def _search_loss(b: pd.DataFrame) -> pd.Series:
    """The search's loss of decisions played on: table_all.csv keeps it as loss_search, fresh.csv as loss_points."""
    return b["loss_search" if "loss_search" in b else "loss_points"].astype(float)


def table_all_lines(o: pd.DataFrame, t: pd.DataFrame, fresh: pd.DataFrame | None) -> list[str]:
    """report.md's table of table_all (and the fresh games, if run): games, and the share of them ordered, by
    count and player count; then each bot's mean loss of the decisions played on, by the search and the table."""
    sets = [("order.csv", o, t)]
    if fresh is not None:
        sets.append(("fresh.csv", fresh, fresh.dropna(subset=["table_loss"])))
    rows = []
    for name, games, on in sets:
        shares = {c: _both_shares(rated_at_table(games, on, c)) for c in TABLE_COUNTS}
        for players in sorted(shares["clamped"].index):
            n = on[on["players"] == players]["game"].nunique()
            rows.append([name, players, n, *(f"{shares[c][players]:.0%}" for c in TABLE_COUNTS)])
    lines = table(["games", "players", "gone through", *TABLE_COUNTS], rows)
    means = [[name, bot, len(b), f"{_search_loss(b).mean():.2f}", f"{b['table_loss'].mean():.2f}",
              f"{b['table_se'].mean():.2f}"] for name, _, on in sets for bot, b in on.groupby("bot")]
    return [*lines, "", *table(["games", "bot", "decisions played on", "mean loss (search)", "mean loss (table)",
                                 "mean standard error"], means)]


def review_numbers(out: Path) -> dict[str, Number]:
    """The front page's numbers: those of the files there are."""
    numbers: dict[str, Number] = {}
    if (speed := _read(out, "speed.csv")) is not None:
        for r in speed.itertuples():
            kind = getattr(r, "kind", "selfplay") or "selfplay"
            numbers[f"seconds.{kind}.p{r.players}"] = Number(
                float(r.seconds_on_2_free_cores), digits=1, games=1,
                says=f"CPU seconds / 2 to review a {r.players}-player game ({kind}), all seats, {r.budget} iterations")
    if (b := _read(out, "board214.csv")) is not None:
        row = b[b["move"] == 214].iloc[0]
        label = label_of(float(row["loss_points"])) or "none"
        numbers["board214.loss"] = Number(float(row["loss_points"]), digits=2, games=1,
                                          says=f"points the board record's move 214 loses (label: {label})")
    for name, fn in (("planted.csv", planted_numbers), ("selfplay.csv", selfplay_numbers),
                     ("order.csv", order_numbers), ("order_confirm.csv", order_confirm_numbers),
                     ("drift.csv", drift_numbers),
                     ("order_truth.csv", truth_numbers)):
        if (data := _read(out, name)) is not None and len(data):
            numbers.update(fn(data))
    if (t := _table_frame(out)) is not None:
        numbers.update(table_order_numbers(t))
    if (ta := _table_all_frames(out)) is not None:
        numbers.update(table_all_numbers(*ta))
        choice = table_all_choice(*ta)
        names = ", ".join(f"{i} {c}" for i, c in enumerate(TABLE_COUNTS))
        numbers["table_all.choice"] = Number(float(list(TABLE_COUNTS).index(choice)), digits=0, games=int(
            ta[1].groupby(["players", "game"]).ngroups), says=f"the count table_all chooses by its rule: {choice} "
                                                               f"({names})")
        if (f := _fresh_frame(out)) is not None:
            numbers.update(fresh_numbers(f, choice))
    return numbers


def _confirmed(p: pd.DataFrame) -> pd.Series:
    """Plants the deep search confirms: its loss reaches the mistake threshold."""
    return p["deep_loss_points"].astype(float) >= THRESHOLDS["mistake"]


def _smaller(d: pd.DataFrame) -> pd.Series:
    """The smaller of a decision's two losses (the mean less the uncertainty; one pair: its loss)."""
    return d["loss_points"].astype(float) - pd.to_numeric(d["uncertainty"], errors="coerce").fillna(0)


def threshold_rows(p: pd.DataFrame, s: pd.DataFrame, grid=(1.0, 1.5, 2.0, 2.5, 3.0)) -> list[list]:
    """For each mistake threshold of the grid: the plants the deep search confirms at it, the share of those a
    review would label (its smaller loss reaching it: the mean loss less the uncertainty), and the false alarms
    per seat and game in self-play."""
    rows = []
    seat_games = s.groupby(["players", "game", "seat"]).ngroups if len(s) else 0
    for t in grid:
        ok = p[p["deep_loss_points"].astype(float) >= t]
        hit = (_smaller(ok) >= t).sum()
        alarms = (_smaller(s) >= t).sum() / seat_games if seat_games else float("nan")
        rows.append([f"{t:g}", len(ok), f"{hit / len(ok):.0%}" if len(ok) else "-", f"{alarms:.2f}"])
    return rows


def order_lines(o: pd.DataFrame) -> list[str]:
    """report.md's order of players: the summary by pairing and count, then every game."""
    t = order_table(o)
    lines = [*order_summary_lines(t), "", "Every game:", ""]
    lines += table(["weaker", "players", "game", "accuracy", "best other", "loss", "largest other",
                    "lowest accuracy", "largest loss", "largest loss of win chance"],
                   ([r.weaker, r.players, r.game, f"{r.accuracy:.0f}", f"{r.best_other_accuracy:.0f}",
                     f"{r.loss:.1f}", f"{r.largest_other_loss:.1f}", r.worst_accuracy, r.largest_loss,
                     r.largest_loss_win] for r in t.itertuples()))
    return [*lines, ""]


def report_lines(out: Path) -> list[str]:
    """report.md's tables: the plants by kind, the thresholds, the order of players, move 214."""
    lines: list[str] = []
    p, s, o = _read(out, "planted.csv"), _read(out, "selfplay.csv"), _read(out, "order.csv")
    if p is not None:
        lines += ["## Planted mistakes by kind", ""]
        lines += table(["kind", "plants", "confirmed (10x)", "of them labelled mistake or worse", "mean loss (review)",
                        "mean loss (10x)"],
                       ([k, len(g), int(_confirmed(g).sum()),
                         int(relabel(g[_confirmed(g)]).isin(MISTAKE_OR_WORSE).sum()),
                         f"{g['loss_points'].astype(float).mean():.2f}",
                         f"{g['deep_loss_points'].astype(float).mean():.2f}"] for k, g in p.groupby("kind")))
        lines += [""]
    if p is not None and s is not None:
        lines += ["## The mistake threshold: recall on plants against false alarms in self-play", ""]
        lines += table(["mistake from (points)", "plants confirmed at it", "labelled", "false alarms a seat and game"],
                       threshold_rows(p, s))
        lines += ["", f"The review's thresholds: {', '.join(f'{k} {v:g}' for k, v in THRESHOLDS.items())} points.", ""]
    if o is not None and len(o):
        lines += ["## Order of players (the weaker bot's seat against heuristic), at the review's budget", ""]
        lines += order_lines(o)
    if (c := _read(out, "order_confirm.csv")) is not None and len(c):
        lines += ["## The large losses of greedy-against-heuristic games, searched again (3-4 players)", "",
                  "A seeded sample of each bot's decisions that the review says lose a mistake or more, searched "
                  "again at 10 times the budget as the plants are (`--stages order_confirm`).", ""]
        lines += table(["bot", "decisions", "confirmed (10x)", "mean loss (review)", "mean loss (10x)"],
                       ([bot, len(g), int((g["deep_loss_points"].astype(float) >= THRESHOLDS["mistake"]).sum()),
                         f"{g['loss_points'].astype(float).mean():.2f}",
                         f"{g['deep_loss_points'].astype(float).mean():.2f}"] for bot, g in c.groupby("bot")))
        lines += [""]
    if (d := _read(out, "drift.csv")) is not None and len(d):
        lines += ["## Where a seat's expected points move (3 and 4 players)", "",
                  "Each seat's game in parts that add up from the value of its first decision to its final score "
                  "(studies/review_validation.py `drift_table`): own (its decisions, the played move less the best), "
                  "within (from one decision to the next in a turn), between (from its last decision of a turn to "
                  "its first of the next: the other players' turns), end (the final score less the last value); "
                  "means a seat and game. loss: the review's total; loss_margin: the same in margin over the table.",
                  ""]
        lines += drift_lines(d)
        lines += [""]
    if (t := _table_frame(out)) is not None:
        lines += ["## Order of players at the table that played (`review --table`)", "",
                  "The order games again, every decision the search labels a mistake or a blunder played on both "
                  "ways by the table (the other players by their bots, the player by heuristic), its loss replaced "
                  "by the table's (`--stages order_table`).", ""]
        lines += order_lines(t)
    if (ta := _table_all_frames(out)) is not None:
        lines += ["## Every inaccuracy or worse played on at the table (greedy games, 3-4 players; exploratory)", "",
                  "The greedy games of order.csv, every decision whose search loss is an inaccuracy or more played on "
                  "both ways at the table as `--table` plays a decision (`--stages table_all`); the share of games in "
                  "which greedy has the lowest accuracy and the largest total loss, by how a decision played on "
                  "counts: `clamped` (the table's mean, 0 when below), `smaller` (the mean less its standard "
                  "error, 0 when below), `mean` (as it is). The same on fresh games (`--stages fresh`), with the "
                  "default review's share in them.", ""]
        lines += table_all_lines(*ta, _fresh_frame(out))
        lines += [""]
    if (t := _read(out, "order_truth.csv")) is not None and len(t):
        lines += ["## The large losses of the greedy games at the table that played (3-4 players)", "",
                  "A seeded sample of each bot's decisions that the review says lose a mistake or more, each played "
                  "on both ways (the move played, the review's best) by the bots that sat at the table, from deals "
                  "of what the mover could not see (`--stages order_truth`): the mover's mean final score after the "
                  "best less after the move played.", ""]
        lines += truth_lines(t)
        lines += [""]
    for path in sorted(out.glob("order-*.csv")):
        budget = path.stem.split("-", 1)[1]
        lines += [f"## Order of players reviewed at {budget} iterations ({path.name}, a sensitivity)", ""]
        lines += order_summary_lines(order_table(pd.read_csv(path, keep_default_na=False)))
        lines += [""]
    return lines
