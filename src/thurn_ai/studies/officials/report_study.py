"""The officials study's report, one study's section: its facts, findings, plots, the ablation (with the
paired and Holm-corrected columns), usage, what a restricted player does instead (with the forced
Postmaster), pairs of officials and the seats."""
from __future__ import annotations

import math
from pathlib import Path

from ...game.officials import OFFICIALS, STAGES
from .plan import OFFICIAL_LABEL
from ..markdown import P_FLOOR, num, p_text, pct, pp, table  # noqa: F401 (the report modules' formats)
from .tables import Analysis

#: the tournaments of the ablation and their pairing, and how its tables are read (the report's Methods)
METHOD = ("Per player count, a control tournament (all seats the full bot) and, per official, a "
          "tournament of one seat with that official forbidden against full bots, the restricted seat "
          "rotating through all seats. Paired deals: the control and every ablation of a player count play "
          "the same game seeds, so game g deals the same cards and gives each seat the same bot seed in all of "
          "them (studies played before this design have a seed per tournament: their paired columns are "
          "empty). Δ win rate = restricted bot's win rate − 1/n (exact baseline; 95% Wilson CI); paired Δ = "
          "mean over games of the restricted seat's win (or score) minus the control game's at the same "
          "seat (t interval). Δ score = restricted bot's mean score − the full bot's per-seat mean in the "
          "control (95% Welch CI), in points. Margin = restricted score − its full opponents' mean score in "
          "the same game. Usage = uses per player per game in the control games by game phase "
          "(early/middle/late = fewer than 7 / 14 / up to 20 houses placed by the leading player); the "
          "forced Postmaster (two cards drawn because the hand was empty: no choice) is counted apart. "
          "Intervals are 95% and each is uncorrected; each table's p-values are also given Holm-adjusted "
          "across that table (family-wise 5%), and game counts were fixed before the games were played. "
          "The primary estimate of each ablation cell is the paired one (Estimators, below).")


#: the declared primary estimator, hypotheses and power (issue 40: declared after the games were played, so a
#: declared convention the report keeps to, not a pre-registration); the report's Questions and Methods
ESTIMATOR = (
    "**Primary estimator** (declared for issue 40, after the games were played: a convention this report "
    "keeps to, not a pre-registration): for the ablation, the **paired** difference -- the restricted seat's "
    "win minus the control game's win at the same seat of the same deal (t interval over the paired games, "
    "its p-value Holm-adjusted across the ablation table). It removes the luck of the deal, which the "
    "exact-1/n estimator (the restricted seat's win rate minus 1/n, Wilson interval, binomial test) leaves in: "
    "for the deterministic heuristic bot the paired games correlate strongly and the paired estimate is the "
    "more precise one; for the search they barely correlate and it is somewhat wider. Every verdict in the "
    "text (\"clearly worse\", \"no change detected\") uses the primary estimate; the exact-1/n column is "
    "shown beside it as secondary. Studies without paired deals fall back to the exact-1/n estimate, and say so.")
HYPOTHESES = (
    "**Primary (confirmatory) hypothesis**: at 2 players, a bot that follows the rating at every offer of "
    "an official wins as often as its control (the same searches choosing as the search does, on the same "
    "deals): the paired rating-minus-control difference, two-sided 5%, Holm across the validation table. "
    "Everything else -- the ablation, the pairs of officials, the advice, the turn question, the seats -- is "
    "**exploratory**: each table's p-values are Holm-adjusted within that table only, and conclusions that "
    "combine tables are not corrected across them.")
POWER = (
    "**Power** is stated as the smallest effect the games detect with 80% power in a two-sided 5% test "
    "(statsmodels: TTestPower for the paired difference, NormalIndPower for a win rate against 1/n), not as "
    "an interval's half-width. P-values below 1e-10 are printed as \"< 1e-10\". The first-seat advantage "
    "is quoted from the control games only (identical bots in every seat); the all-games table mixes in the "
    "ablation games, where one seat is crippled.")


def demote(lines: list[str]) -> list[str]:
    """Markdown lines with every heading one level deeper (a section placed inside another)."""
    return ["#" + x if x.startswith("#") else x for x in lines]


def verdict(r) -> str:
    """The primary estimate's verdict (with_primary row): clearly worse / better, or no change detected."""
    return ("clearly worse" if r.d_primary_hi < 0 else "clearly better" if r.d_primary_lo > 0
            else "no change detected")


