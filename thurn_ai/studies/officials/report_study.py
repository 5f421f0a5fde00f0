"""The officials study's report, one study's section: its facts, findings, plots, the ablation (with the
paired and Holm-corrected columns), usage, what a restricted player does instead (with the forced
Postmaster), pairs of officials and the seats."""
from __future__ import annotations

import math
from pathlib import Path

from ...game.officials import OFFICIALS, STAGES
from .plan import OFFICIAL_LABEL
from .tables import Analysis

METHOD = ("Method: per player count, a control tournament (all seats the full bot) and, per official, a "
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
          "across that table (family-wise 5%), and game counts were fixed before the games were played.")


def pct(x) -> str:
    return "–" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{100 * x:.1f}%"


def pp(x, lo, hi) -> str:
    """A difference of proportions in percentage points with its CI."""
    if any(v is None or (isinstance(v, float) and math.isnan(v)) for v in (x, lo, hi)):
        return "–"
    return f"{100 * x:+.1f} pp [{100 * lo:+.1f}, {100 * hi:+.1f}]"


def num(x, lo, hi, digits=2) -> str:
    if any(v is None or (isinstance(v, float) and math.isnan(v)) for v in (x, lo, hi)):
        return "–"
    return f"{x:+.{digits}f} [{lo:+.{digits}f}, {hi:+.{digits}f}]"


def p_text(p) -> str:
    """A p-value, two digits; one below what a float holds (it underflows to 0) as "< 1e-300"."""
    if p is None or (isinstance(p, float) and math.isnan(p)):
        return "–"
    return "< 1e-300" if p < 1e-300 else f"{p:.2g}"


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
    L = ["### Taking one official away", "",
         "| players | official | games | restricted wins | Δ win rate [95% CI] | paired Δ win [95% CI] | p (Holm) "
         "| Δ mean score, points [95% CI] | paired Δ score | margin vs opponents [95% CI] |",
         "|---|---|---|---|---|---|---|---|---|---|"]
    for r in a.ablation.itertuples():
        paired_win = pp(getattr(r, "d_win_paired", math.nan), getattr(r, "d_win_paired_lo", math.nan),
                        getattr(r, "d_win_paired_hi", math.nan))
        paired_score = num(getattr(r, "d_score_paired", math.nan), getattr(r, "d_score_paired_lo", math.nan),
                           getattr(r, "d_score_paired_hi", math.nan))
        L.append(f"| {r.players} | {OFFICIAL_LABEL[r.official]} | {r.games} | {pct(r.win_rate)} "
                 f"(fair {pct(1 / r.players)}) | {pp(r.d_win, r.d_win_lo, r.d_win_hi)} | {paired_win} "
                 f"| {p_text(r.p_win)} ({p_text(getattr(r, 'p_win_holm', math.nan))}) "
                 f"| {num(r.d_score, r.d_score_lo, r.d_score_hi)} | {paired_score} "
                 f"| {num(r.margin, r.margin_lo, r.margin_hi)} |")
    return L


def usage_lines(a: Analysis) -> list[str]:
    rates = "early_share_of_turns" in a.usage
    L = ["", "### How often and when the full bot uses each official", "",
         "Uses per player per game [95% CI] in each phase; share = fraction of the player's turns on "
         "which it was used" + (" (overall, and within each phase: the phases differ in length)"
                                if rates else "") + ".", "",
         "| players | official | early | middle | late | total | share of turns |"
         + (" share early / middle / late |" if rates else ""),
         "|---|---|---|---|---|---|---|" + ("---|" if rates else "")]
    for r in a.usage.itertuples():
        cells = [f"{getattr(r, ph):.2f} [{getattr(r, ph + '_lo'):.2f}, {getattr(r, ph + '_hi'):.2f}]"
                 for ph in (*STAGES, "total")]
        by_phase = (" " + " / ".join(pct(getattr(r, f"{ph}_share_of_turns")) for ph in STAGES) + " |"
                    if rates else "")
        L.append(f"| {r.players} | {OFFICIAL_LABEL[r.official]} | " + " | ".join(cells)
                 + f" | {pct(r.share_of_turns)} |" + by_phase)
    return L


