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
- order.csv's order of players, order_table.csv (`review --table`), table_all.csv, fresh.csv and fresh_deep.csv
  (every inaccuracy or worse at the table), small_truth.csv (a sample of the smaller losses at the table; its
  tests are order_truth's, `truth_numbers`): studies/review_order.py.
"""
from __future__ import annotations

from pathlib import Path

import pandas as pd

from ..play.review_rating import THRESHOLDS, label_of
from ..stats.summary import mean_ci, welch
from .findings import Number
from .markdown import table
from .review_order import (TABLE_COUNTS, fresh_deep_frames, fresh_deep_lines, fresh_deep_numbers, fresh_frame,
                           fresh_numbers, order_lines, order_numbers, order_summary_lines, order_table, read_result,
                           share_of, small_frames, small_lines, small_numbers, table_all_choice, table_all_frames,
                           table_all_lines, table_all_numbers, table_frame, table_order_numbers)

#: the old unit's mistake threshold (lost win chance), to compare the units on the same decisions
WIN_MISTAKE = 0.10
MISTAKE_OR_WORSE = ("mistake", "blunder")


def relabel(d: pd.DataFrame) -> pd.Series:
    """Each decision's label under the review's thresholds today, from its smaller loss (a run made with other
    thresholds reads the same as one made with these, as far as the decisions searched twice reach: every
    decision whose first pair lost the first threshold of that run)."""
    return _smaller(d).map(lambda x: label_of(x) or "")



def planted_numbers(p: pd.DataFrame) -> dict[str, Number]:
    ok = p[p["deep_loss_points"].astype(float) >= THRESHOLDS["mistake"]]
    labelled = relabel(ok).isin(MISTAKE_OR_WORSE)
    out = {"planted.positions": Number(len(p), digits=0, games=len(p), says="planted positions reviewed"),
           "planted.confirmed": Number(len(ok), digits=0, games=len(p),
                                       says="of them confirmed at 10x the budget (a loss of a mistake or more)"),
           "recall.points": share_of(labelled.sum(), len(ok), "confirmed plants the review labels a mistake or "
                                   "worse (expected points), 95% Wilson"),
           "recall.win": share_of((ok["loss_win"].astype(float) >= WIN_MISTAKE).sum(), len(ok),
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


def order_confirm_numbers(c: pd.DataFrame) -> dict[str, Number]:
    """The large losses of greedy-against-heuristic games searched again at 10 times the budget, by bot."""
    out = {}
    for bot, g in c.groupby("bot"):
        deep = g["deep_loss_points"].astype(float)
        out[f"confirm.{bot}.confirmed"] = share_of(int((deep >= THRESHOLDS["mistake"]).sum()), len(g),
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
        out[f"drift.greedy.{name}.both"] = share_of(int((o["worst_accuracy"] & o["largest_loss"]).sum()), len(o), (
            f"greedy games reviewed by the {name} review in which greedy has the lowest accuracy and the largest "
            "total loss of points, 95% Wilson"))
    seats = t[(t["kind"] == "greedy") & (t["review"] == "default")]
    worst = [bool(g.loc[g["bot"] == "greedy", "loss_margin"].max() > g.loc[g["bot"] != "greedy", "loss_margin"].max())
             for _, g in seats.groupby(["players", "game"])]
    if worst:
        out["drift.greedy.margin"] = share_of(sum(worst), len(worst), (
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


TRUTH_SAMPLED = ("sampled decisions the review says lose a mistake or more (3-4 players; played on by the recorded "
                 "bots, the mover's own too)")


#: fresh_small's games at each count (experiments/review.py --table-games): its rule is read on all of them
FRESH_SMALL_GAMES = 20
#: small_truth's sample, as its numbers name it
SMALL_SAMPLED = ("sampled decisions of fresh.csv's games at 3-4 players not played on there (a search loss from 0.05 "
                 "points to an inaccuracy), played on as fresh.csv's from 64 deals (the mover by heuristic)")


def truth_numbers(t: pd.DataFrame, prefix: str = "truth", sampled: str = TRUTH_SAMPLED) -> dict[str, Number]:
    """order_truth.csv's numbers (and small_truth.csv's: `prefix` small, its `sampled` decisions): by bot, the
    sampled decisions' mean loss by the review and at the table, and the review's excess (t intervals); the
    declared tests (experiments/review.py's text): (a) the review's loss exceeds the table's for `heuristic`
    (one-sample t test of the excess, one-sided), (b) the excess is larger for `heuristic` than for `greedy`
    (Welch, one-sided), Holm-adjusted over the two."""
    from scipy import stats as sps
    from statsmodels.stats.multitest import multipletests
    t = t.assign(excess=t["loss_points"].astype(float) - t["table_loss"].astype(float))
    out: dict[str, Number] = {}
    for bot, g in t.groupby("bot"):
        for col, what in (("loss_points", "mean loss by the review"), ("table_loss", "mean loss at the table"),
                          ("excess", "the review's loss less the table's")):
            m, lo, hi = mean_ci(g[col].astype(float))
            out[f"{prefix}.{bot}.{col}"] = Number(m, lo, hi, digits=2, games=len(g),
                                                  says=f"{bot}'s {sampled}: {what}, points, 95% t interval")
        real = int((g["table_loss"].astype(float) >= THRESHOLDS["mistake"]).sum())
        out[f"{prefix}.{bot}.real"] = share_of(real, len(g), f"{bot}'s {sampled}: those whose loss at the table is "
                                                             "a mistake or more, 95% Wilson")
    h, gr = t[t["bot"] == "heuristic"]["excess"], t[t["bot"] == "greedy"]["excess"]
    if len(h) > 1 and len(gr) > 1:
        pa = float(sps.ttest_1samp(h, 0.0, alternative="greater").pvalue)
        pb = float(sps.ttest_ind(h, gr, equal_var=False, alternative="greater").pvalue)
        reject, adjusted, _, _ = multipletests([pa, pb], alpha=TRUTH_ALPHA, method="holm")
        for key, p, adj, ok, what in (("a", pa, adjusted[0], reject[0], "heuristic's review loss exceeds the table's"),
                                      ("b", pb, adjusted[1], reject[1],
                                       "the excess is larger for heuristic than for greedy")):
            out[f"{prefix}.test.{key}.p"] = Number(adj, digits=7, games=len(h) + len(gr), says=(
                f"declared test ({key}), {what}: p-value, one-sided, Holm-adjusted over the two (raw {p:.2g})"))
            out[f"{prefix}.test.{key}.accepted"] = Number(float(ok), unit="number", digits=0, games=len(h) + len(gr),
                                                          says=f"declared test ({key}) accepted at {TRUTH_ALPHA} "
                                                               "(1: yes)")
    return out


def truth_lines(t: pd.DataFrame) -> list[str]:
    """report.md's table of order_truth: by bot and the kind of decision (phase, played move's kind, best's)."""
    t = t.assign(kind=t["phase"] + ": " + t["played"].str.split().str[0] + " for " + t["best"].str.split().str[0])
    groups = sorted(t.groupby(["bot", "kind"]), key=lambda item: (item[0][0], -len(item[1])))
    return table(["bot", "decision (phase: played for best)", "decisions", "mean loss (review)",
                  "mean loss (at the table)"],
                 ([bot, kind, len(g), f"{g['loss_points'].astype(float).mean():.2f}",
                   f"{g['table_loss'].astype(float).mean():.2f}"] for (bot, kind), g in groups))


def review_numbers(out: Path) -> dict[str, Number]:
    """The front page's numbers: those of the files there are."""
    numbers: dict[str, Number] = {}
    if (speed := read_result(out, "speed.csv")) is not None:
        for r in speed.itertuples():
            kind = getattr(r, "kind", "selfplay") or "selfplay"
            numbers[f"seconds.{kind}.p{r.players}"] = Number(
                float(r.seconds_on_2_free_cores), digits=1, games=1,
                says=f"CPU seconds / 2 to review a {r.players}-player game ({kind}), all seats, {r.budget} iterations")
    if (b := read_result(out, "board214.csv")) is not None:
        row = b[b["move"] == 214].iloc[0]
        label = label_of(float(row["loss_points"])) or "none"
        numbers["board214.loss"] = Number(float(row["loss_points"]), digits=2, games=1,
                                          says=f"points the board record's move 214 loses (label: {label})")
    for name, fn in (("planted.csv", planted_numbers), ("selfplay.csv", selfplay_numbers),
                     ("order.csv", order_numbers), ("order_confirm.csv", order_confirm_numbers),
                     ("drift.csv", drift_numbers),
                     ("order_truth.csv", truth_numbers)):
        if (data := read_result(out, name)) is not None and len(data):
            numbers.update(fn(data))
    if (t := table_frame(out)) is not None:
        numbers.update(table_order_numbers(t))
    if (ta := table_all_frames(out)) is not None:
        numbers.update(table_all_numbers(*ta))
        choice = table_all_choice(*ta)
        names = ", ".join(f"{i} {c}" for i, c in enumerate(TABLE_COUNTS))
        numbers["table_all.choice"] = Number(float(list(TABLE_COUNTS).index(choice)), digits=0, games=int(
            ta[1].groupby(["players", "game"]).ngroups), says=f"the count table_all chooses by its rule: {choice} "
                                                               f"({names})")
        if (f := fresh_frame(out)) is not None:
            numbers.update(fresh_numbers(f, choice))
        if (f := fresh_frame(out, "fresh_small.csv")) is not None:
            numbers.update(fresh_numbers(f, choice, "fresh_small", FRESH_SMALL_GAMES))
    if (deep := fresh_deep_frames(out)) is not None:
        numbers.update(fresh_deep_numbers(*deep))
    if (small := small_frames(out)) is not None:
        numbers.update(truth_numbers(small[0], "small", SMALL_SAMPLED))
        numbers.update(small_numbers(*small))
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


def _section(heading: str, body: list[str], text: str | None = None) -> list[str]:
    """One section of report.md: its heading, the sentence that says what it shows (if any), its body, a blank."""
    return [f"## {heading}", "", *([text, ""] if text else []), *body, ""]


def report_lines(out: Path) -> list[str]:
    """report.md's tables: the plants by kind, the thresholds, the order of players, move 214."""
    lines: list[str] = []
    p, s, o = read_result(out, "planted.csv"), read_result(out, "selfplay.csv"), read_result(out, "order.csv")
    if p is not None:
        lines += _section("Planted mistakes by kind", table(
            ["kind", "plants", "confirmed (10x)", "of them labelled mistake or worse", "mean loss (review)",
             "mean loss (10x)"],
            ([k, len(g), int(_confirmed(g).sum()), int(relabel(g[_confirmed(g)]).isin(MISTAKE_OR_WORSE).sum()),
              f"{g['loss_points'].astype(float).mean():.2f}", f"{g['deep_loss_points'].astype(float).mean():.2f}"]
             for k, g in p.groupby("kind"))))
    if p is not None and s is not None:
        lines += ["## The mistake threshold: recall on plants against false alarms in self-play", ""]
        lines += table(["mistake from (points)", "plants confirmed at it", "labelled", "false alarms a seat and game"],
                       threshold_rows(p, s))
        lines += ["", f"The review's thresholds: {', '.join(f'{k} {v:g}' for k, v in THRESHOLDS.items())} points.", ""]
    if o is not None and len(o):
        lines += ["## Order of players (the weaker bot's seat against heuristic), at the review's budget", ""]
        lines += order_lines(o)
    if (c := read_result(out, "order_confirm.csv")) is not None and len(c):
        lines += _section("The large losses of greedy-against-heuristic games, searched again (3-4 players)", table(
            ["bot", "decisions", "confirmed (10x)", "mean loss (review)", "mean loss (10x)"],
            ([bot, len(g), int((g["deep_loss_points"].astype(float) >= THRESHOLDS["mistake"]).sum()),
              f"{g['loss_points'].astype(float).mean():.2f}", f"{g['deep_loss_points'].astype(float).mean():.2f}"]
             for bot, g in c.groupby("bot"))),
            "A seeded sample of each bot's decisions that the review says lose a mistake or more, searched again at "
            "10 times the budget as the plants are (`--stages order_confirm`).")
    if (d := read_result(out, "drift.csv")) is not None and len(d):
        lines += _section("Where a seat's expected points move (3 and 4 players)", drift_lines(d),
                          "Each seat's game in parts that add up from the value of its first decision to its final "
                          "score (studies/review_validation.py `drift_table`): own (its decisions, the played move "
                          "less the best), within (from one decision to the next in a turn), between (from its last "
                          "decision of a turn to its first of the next: the other players' turns), end (the final "
                          "score less the last value); means a seat and game. loss: the review's total; loss_margin: "
                          "the same in margin over the table.")
    if (t := table_frame(out)) is not None:
        lines += ["## Order of players at the table that played (`review --table`)", "",
                  "The order games again, every decision the search labels a mistake or a blunder played on both "
                  "ways by the table (the other players by their bots, the player by heuristic), its loss replaced "
                  "by the table's (`--stages order_table`).", ""]
        lines += order_lines(t)
    if (ta := table_all_frames(out)) is not None:
        lines += _section("Every inaccuracy or worse played on at the table (greedy games, 3-4 players; exploratory)",
                          table_all_lines(*ta, ("fresh.csv", fresh_frame(out)),
                                          ("fresh_small.csv", fresh_frame(out, "fresh_small.csv"))),
                          "The greedy games of order.csv, every decision whose search loss is an inaccuracy or more "
                          "played on both ways at the table as `--table` plays a decision (`--stages table_all`); the "
                          "share of games in which greedy has the lowest accuracy and the largest total loss, by how a "
                          "decision played on counts: `clamped` (the table's mean, 0 when below), `smaller` (the mean "
                          "less its standard error, 0 when below), `mean` (as it is). The same on fresh games "
                          "(`--stages fresh`), with the default review's share in them; and on the fresh games with "
                          "every decision from 0.05 points played on from 32 deals (`--stages fresh_small`).")
    if (deep := fresh_deep_frames(out)) is not None:
        lines += _section("The fresh 3-player games at 64 deals (`--stages fresh_deep`)", fresh_deep_lines(*deep),
                          "Every decision of fresh.csv's 3-player games played on at the table played on again from "
                          "48 more deals and pooled with its first 16 (a standard error a half). The declared check: "
                          "the `mean` count orders greedy last in at least 80% of the games at 64 deals (then the "
                          "noise of 16 deals is why the fresh check failed at 3 players). Beside it, exploratory: how "
                          "a seat's total loss at the table (the decisions played on) spreads across seats of each "
                          "bot, the table's noise in it, and the spread beyond the noise.")
    if (small := small_frames(out)) is not None:
        lines += _section("The search's smaller losses at the table (`--stages small_truth`)",
                          [*truth_lines(small[0]), "", *small_lines(*small)],
                          "A seeded sample of each bot's decisions in fresh.csv's games that the table did not play "
                          "on (a search loss from 0.05 points to an inaccuracy), played on as fresh.csv's decisions "
                          "were, from 64 deals; then, exploratory, fresh.csv's order (the decisions played on counted "
                          "`mean`) with each decision not played on counted at its search loss times a ratio by bot: "
                          "two bounds and the sample's ratio of table to search loss.")
    if (t := read_result(out, "order_truth.csv")) is not None and len(t):
        lines += _section("The large losses of the greedy games at the table that played (3-4 players)",
                          truth_lines(t),
                          "A seeded sample of each bot's decisions that the review says lose a mistake or more, each "
                          "played on both ways (the move played, the review's best) by the bots that sat at the "
                          "table, from deals of what the mover could not see (`--stages order_truth`): the mover's "
                          "mean final score after the best less after the move played.")
    for path in sorted(out.glob("order-*.csv")):
        budget = path.stem.split("-", 1)[1]
        lines += _section(f"Order of players reviewed at {budget} iterations ({path.name}, a sensitivity)",
                          order_summary_lines(order_table(pd.read_csv(path, keep_default_na=False))))
    return lines