def study_facts(m: dict, a: Analysis) -> str:
    """One sentence of a study's facts: games, seeds, budget, code, wall time, game length."""
    facts = []
    if isinstance(m.get("games"), dict):
        per = ", ".join(f"{g} with {n} players" for n, g in sorted(m["games"].items()))
        facts.append(f"games per tournament (control and each official): {per}")
    elif m.get("games"):
        facts.append(f"{m['games']} games per tournament (rounded up to a multiple of the player count)")
    if m.get("seed") is not None:
        facts.append(f"base seed {m['seed']} (tournament seed = base + 100·players for the control and every "
                     "ablation: paired deals)")
    if m.get("budget"):
        facts.append(f"bot budget: {m['budget']}")
    if m.get("played_with"):
        facts.append(f"games played with commit {m['played_with']}")
    if m.get("wall_minutes"):
        # runs.json adds a run's time when the run ends: one stopped before (a session's end) is not counted
        facts.append(f"wall time of the runs that ran to their end {m['wall_minutes']:.0f} min (a run stopped "
                     "and resumed counts only its last part)")
    total = int(a.seats.groupby("players").games.first().sum()) if len(a.seats) else 0
    facts.append(f"{total} games in all")
    if "game_length" in m:
        facts.append("full bot in the control games: " + ", ".join(
            f"{n} players {t:.0f} turns each, mean score {sc:.1f}" for n, (t, sc) in sorted(m["game_length"].items())))
    return "; ".join(facts) + "."


def plot_lines(plots: list[str]) -> list[str]:
    L = []
    for img in [p for p in plots if Path(p).stem.endswith("summary")]:
        L += [f"![{Path(img).stem}]({img})", ""]
    others = [p for p in plots if not Path(p).stem.endswith("summary")]
    if others:
        L += ["Single plots: " + ", ".join(f"[{Path(p).stem}]({p})" for p in others) + ".", ""]
    return L


def ablation_lines(a: Analysis) -> list[str]:
    t = a.primary
    L = ["### Taking one official away", "",
         "Primary estimate (bold): the paired Δ win where the control dealt the same games, else Δ win rate "
         "against 1/n (see Methods, Estimators). Detectable: the smallest Δ win these games detect with 80% power "
         "(two-sided 5%; statsmodels), paired / against 1/n.", ""]
    rows = []
    for r in t.itertuples():
        paired_win = pp(getattr(r, "d_win_paired", math.nan), getattr(r, "d_win_paired_lo", math.nan),
                        getattr(r, "d_win_paired_hi", math.nan))
        unpaired = pp(r.d_win, r.d_win_lo, r.d_win_hi)
        if r.primary == "paired":
            paired_win = f"**{paired_win}**"
            p_paired = f"{p_text(r.p_primary)} ({p_text(r.p_primary_holm)})"
        else:
            unpaired = f"**{unpaired}**"
            p_paired = "–"
        paired_score = num(getattr(r, "d_score_paired", math.nan), getattr(r, "d_score_paired_lo", math.nan),
                           getattr(r, "d_score_paired_hi", math.nan))
        det = (f"{'–' if math.isnan(r.detectable_paired) else f'{100 * r.detectable_paired:.1f}'} / "
               f"{100 * r.detectable_fair:.1f} pp")
        rows.append([r.players, OFFICIAL_LABEL[r.official], r.games,
                     f"{pct(r.win_rate)} (fair {pct(1 / r.players)})", paired_win, p_paired, unpaired,
                     f"{p_text(r.p_win)} ({p_text(getattr(r, 'p_win_holm', math.nan))})",
                     det, num(r.d_score, r.d_score_lo, r.d_score_hi), paired_score,
                     num(r.margin, r.margin_lo, r.margin_hi)])
    L += table(["players", "official", "games", "restricted wins", "paired Δ win [95% CI]", "p paired (Holm)",
                "Δ win rate vs 1/n [95% CI]", "p vs 1/n (Holm)", "detectable: paired / vs 1/n",
                "Δ mean score, points [95% CI]", "paired Δ score", "margin vs opponents [95% CI]"], rows)
    return L


def usage_lines(a: Analysis) -> list[str]:
    rates = "early_share_of_turns" in a.usage
    L = ["", "### How often and when the full bot uses each official", "",
         "Uses per player per game [95% CI] in each phase; share = fraction of the player's turns on "
         "which it was used" + (" (overall, and within each phase: the phases differ in length)"
                                if rates else "") + ".", ""]
    rows = []
    for r in a.usage.itertuples():
        cells = [f"{getattr(r, ph):.2f} [{getattr(r, ph + '_lo'):.2f}, {getattr(r, ph + '_hi'):.2f}]"
                 for ph in (*STAGES, "total")]
        by_phase = [" / ".join(pct(getattr(r, f"{ph}_share_of_turns")) for ph in STAGES)] if rates else []
        rows.append([r.players, OFFICIAL_LABEL[r.official], *cells, pct(r.share_of_turns), *by_phase])
    return L + table(["players", "official", "early", "middle", "late", "total", "share of turns"]
                     + (["share early / middle / late"] if rates else []), rows)