def substitution_lines(a: Analysis) -> list[str]:
    forced = "forced_postmaster" in a.substitution
    L = ["", "What the bot does instead (uses per game of each official by the restricted seat; "
         "first row per player count = the full bot)" + ("; forced = the Postmaster an empty hand forces "
                                                         "(per game, and the share of the player's turns), which "
                                                         "no restriction can stop" if forced else "") + ":", "",
         "| players | forbidden | " + " | ".join(OFFICIAL_LABEL[o] for o in OFFICIALS) + " |"
         + (" forced Postmaster |" if forced else ""),
         "|---|---|" + "---|" * len(OFFICIALS) + ("---|" if forced else "")]
    for r in a.substitution.itertuples():
        L.append(f"| {r.players} | {OFFICIAL_LABEL[r.forbidden]} | "
                 + " | ".join(f"{getattr(r, o):.2f}" for o in OFFICIALS) + " |"
                 + (f" {r.forced_postmaster:.2f} ({pct(r.forced_share_of_turns)} of turns) |" if forced else ""))
    return L


def pairs_lines(a: Analysis) -> list[str]:
    if not len(a.pairs):
        return []
    holm = "win_separated_holm" in a.pairs
    L = ["", "Pairs of officials (restricted bot without A minus without B; separated = CI excludes 0"
         + ("; after Holm = the Holm-adjusted p-value across this table is below 5%" if holm else "") + "):", "",
         "| players | A | B | Δ win rate [95% CI] | Δ score [95% CI] | separated |" + (" after Holm |" if holm else ""),
         "|---|---|---|---|---|---|" + ("---|" if holm else "")]
    for r in a.pairs.itertuples():
        sep = ", ".join(x for x, s in (("win", r.win_separated), ("score", r.score_separated)) if s)
        after = (", ".join(x for x, s in (("win", r.win_separated_holm), ("score", r.score_separated_holm)) if s)
                 if holm else "")
        L.append(f"| {r.players} | {OFFICIAL_LABEL[r.a]} | {OFFICIAL_LABEL[r.b]} | "
                 f"{pp(r.d_win, r.d_win_lo, r.d_win_hi)} | {num(r.d_score, r.d_score_lo, r.d_score_hi)} "
                 f"| {sep or 'no'} |" + (f" {after or 'no'} |" if holm else ""))
    return L


def seat_lines(a: Analysis, wbc_sentence) -> list[str]:
    L = ["", "### Seat advantage", "",
         "All games of this study (seats rotate, so each seat meets the same mix of bots); the last "
         "column uses only the control games (identical bots). Seat 0 is the start player.", "",
         "| players | seat | games | wins | win rate [95% CI] | fair | equal seats p | control only |",
         "|---|---|---|---|---|---|---|---|"]
    ctrl = a.seats_control.set_index(["players", "seat"])
    for r in a.seats.itertuples():
        c = ctrl.loc[(r.players, r.seat)] if (r.players, r.seat) in ctrl.index else None
        cc = f"{pct(c.win_rate)} [{pct(c.lo)}, {pct(c.hi)}] of {int(c.games)}" if c is not None else "–"
        L.append(f"| {r.players} | {r.seat} | {r.games} | {r.wins} | {pct(r.win_rate)} [{pct(r.lo)}, "
                 f"{pct(r.hi)}] | {pct(r.expected)} | {r.p_equal_seats:.3g} | {cc} |")
    return L + ["", wbc_sentence(a.wbc), ""]


def study_section(name: str, a: Analysis, m: dict, plots: list[str], findings, wbc_sentence) -> list[str]:
    """The markdown section of one study (findings and wbc_sentence: report.py's sentence makers)."""
    L = [f"## {name}" + (f": `{m['bot']}`" if m.get("bot") else ""), "", study_facts(m, a), ""]
    L += ["### Findings", ""] + [f"- {s}" for s in findings(a)] + [""]
    L += plot_lines(plots)
    return L + ablation_lines(a) + usage_lines(a) + substitution_lines(a) + pairs_lines(a) + seat_lines(a, wbc_sentence)
