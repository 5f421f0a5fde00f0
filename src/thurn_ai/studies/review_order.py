"""The order of players in the review's validation set (studies/review_validation.py reads the rest): whether
the weaker bot of each game (random, greedy against heuristic) has the lowest accuracy and the largest total loss
of points, by the search's review (order.csv) and at the table that played (`thurn-ai review --table`:
order_table.csv; every inaccuracy or worse played on, counted three ways: table_all.csv, and its check on fresh
games: fresh.csv; the fresh 3-player games' decisions played on from 64 deals: fresh_deep.csv; a sample of the
search's smaller losses played on too: small_truth.csv).
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats

from ..play.review_rating import accuracy_of
from ..play.review_table import TABLE_DEALS, TableLoss, pooled
from ..stats.summary import mean_ci, wilson_interval
from .findings import Number
from .markdown import table


def share_of(k: float, n: int, says: str) -> Number:
    lo, hi = wilson_interval(k, n)
    return Number(k / n if n else float("nan"), lo, hi, "share", games=n, says=says)


def read_result(out: Path, name: str) -> pd.DataFrame | None:
    path = Path(out) / name
    return pd.read_csv(path, keep_default_na=False) if path.exists() else None


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
            out[f"order.{weaker}.{key}"] = share_of(int(hit.sum()), len(g), f"games in which {weaker} {what}, "
                                                  "95% Wilson")
    return out


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


def table_frame(out: Path) -> pd.DataFrame | None:
    """at_table of the files in `out`, if the table's stage has run."""
    frames = [read_result(out, name) for name in ("order.csv", "order_table.csv", "order_table_games.csv")]
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
        out[f"table.{weaker}.p{players}.both"] = share_of(int(both.sum()), len(g), (
            f"{players}-player games of {weaker} against heuristic reviewed at the table (--table) in which {weaker} "
            "has the lowest accuracy and the largest total loss of points, 95% Wilson"))
        out[f"table.{weaker}.p{players}.accuracy"] = share_of(int(g["worst_accuracy"].sum()), len(g), (
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
            out[f"table.{bot}.zero"] = share_of(int((played_on["loss"] == 0).sum()), len(played_on), (
                f"greedy games at 3-4 players: {bot}'s moves played on at the table that lost nothing there (the "
                "move played did as well or better; its loss counted as 0), 95% Wilson"))
    out["table.adopted"] = Number(float(ok and set(o["weaker"]) == set(TABLE_RULE)), digits=0, games=len(o), says=(
        "the order of players at the table meets the rule declared before the games at every count (1: yes)"))
    return out


#: how a decision played on at the table counts in a seat's accuracy and total loss, from the table's mean loss
#: over its deals and that mean's standard error (table_all.csv, fresh.csv): `clamped` as `--table` counts it
#: today (0 when the move played did as well or better), `smaller` the mean less its error, not below 0 (what
#: the table is sure of; the label's own rule), `mean` the mean as it is (a harmless move counts 0 on average, a
#: move that did better than the search's best counts below 0). In this order on a tie (table_all_choice).
TABLE_COUNTS = {"clamped": lambda m, se: max(m, 0.0), "smaller": lambda m, se: max(m - se, 0.0),
                "mean": lambda m, se: m}


def rated_at_table(o: pd.DataFrame, t: pd.DataFrame, count: str) -> pd.DataFrame:
    """The games of `o` (every decision: order.csv's or fresh.csv's rows) with each decision of `t` (played on:
    table_loss, table_se) counted by TABLE_COUNTS[count] in loss_points and accuracy; the others as the search
    rated them. Only the games `t` went through (a game with no row in `t` is left out)."""
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
            out[f"{prefix}.{count}.p{players}"] = share_of(int(both.sum()), len(g), (
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


def fresh_numbers(f: pd.DataFrame, choice: str, prefix: str = "fresh", complete: int = 0) -> dict[str, Number]:
    """fresh.csv's numbers (and fresh_small.csv's: `prefix` fresh_small): table_all_numbers of its games, the
    default review's order in them, and `{prefix}.passed`: 1 if the count table_all chose (`choice`) meets
    FRESH_RULE at every count (3 and 4 players, each with at least `complete` games: a run not yet finished has
    not passed)."""
    on = f.dropna(subset=["table_loss"])
    what = f"{prefix} greedy games at 3-4 players ({prefix}.csv)"
    out = table_all_numbers(f, on, prefix, what)
    default = _both_shares(f)
    for players, share in default.items():
        n = int((f["players"] == players).groupby(f["game"]).any().sum())
        out[f"{prefix}.default.p{players}"] = share_of(round(share * n), n, (
            f"{prefix} greedy games at {players} players, the default review (the search's losses): games in which "
            "greedy has the lowest accuracy and the largest total loss, 95% Wilson"))
    shares = _both_shares(rated_at_table(f, on, choice))
    games = f.groupby("players")["game"].nunique()
    met = bool((shares >= FRESH_RULE).all()) and set(shares.index) == {3, 4} and bool((games >= complete).all())
    out[f"{prefix}.passed"] = Number(float(met), digits=0, games=int(f.groupby(["players", "game"]).ngroups), says=(
        f"the count chosen on table_all ({choice}) orders greedy last in at least {FRESH_RULE:.0%} of the {prefix} "
        f"games at 3 and at 4 players (1: yes)"))
    return out


def table_all_frames(out: Path) -> tuple[pd.DataFrame, pd.DataFrame] | None:
    """order.csv's greedy games and table_all.csv, if its stage has run."""
    o, t = read_result(out, "order.csv"), read_result(out, "table_all.csv")
    if o is None or t is None or not len(t):
        return None
    t = t.assign(table_loss=t["table_loss"].astype(float), table_se=t["table_se"].astype(float))
    return o[o["weaker"] == "greedy"], t


def fresh_frame(out: Path, name: str = "fresh.csv") -> pd.DataFrame | None:
    """fresh.csv (or fresh_small.csv), its table columns as numbers (blank: not played on), if its stage has run."""
    f = read_result(out, name)
    if f is None or not len(f):
        return None
    return f.assign(table_loss=pd.to_numeric(f["table_loss"], errors="coerce"),
                    table_se=pd.to_numeric(f["table_se"], errors="coerce"))


#: fresh_deep's rule (experiments/review.py, declared before its rows were read): at 64 deals the count chosen on
#: table_all orders greedy last in at least FRESH_RULE of fresh.csv's 3-player games
FRESH_DEEP_COUNT = "mean"


def fresh_deep_frames(out: Path) -> tuple[pd.DataFrame, pd.DataFrame] | None:
    """fresh.csv's games that fresh_deep.csv went through whole (every decision played on has its more deals),
    as fresh.csv rates them (TABLE_DEALS deals) and with each decision played on rated by all its deals
    (its first TABLE_DEALS and its more deals pooled into table_loss and table_se: play/review_table.py
    `pooled`, exactly the loss of all of them at once)."""
    f, d = fresh_frame(out), read_result(out, "fresh_deep.csv")
    if f is None or d is None or not len(d):
        return None
    keys = [*GAME_KEYS, "move"]
    more = d.set_index(keys)[["more_loss", "more_se", "more_deals"]].astype(float)
    on = f.dropna(subset=["table_loss"]).set_index(keys)
    whole = on.index.to_frame(index=False).assign(has=on.index.isin(more.index)).groupby(GAME_KEYS)["has"].all()
    games = whole[whole].index.to_frame(index=False)
    few = f.merge(games, on=GAME_KEYS)
    many = few.set_index(keys).join(more[["more_deals"]])
    for key, r in more.loc[more.index.intersection(many.index)].iterrows():
        first = TableLoss(np.nan, np.nan, float(many.at[key, "table_loss"]), float(many.at[key, "table_se"]),
                          TABLE_DEALS)
        t = pooled(first, TableLoss(np.nan, np.nan, r["more_loss"], r["more_se"], int(r["more_deals"])))
        many.loc[key, ["table_loss", "table_se"]] = (t.loss, t.se)
    return few, many.reset_index()


def _seat_totals(f: pd.DataFrame) -> pd.DataFrame:
    """Each seat's total loss at the table (the decisions played on, as they are) and its noise: the sum of
    their squared standard errors."""
    on = f.dropna(subset=["table_loss"])
    return on.groupby([*GAME_KEYS, "seat"]).agg(bot=("bot", "first"), total=("table_loss", "sum"),
                                                 noise=("table_se", lambda x: float((x ** 2).sum()))).reset_index()


def _beyond_noise(totals: pd.DataFrame) -> float:
    """The spread of seat totals across seats beyond the table's noise (a standard deviation, 0 when the noise
    is all of it): sqrt(variance of the totals - mean noise variance)."""
    return float(np.sqrt(max(totals["total"].var(ddof=1) - totals["noise"].mean(), 0.0)))


#: how many standard errors of the difference a heuristic seat's total must exceed greedy's by for the table to
#: be sure it lost more (fresh_deep, declared before its rows were read)
SURE = 1.96


def _table_sure_heuristic_lost_more(f: pd.DataFrame) -> pd.Series:
    """By game of `f` (rows of one deal count, decisions played on with table_loss and table_se): whether a
    heuristic seat's total loss, counted FRESH_DEEP_COUNT, exceeds greedy's by more than SURE standard errors of the
    difference (the table's noise in both totals; the search's losses of the rest counted without noise)."""
    on = f.dropna(subset=["table_loss"])
    rated = rated_at_table(f, on, FRESH_DEEP_COUNT)
    totals = rated.groupby([*GAME_KEYS, "seat"]).agg(bot=("bot", "first"), loss=("loss_points", "sum"))
    noise = _seat_totals(f).set_index([*GAME_KEYS, "seat"])["noise"]
    totals = totals.join(noise).fillna({"noise": 0.0}).reset_index()
    sure = {}
    for key, g in totals.groupby(GAME_KEYS):
        mine = g[g["bot"] == "greedy"].iloc[0]
        others = g[g["bot"] != "greedy"]
        z = (others["loss"] - mine["loss"]) / np.sqrt(others["noise"] + mine["noise"])
        sure[key] = bool((z > SURE).any())
    return pd.Series(sure, dtype=bool)


def _deep_deals(many: pd.DataFrame) -> dict[str, int]:
    """The deals behind fresh_deep's two ratings of its games: fresh.csv's and all of them."""
    return {"few": TABLE_DEALS, "many": TABLE_DEALS + int(many["more_deals"].max())}


def _spread_numbers(frame: pd.DataFrame, name: str, deals: int) -> dict[str, Number]:
    """By bot: the spread of a seat's total at the table across seats, the table's noise in it, and the spread
    beyond the noise (exploratory; a seat bootstrap's 95% interval)."""
    out: dict[str, Number] = {}
    for bot, b in _seat_totals(frame).groupby("bot"):
        res = stats.bootstrap((np.arange(len(b)),), lambda i, seats=b: _beyond_noise(seats.iloc[i]),
                              n_resamples=2000, method="percentile", random_state=0, vectorized=False)
        lo, hi = res.confidence_interval
        for key, value, what, ci in (
                ("spread", float(b["total"].std(ddof=1)), "standard deviation across seats", (None, None)),
                ("noise", float(np.sqrt(b["noise"].mean())),
                 "the table's noise in it (root mean of the summed squared standard errors)", (None, None)),
                ("beyond", _beyond_noise(b), "spread beyond the noise, 95% seat bootstrap", (lo, hi))):
            says = (f"fresh games gone through by fresh_deep, {bot}'s seats: its total loss at the table "
                    f"(decisions played on, {deals} deals), {what}, points")
            out[f"fresh_deep.{name}.{bot}.{key}"] = Number(value, lo=ci[0], hi=ci[1], digits=1, games=len(b),
                                                          says=says)
    return out


def fresh_deep_numbers(few: pd.DataFrame, many: pd.DataFrame) -> dict[str, Number]:
    """fresh_deep's numbers, the same games at TABLE_DEALS and at all deals: the share in which greedy has the
    lowest accuracy and the largest total loss (FRESH_DEEP_COUNT), `fresh_deep.passed` (FRESH_RULE at every
    count at all deals), each half of it, the games in which the table is sure a heuristic seat lost more, each
    bot's mean seat total, and _spread_numbers."""
    out: dict[str, Number] = {}
    deals = _deep_deals(many)
    for name, frame in (("few", few), ("many", many)):
        rated = rated_at_table(frame, frame.dropna(subset=["table_loss"]), FRESH_DEEP_COUNT)
        shares = _both_shares(rated)
        o = order_table(rated)
        for (players, key), hit in o.melt(["players"], ["worst_accuracy", "largest_loss"]).groupby(
                ["players", "variable"])["value"]:
            out[f"fresh_deep.{name}.{key}.p{players}"] = share_of(int(hit.sum()), len(hit), (
                f"fresh greedy games at {players} players, {deals[name]} deals, counted `{FRESH_DEEP_COUNT}`: games "
                f"in which greedy has the {key.replace('_', ' ').replace('worst', 'lowest')}, 95% Wilson"))
        seat = rated.groupby([*GAME_KEYS, "seat"]).agg(bot=("bot", "first"), loss=("loss_points", "sum"))
        for bot, b in seat.groupby("bot"):
            m, lo, hi = mean_ci(b["loss"])
            out[f"fresh_deep.{name}.{bot}.total"] = Number(m, lo, hi, digits=1, games=len(b), says=(
                f"fresh games gone through by fresh_deep, {deals[name]} deals: {bot}'s total loss a seat and game "
                f"(counted `{FRESH_DEEP_COUNT}`: the table's losses of the decisions played on, the search's of the "
                "rest), points, 95% t"))
        for players, share in shares.items():
            n = int(frame[frame["players"] == players]["game"].nunique())
            out[f"fresh_deep.{name}.p{players}"] = share_of(round(share * n), n, (
                f"fresh greedy games at {players} players, every inaccuracy or worse played on from "
                f"{deals[name]} deals and counted `{FRESH_DEEP_COUNT}`: games in which greedy has the lowest "
                "accuracy and the largest total loss, 95% Wilson"))
        sure = _table_sure_heuristic_lost_more(frame)
        out[f"fresh_deep.{name}.sure"] = share_of(int(sure.sum()), len(sure), (
            f"fresh greedy games gone through by fresh_deep, {deals[name]} deals: games in which a heuristic seat's "
            f"total loss (`{FRESH_DEEP_COUNT}`) exceeds greedy's by more than {SURE} standard errors of the "
            "difference (the table's noise), 95% Wilson"))
        if name == "many":
            out["fresh_deep.passed"] = Number(float(bool((shares >= FRESH_RULE).all())), digits=0, games=int(
                frame.groupby(GAME_KEYS).ngroups), says=(
                f"at {deals[name]} deals the `{FRESH_DEEP_COUNT}` count orders greedy last in at least "
                f"{FRESH_RULE:.0%} of the fresh games gone through (1: yes; the noise of {TABLE_DEALS} deals "
                "explains the shortfall)"))
        out.update(_spread_numbers(frame, name, deals[name]))
    return out


def fresh_deep_lines(few: pd.DataFrame, many: pd.DataFrame) -> list[str]:
    """report.md's table of fresh_deep: by deals, the share of games ordered and each bot's seat totals' spread."""
    n = fresh_deep_numbers(few, many)
    rows = []
    for name, deals in _deep_deals(many).items():
        shares = [f"{k.rsplit('.p', 1)[1]} players: {v.value:.0%}" for k, v in n.items()
                  if k.startswith(f"fresh_deep.{name}.p")]
        sure = f"{n[f'fresh_deep.{name}.sure'].value:.0%}"
        for bot in sorted(few["bot"].unique()):
            g = {key: n[f"fresh_deep.{name}.{bot}.{key}"] for key in ("spread", "noise", "beyond")}
            rows.append([deals, "; ".join(shares), sure, bot, g["spread"].games, f"{g['spread'].value:.1f}",
                         f"{g['noise'].value:.1f}", f"{g['beyond'].value:.1f} [{g['beyond'].lo:.1f}, "
                         f"{g['beyond'].hi:.1f}]"])
    return table(["deals", "greedy last", "the table sure a heuristic seat lost more", "bot", "seats",
                  "spread of a seat's total at the table", "noise", "beyond the noise"], rows)


def small_ratios(s: pd.DataFrame) -> dict[str, Number]:
    """small_truth.csv's sample: by bot, its mean loss at the table over its mean loss by the search (the share of
    the search's smaller losses the table keeps), 95% bootstrap over the decisions (pairs resampled)."""
    out: dict[str, Number] = {}
    for bot, b in s.groupby("bot"):
        table_, search = b["table_loss"].astype(float).to_numpy(), b["loss_points"].astype(float).to_numpy()
        ratio = float(table_.mean() / search.mean())
        res = stats.bootstrap((table_, search), lambda t, r: np.mean(t) / np.mean(r), paired=True,
                              vectorized=False, n_resamples=2000, method="percentile", random_state=0)
        lo, hi = res.confidence_interval
        out[bot] = Number(ratio, float(lo), float(hi), digits=2, games=len(b), says=(
            f"{bot}'s sampled smaller losses (small_truth): the mean loss at the table over the mean by the search, "
            "95% bootstrap"))
    return out


def scaled_below_table(f: pd.DataFrame, ratios: dict[str, float]) -> pd.DataFrame:
    """`f` (fresh.csv's rows) with each decision not played on at the table counted at its search loss times its
    bot's ratio (its accuracy from that loss); the decisions played on as they are."""
    f = f.copy()
    below = f["table_loss"].isna()
    loss = f.loc[below, "loss_points"].astype(float) * f.loc[below, "bot"].map(ratios).astype(float)
    f.loc[below, "loss_points"] = loss
    f.loc[below, "accuracy"] = loss.map(accuracy_of)
    return f


#: small_truth's projections (exploratory): the ratios each bot's smaller losses are counted at -- the sample's
#: (`sampled`), and two bounds: `heuristic_0` (heuristic's all spurious, greedy's all kept), `both_0` (none kept)
SMALL_BOUNDS = {"heuristic_0": {"heuristic": 0.0, "greedy": 1.0}, "both_0": {"heuristic": 0.0, "greedy": 0.0}}


def small_frames(out: Path) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame | None] | None:
    """small_truth.csv, fresh.csv and fresh_deep's games at all their deals (None if fresh_deep has not run), if
    small_truth has run."""
    s, f = read_result(out, "small_truth.csv"), fresh_frame(out)
    if s is None or not len(s) or f is None:
        return None
    deep = fresh_deep_frames(out)
    return s, f, deep[1] if deep is not None else None


def _small_deals(many: pd.DataFrame | None) -> dict[str, int]:
    """The deals behind small_truth's projections: fresh.csv's, and fresh_deep's (if it has run)."""
    return _deep_deals(many) if many is not None else {"few": TABLE_DEALS}


def _small_ways(ratios: dict[str, Number]) -> dict[str, dict[str, float]]:
    return {**SMALL_BOUNDS, "sampled": {bot: r.value for bot, r in ratios.items()}}


def small_numbers(s: pd.DataFrame, f: pd.DataFrame, many: pd.DataFrame | None) -> dict[str, Number]:
    """small_truth's exploratory numbers: each bot's ratio (small_ratios), and the share of fresh.csv's games (the
    decisions played on counted FRESH_DEEP_COUNT from TABLE_DEALS deals; and fresh_deep's games from all of
    theirs, `many`) in which greedy has the lowest accuracy and the largest total loss when the smaller losses are
    counted at each SMALL_BOUNDS' ratios and at the sample's."""
    ratios = small_ratios(s)
    out = {f"small.ratio.{bot}": r for bot, r in ratios.items()}
    frames = {"few": f, "many": many}
    for name, deals in _small_deals(many).items():
        frame = frames[name]
        assert frame is not None
        for way, r in _small_ways(ratios).items():
            scaled = scaled_below_table(frame, r)
            shares = _both_shares(rated_at_table(scaled, scaled.dropna(subset=["table_loss"]), FRESH_DEEP_COUNT))
            for players, share in shares.items():
                n = int(frame[frame["players"] == players]["game"].nunique())
                out[f"small.{way}.{name}.p{players}"] = share_of(round(share * n), n, (
                    f"fresh greedy games at {players} players, the decisions played on from {deals} deals "
                    f"(`{FRESH_DEEP_COUNT}`), the rest at the search's loss times "
                    + ", ".join(f"{b} {v:.2f}" for b, v in sorted(r.items()))
                    + ": games in which greedy has the lowest accuracy and the largest total loss, 95% Wilson"))
    return out


def small_lines(s: pd.DataFrame, f: pd.DataFrame, many: pd.DataFrame | None) -> list[str]:
    """report.md's table of small_truth's projections: by the ratios the smaller losses count at and the deals
    behind the decisions played on, the share of games greedy is last in, by player count."""
    n = small_numbers(s, f, many)
    rows = []
    for way, r in _small_ways({bot: n[f"small.ratio.{bot}"] for bot in s["bot"].unique()}).items():
        for name, deals in _small_deals(many).items():
            keys = sorted(k for k in n if k.startswith(f"small.{way}.{name}.p"))
            rows.append([f"{way}: " + ", ".join(f"{b} {v:.2f}" for b, v in sorted(r.items())), deals,
                         "; ".join(f"{k.rsplit('.p', 1)[1]} players: {n[k].value:.0%}" for k in keys)])
    return table(["the smaller losses counted at", "deals", "greedy last"], rows)


def _search_loss(b: pd.DataFrame) -> pd.Series:
    """The search's loss of decisions played on: table_all.csv keeps it as loss_search, fresh.csv as loss_points."""
    return b["loss_search" if "loss_search" in b else "loss_points"].astype(float)


def table_all_lines(o: pd.DataFrame, t: pd.DataFrame, *fresh: tuple[str, pd.DataFrame | None]) -> list[str]:
    """report.md's table of table_all (and of the fresh games' files, name and rows, those that have run): games,
    and the share of them ordered, by count and player count; then each bot's mean loss of the decisions played
    on, by the search and the table."""
    sets = [("order.csv", o, t)]
    sets += [(name, f, f.dropna(subset=["table_loss"])) for name, f in fresh if f is not None]
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
