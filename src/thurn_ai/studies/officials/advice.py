"""The officials study, advice a player can use at the table: for each official, how often using it is right
by hand size, route length, game phase and player count, each with its evidence, and a rule where the
evidence is clear.

    >>> t = advice_table(rows)            # rows: the rated decisions (choice.py)
    >>> advice_lines(t)                   # the report's table and rules (markdown lines)

A cell's rule is "use it" when the share "right" is above one half at the family-wise 5% level and at least
two in three, "lean to using it" when above one half but under two in three (a near coin-flip a player should
not read as a rule to follow every time), "do without" / "lean to doing without" the same way below one half,
else "no clear rule": each cell's p-value of "one half" (a game's decisions clustered,
design.clustered_proportion_p) Holm-adjusted across every cell of the table with enough decisions. The 95%
interval beside it (resampling whole games) is the cell's own, not corrected. The share comes from the
independent re-rating where the rows have it (no selection bias), else from the first rating; the table says
which. These are one search's ratings: the validation by play says whether following them wins, and the
advice follows its answer (report_validation.advice_follows): with follow="player" the share is of the
offers where the search itself used the official (its own choice, which beat the rating's in play), and
then no test is made: whether a bot's own take rate differs from one half answers no question a player has
(issue 40). The share is described instead: "use it" / "do without" at two in three or more / one in three or
less, "lean to ..." between, and "no clear rule" where the cell's 95% interval includes one half (the search
goes either way there); p and p_holm are NaN.
"""
from __future__ import annotations

import math
from pathlib import Path

import pandas as pd

from ...game.officials import OFFICIALS, STAGES
from .design import ALPHA, clustered_proportion_p, holm
from ...stats.summary import clustered_proportion_interval
from .plan import OFFICIAL_LABEL
from ..markdown import p_text, pct, pct_ci, table
from ...game.rules import PLAYER_COUNTS

__all__ = ["FACTORS", "FOLLOWS", "RULES", "advice_table", "advice_lines", "advice_intro", "advice_rules",
           "write_advice_plots", "rule_of", "follow_of"]

#: the factors a player counts: (the rated row's column, unit, the levels' spans (lo, hi), both ends included,
#: hi None for "or more"); neighbouring levels with one rule are said as one span ("2–4 cards")
COUNTED: dict[str, tuple[str, str, list[tuple[int, int | None]]]] = {
    "hand size": ("hand_size", "cards", [(0, 1), (2, 3), (4, 4), (5, None)]),
    "route length": ("route_len", "cities", [(0, 2), (3, 4), (5, None)]),
    "players": ("players", "players", [(n, n) for n in PLAYER_COUNTS])}


def span_label(lo: int, hi: int | None, unit: str) -> str:
    """A counted level's name: "0–1 cards", "4 cards", "5 or more cards"."""
    return f"{lo} or more {unit}" if hi is None else f"{lo} {unit}" if lo == hi else f"{lo}–{hi} {unit}"


def _counted(factor: str) -> list:
    column, unit, spans = COUNTED[factor]
    return [(span_label(lo, hi, unit),
             (lambda c, a, b: lambda r: r[c].between(a, math.inf if b is None else b))(column, lo, hi))
            for lo, hi in spans]


#: what a player can see at the table, and the levels the advice is given for: (label, test of a row)
FACTORS = {
    "hand size": _counted("hand size"),
    "route length": _counted("route length"),
    "phase": [(ph, (lambda p: lambda r: r.phase == p)(ph)) for ph in STAGES],
    "players": _counted("players"),
}
#: how a rule names its level: "use it with 2–3 cards in hand", "... in the early game"
WHEN = {"hand size": "with {} in hand", "route length": "with a route of {}", "phase": "in the {} game",
        "players": "at {}"}
#: fewer rated decisions, or fewer games, than this in a cell: no rule (a game's decisions go together)
MIN_DECISIONS = 30
MIN_GAMES = 10
#: a clear rule's share: "use it" needs at least this, "do without" at most 1 - this; between, the rule leans
CLEAR = 2 / 3
#: the rules that say something (the rest: "no clear rule", "too few decisions")
RULES = ("use it", "lean to using it", "lean to doing without", "do without")
#: whose choices the advice follows (report_validation.advice_follows): the rating's, shown by play to win; the
#: search's own, shown to beat the rating's; the rating's, not (yet) validated by play
FOLLOWS = ("rating", "player", "unvalidated")


def follow_of(t: pd.DataFrame | None) -> str:
    """Whose choices an advice_table() follows (one of FOLLOWS); "unvalidated" for no table or an empty one."""
    return t.follow.iloc[0] if t is not None and "follow" in t and len(t) else "unvalidated"