def substitution_lines(a: Analysis) -> list[str]:
    forced = "forced_postmaster" in a.substitution
    L = ["", "What the bot does instead (uses per game of each official by the restricted seat; "
         "first row per player count = the full bot)" + ("; forced = the Postmaster an empty hand forces "
                                                         "(per game, and the share of the player's turns), which "
                                                         "no restriction can stop" if forced else "") + ":", ""]
    rows = ([r.players, OFFICIAL_LABEL[r.forbidden], *(f"{getattr(r, o):.2f}" for o in OFFICIALS)]
            + ([f"{r.forced_postmaster:.2f} ({pct(r.forced_share_of_turns)} of turns)"] if forced else [])
            for r in a.substitution.itertuples())
    return L + table(["players", "forbidden", *(OFFICIAL_LABEL[o] for o in OFFICIALS)]
                     + (["forced Postmaster"] if forced else []), rows)


def pairs_lines(a: Analysis) -> list[str]:
    if not len(a.pairs):
        return []
    holm = "win_separated_holm" in a.pairs
    L = ["", "Pairs of officials (restricted bot without A minus without B; separated = CI excludes 0"
         + ("; after Holm = the Holm-adjusted p-value across this table is below 5%" if holm else "") + "):", ""]
    rows = []
    for r in a.pairs.itertuples():
        sep = ", ".join(x for x, s in (("win", r.win_separated), ("score", r.score_separated)) if s)
        after = [", ".join(x for x, s in (("win", r.win_separated_holm), ("score", r.score_separated_holm)) if s)
                 or "no"] if holm else []
        rows.append([r.players, OFFICIAL_LABEL[r.a], OFFICIAL_LABEL[r.b], pp(r.d_win, r.d_win_lo, r.d_win_hi),
                     num(r.d_score, r.d_score_lo, r.d_score_hi), sep or "no", *after])
    return L + table(["players", "A", "B", "Δ win rate [95% CI]", "Δ score [95% CI]", "separated"]
                     + (["after Holm"] if holm else []), rows)


def seat_lines(a: Analysis, wbc_sentence) -> list[str]:
    L = ["", "### Seat advantage", "",
         "The control games (identical bots in every seat) are the measure of the seats; all games of the "
         "study (seats rotate, so each seat meets the same mix of bots) are beside them, but they mix in the "
         "ablation games, where one seat is crippled. Seat 0 is the start player.", ""]
    alls = a.seats.set_index(["players", "seat"])
    rows = []
    for r in a.seats_control.itertuples():
        c = alls.loc[(r.players, r.seat)] if (r.players, r.seat) in alls.index else None
        cc = f"{pct(c.win_rate)} [{pct(c.lo)}, {pct(c.hi)}] of {int(c.games)}" if c is not None else "–"
        rows.append([r.players, r.seat, r.games, f"{pct(r.win_rate)} [{pct(r.lo)}, {pct(r.hi)}]",
                     p_text(r.p_equal_seats), pct(r.expected), cc])
    return L + table(["players", "seat", "control: games", "control: win rate [95% CI]", "control: equal seats p",
                      "fair", "all games: win rate [95% CI] of games"], rows) + ["", wbc_sentence(control_wbc(a)), ""]


def control_wbc(a: Analysis) -> dict:
    """The WBC comparison with the study's 4-player first seat from the control games only."""
    from .tables import wbc_comparison
    return wbc_comparison(a.seats_control) if len(a.seats_control) else a.wbc


def study_detail(title: str, a: Analysis, m: dict, plots: list[str], wbc_sentence) -> list[str]:
    """The detail tables of one study (the report's appendix): links to its single plots, the ablation, usage,
    what a restricted player does instead, pairs of officials and the seats (wbc_sentence: report.py's; the
    summary plot is shown with the results)."""
    L = [f"### {title}" + (f" (`{m['bot']}`)" if m.get("bot") else ""), ""]
    L += plot_lines([p for p in plots if not Path(p).stem.endswith("summary")])
    return L + demote(ablation_lines(a) + usage_lines(a) + substitution_lines(a) + pairs_lines(a)
                      + seat_lines(a, wbc_sentence))