def enough(decisions: int, games: int) -> bool:
    """Whether a cell has the decisions and games to be tested at all."""
    return decisions >= MIN_DECISIONS and games >= MIN_GAMES


def rule_of(right: float, p_holm: float, decisions: int, games: int = MIN_GAMES) -> str:
    """The rule of a cell from its share right and its Holm-adjusted p-value of "one half"."""
    if not enough(decisions, games) or math.isnan(right) or math.isnan(p_holm):
        return "too few decisions"
    if p_holm >= ALPHA:
        return "no clear rule"
    if right > 0.5:
        return "use it" if right >= CLEAR else "lean to using it"
    return "do without" if right <= 1 - CLEAR else "lean to doing without"


def rule_of_share(right: float, lo: float, hi: float, decisions: int, games: int = MIN_GAMES) -> str:
    """The rule of a cell that describes a player's own take rate (no test): its share and 95% interval."""
    if not enough(decisions, games) or any(math.isnan(v) for v in (right, lo, hi)):
        return "too few decisions"
    if lo <= 0.5 <= hi:
        return "no clear rule"
    if right > 0.5:
        return "use it" if right >= CLEAR else "lean to using it"
    return "do without" if right <= 1 - CLEAR else "lean to doing without"


def advice_table(rows: pd.DataFrame, follow: str = "unvalidated") -> pd.DataFrame:
    """Per official, factor and level: rated decisions, games, the share where using it is right with its
    interval (95%, the cell's own, resampling whole games), its p-value of "one half" and that p
    Holm-adjusted across the tested cells of the table (p_holm), the player's take rate, and the rule
    (rule_of). `rating` says which rating the share uses. follow="player": the share (and the rule) is the
    player's take rate instead, where the validation by play found the search's own choice the better
    guide; `follow` is kept in the table."""
    if follow not in FOLLOWS:
        raise ValueError(f"follow is one of {', '.join(FOLLOWS)}, not {follow!r}")
    fresh = "d_win_fresh" in rows and rows.d_win_fresh.notna().any()
    d = "d_win_fresh" if fresh else "d_win"
    out = []
    for o in OFFICIALS:
        r = rows[(rows.official == o) & rows[d].notna()]
        if r.empty:
            continue
        for factor, levels in FACTORS.items():
            for label, test in levels:
                c = r[test(r)]
                yes = c.used.astype(bool) if follow == "player" else c[d] > 0
                per_game = yes.groupby([c.source, c.game]).agg(["sum", "size"]) if len(c) else None
                games = len(per_game) if per_game is not None else 0
                right = lo = hi = p = math.nan
                if per_game is not None:       # len(c) > 0
                    right = float(yes.mean())
                    lo, hi = clustered_proportion_interval(per_game["sum"], per_game["size"])
                # no test of a bot's own take rate
                if per_game is not None and enough(len(c), games) and follow != "player":
                    p = clustered_proportion_p(per_game["sum"], per_game["size"])
                out.append({"official": o, "factor": factor, "level": label, "decisions": len(c), "games": games,
                            "right": right, "right_lo": lo, "right_hi": hi, "p": p,
                            "taken": float(c.used.mean()) if len(c) else math.nan,
                            "rating_right": float((c[d] > 0).mean()) if len(c) else math.nan,
                            "rating": "fresh" if fresh else "first", "follow": follow})
    t = pd.DataFrame(out)
    if t.empty:
        return t
    if follow == "player":
        t["p_holm"] = math.nan
        t["rule"] = [rule_of_share(x.right, x.right_lo, x.right_hi, x.decisions, x.games) for x in t.itertuples()]
    else:
        t["p_holm"] = holm(t.p)
        t["rule"] = [rule_of(x.right, x.p_holm, x.decisions, x.games) for x in t.itertuples()]
    return t


def advice_lines(t: pd.DataFrame) -> list[str]:
    """The report's "Advice" section: how the rules are read (advice_intro), the clear rules first, then the
    whole table with its evidence (advice_rules)."""
    if t is None or t.empty:
        return []
    return ["## Advice at the table", "", advice_intro(t), ""] + advice_rules(t)


def advice_intro(t: pd.DataFrame) -> str:
    """How the advice table is read: whose choices it shows (follow_of) and when a cell makes a rule."""
    rating = t.rating.iloc[0]
    follow = follow_of(t)
    how = ("each side's chosen move re-rated by an independent search" if rating == "fresh"
           else "each side's most visited move by its own mean, which favours the side with more moves")
    test = (f"A rule where at least {MIN_DECISIONS} decisions from {MIN_GAMES} games back it and the share "
            f"differs from one half at the family-wise 5% level: each cell's p-value (decisions clustered by "
            f"game) Holm-adjusted across the {int(t.p.notna().sum())} cells tested; the 95% intervals are each "
            "cell's own, not corrected. \"Use it\" / \"do without\" where the share is at least two in three / "
            "at most one in three; between, the rule only leans (\"lean to using it\", \"lean to doing "
            "without\"): the choice goes either way often enough that it depends on more than this one factor.")
    if follow == "player":
        test = (f"A rule where at least {MIN_DECISIONS} offers from {MIN_GAMES} games back it; no test is made "
                "(whether the search's own take rate differs from one half answers no question a player has): "
                "\"use it\" / \"do without\" where the share is at least two in three / at most one in three, "
                "between it only leans (\"lean to using it\", \"lean to doing without\"), and \"no clear rule\" "
                "where the cell's 95% interval includes one half (the search goes either way). These describe "
                "one bot's behaviour; no bot following them has been played.")
        intro = ("The validation by play found the search's own choice at an offer better than the "
                 "rating's (following the rating loses to its control, the same searches without it, at the "
                 "player counts where a control was played), so the advice "
                 "follows what the search does: the share of its offers where it used each official, by what a "
                 "player sees: hand size, route length, game phase, player count (95% interval resampling "
                 f"whole games). The rating's share is beside it ({how}), for comparison only. " + test)
    else:
        intro = ("How often using each official is right, by what a player sees: hand size, route length, game "
                 "phase, player count (the share of its offers where the search rates the best move with it "
                 f"above the best without; 95% interval resampling whole games; {how}). " + test
                 + ("" if follow == "rating" else " The validation by play has not shown that following "
                    "these shares wins: read them as the rating's, not as tested advice."))
    return intro


def advice_rules(t: pd.DataFrame) -> list[str]:
    """The clear rules of the advice table, one line per official, then the whole table (markdown lines)."""
    if t is None or t.empty:
        return []
    follow = follow_of(t)
    what, column = (("used by the search", "used by the search [95% CI]") if follow == "player"
                    else ("right", "using it right [95% CI]"))
    L = []
    for o in OFFICIALS:
        clear = t[(t.official == o) & t.rule.isin(RULES)]
        if len(clear):
            L.append(f"- **{OFFICIAL_LABEL[o]}**: " + "; ".join(
                f"{x.rule} {WHEN[x.factor].format(x.level)} ({what} {pct(x.right)} [{pct(x.right_lo)}, "
                f"{pct(x.right_hi)}] of {x.decisions} offers"
                + ("" if math.isnan(x.p_holm) else f", p {p_text(x.p_holm)} Holm") + ")" for x in clear.itertuples())
                + ".")
    other = "taken by the player" if follow != "player" else "right by the rating"
    tested = follow != "player"
    rows = []
    for x in t.itertuples():
        ps = [("–" if math.isnan(x.p) else f"{p_text(x.p)} ({p_text(x.p_holm)})")] if tested else []
        beside = pct(x.taken) if follow != "player" else pct(getattr(x, "rating_right", math.nan))
        rows.append([OFFICIAL_LABEL[x.official], x.factor, x.level, x.decisions, x.games,
                     pct_ci(x.right, x.right_lo, x.right_hi), *ps, beside, x.rule])
    return L + ["", *table(["official", "factor", "level", "offers rated", "games", column]
                           + (["p (Holm)"] if tested else []) + [other, "rule"], rows), ""]


def write_advice_plots(t: pd.DataFrame, out_dir, prefix: str = "") -> list[str]:
    """One PNG per official: the share right per level of each factor (95% CI), the line at one half."""
    from .plots import pyplot, save

    if t is None or t.empty:
        return []
    plt = pyplot()
    names = []
    for o in OFFICIALS:
        g = t[t.official == o]
        if g.empty:
            continue
        fig, axes = plt.subplots(1, len(FACTORS), figsize=(3.2 * len(FACTORS), 3.2), sharey=True)
        for ax, factor in zip(axes, FACTORS):
            f = g[g.factor == factor]
            y = 100 * f.right.to_numpy()
            err = [y - 100 * f.right_lo.to_numpy(), 100 * f.right_hi.to_numpy() - y]
            ax.errorbar(range(len(f)), y, yerr=err, fmt="o", capsize=3)
            ax.axhline(50, color="grey", lw=0.8, ls=":")
            ax.set_xticks(range(len(f)), list(f.level), rotation=30, fontsize=7)
            ax.set_title(factor, fontsize=9)
        by_player = follow_of(g) == "player"
        axes[0].set_ylabel("% of offers where the search used it" if by_player
                           else "% of offers where using it is right")
        fig.suptitle(f"{OFFICIAL_LABEL[o]}: when to use it" + (" (what the search does)" if by_player else ""))
        names.append(save(plt, fig, Path(out_dir), f"{prefix}advice_{o}.png"))
    return names
