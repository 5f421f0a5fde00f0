"""The officials study, its report: the findings as sentences, the markdown report and the terminal text."""
from __future__ import annotations

import math
from pathlib import Path

import pandas as pd

from .officials import OFFICIALS, PHASES
from .officials_study_plan import CONTROL, OFFICIAL_LABEL, StudyError
from .officials_study_tables import Analysis


def pct(x) -> str:
    return "–" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{100 * x:.1f}%"


def pp(x, lo, hi) -> str:
    """A difference of proportions in percentage points with its CI."""
    return f"{100 * x:+.1f} pp [{100 * lo:+.1f}, {100 * hi:+.1f}]"


def num(x, lo, hi, digits=2) -> str:
    return f"{x:+.{digits}f} [{lo:+.{digits}f}, {hi:+.{digits}f}]"


def findings(a: Analysis) -> list[str]:
    """Plain sentences: what forbidding each official does (where the CI excludes 0 and where it does not),
    which pairs of officials the data separate, how often each is used, and the seat advantage."""
    out = []
    for n, g in a.ablation.groupby("players"):
        worst = g.sort_values("d_win").iloc[0]
        costs = [OFFICIAL_LABEL[r.official] for r in g.itertuples() if r.d_win_hi < 0]
        gains = [OFFICIAL_LABEL[r.official] for r in g.itertuples() if r.d_win_lo > 0]
        unclear = [OFFICIAL_LABEL[r.official] for r in g.itertuples() if r.d_win_lo <= 0 <= r.d_win_hi]
        s = (f"{n} players: taking away the {OFFICIAL_LABEL[worst.official]} costs the most "
             f"({pp(worst.d_win, worst.d_win_lo, worst.d_win_hi)} win rate, "
             f"{num(worst.d_score, worst.d_score_lo, worst.d_score_hi)} points). "
             f"Win rate lower without: {', '.join(costs) or 'none'}")
        if gains:
            s += f"; higher without (this bot uses it to its harm): {', '.join(gains)}"
        s += f"; no change the CIs can detect: {', '.join(unclear) or 'none'}."
        out.append(s)
        p = a.pairs[a.pairs.players == n]
        if len(p):
            sep = [f"{OFFICIAL_LABEL[r.a]} vs {OFFICIAL_LABEL[r.b]}" for r in p.itertuples()
                   if r.win_separated or r.score_separated]
            not_sep = [f"{OFFICIAL_LABEL[r.a]} vs {OFFICIAL_LABEL[r.b]}" for r in p.itertuples()
                       if not (r.win_separated or r.score_separated)]
            out.append(f"{n} players: pairs the CIs separate (win rate or score): {', '.join(sep) or 'none'}; "
                       f"not separated: {', '.join(not_sep) or 'none'}.")
    for n, g in a.usage.groupby("players"):
        g = g.sort_values("total", ascending=False)
        if "early_share_of_turns" in g:
            uses = ", ".join(f"{OFFICIAL_LABEL[r.official]} {r.total:.1f} (on {pct(r.share_of_turns)} of its turns: "
                             + " / ".join(pct(getattr(r, f"{ph}_share_of_turns")) for ph in PHASES) + ")"
                             for r in g.itertuples())
            out.append(f"{n} players: the full bot's uses per game (share of its turns early / middle / late): "
                       f"{uses}.")
        else:
            uses = ", ".join(f"{OFFICIAL_LABEL[r.official]} {r.total:.1f} ({pct(r.share_of_turns)} of turns)"
                             for r in g.itertuples())
            out.append(f"{n} players: the full bot's uses per game: {uses}.")
    for n, g in a.seats.groupby("players"):
        f = g[g.seat == 1].iloc[0]
        verdict = ("above" if f.lo > f.expected else "below" if f.hi < f.expected else "not distinguishable from")
        off_fair = [f"seat {r.seat} {pct(r.win_rate)} [{pct(r.lo)}, {pct(r.hi)}]" for r in g.itertuples()
                    if r.lo > r.expected or r.hi < r.expected]
        out.append(f"{n} players: the first seat wins {pct(f.win_rate)} [{pct(f.lo)}, {pct(f.hi)}] of "
                   f"{int(f.games)} games, {verdict} the fair {pct(f.expected)}; seats whose interval excludes "
                   f"the fair share: {', '.join(off_fair) or 'none'} (all seats equal: chi-square "
                   f"p = {f.p_equal_seats:.3g}).")
    return out


def build_report(analyses: dict[str, Analysis], meta: dict | None = None) -> str:
    """The markdown report: one section per study (bot), the WBC comparison, the command and the seeds.

    meta: {'title', 'command', 'commit', 'notes': [sentences], 'studies': {name: {'bot', 'games', 'seed',
    'budget', 'wall_minutes', 'game_length': {players: (turns per player, mean score)}}},
    'plots': {name: [relative paths]}} (every key optional; see control_facts for game_length)."""
    if not analyses:
        raise StudyError("no study results to report")
    meta = meta or {}
    smeta = meta.get("studies", {})
    L = [f"# {meta.get('title', 'What the officials are worth')}", ""]
    if meta.get("command"):
        L += ["Reproduce with:", "", "```bash", meta["command"], "```", ""]
    if meta.get("commit"):
        L += [f"Report built at commit `{meta['commit']}`.", ""]
    L += ["Method: per player count, a control tournament (all seats the full bot) and, per official, a "
          "tournament of one seat with that official forbidden against full bots, the restricted seat "
          "rotating through all seats. Δ win rate = restricted bot's win rate − 1/n (exact baseline; 95% "
          "Wilson CI). Δ score = restricted bot's mean score − the full bot's per-seat mean in the control "
          "(95% Welch CI). Margin = restricted score − its full opponents' mean score in the same game. "
          "Usage = uses per player per game in the control games (the forced Postmaster of an empty hand "
          "is not counted), by game phase (early/middle/late = fewer than 7 / 14 / up to 20 houses placed "
          "by the leading player). All intervals are 95% and not corrected for the number of comparisons.",
          ""]
    if meta.get("notes"):
        L += [f"- {note}" for note in meta["notes"]] + [""]
    for name, a in analyses.items():
        m = smeta.get(name, {})
        L += [f"## {name}" + (f": `{m['bot']}`" if m.get("bot") else ""), ""]
        facts = []
        if isinstance(m.get("games"), dict):
            per = ", ".join(f"{g} with {n} players" for n, g in sorted(m["games"].items()))
            facts.append(f"games per tournament (control and each official): {per}")
        elif m.get("games"):
            facts.append(f"{m['games']} games per tournament (rounded up to a multiple of the player count)")
        if m.get("seed") is not None:
            facts.append(f"base seed {m['seed']} (tournament seed = base + 100·players + k, k = 0 control, "
                         f"1–4 Postmaster, Administrator, Postal Carrier, Cartwright)")
        if m.get("budget"):
            facts.append(f"bot budget: {m['budget']}")
        if m.get("played_with"):
            facts.append(f"games played with commit {m['played_with']}")
        if m.get("wall_minutes"):
            facts.append(f"wall time {m['wall_minutes']:.0f} min")
        total = int(a.seats.groupby("players").games.first().sum()) if len(a.seats) else 0
        facts.append(f"{total} games in all")
        if "game_length" in m:
            facts.append("full bot in the control games: " + ", ".join(
                f"{n} players {t:.0f} turns each, mean score {sc:.1f}" for n, (t, sc) in sorted(m["game_length"].items())))
        L += ["; ".join(facts) + ".", ""]
        L += ["### Findings", ""] + [f"- {s}" for s in findings(a)] + [""]
        plots = meta.get("plots", {}).get(name, [])
        for img in [p for p in plots if Path(p).stem.endswith("summary")]:
            L += [f"![{Path(img).stem}]({img})", ""]
        others = [p for p in plots if not Path(p).stem.endswith("summary")]
        if others:
            L += ["Single plots: " + ", ".join(f"[{Path(p).stem}]({p})" for p in others) + ".", ""]
        L += ["### Taking one official away", "",
              "| players | official | games | restricted wins | Δ win rate [95% CI] | Δ mean score [95% CI] "
              "| margin vs opponents [95% CI] |", "|---|---|---|---|---|---|---|"]
        for r in a.ablation.itertuples():
            L.append(f"| {r.players} | {OFFICIAL_LABEL[r.official]} | {r.games} | {pct(r.win_rate)} "
                     f"(fair {pct(1 / r.players)}) | {pp(r.d_win, r.d_win_lo, r.d_win_hi)} "
                     f"| {num(r.d_score, r.d_score_lo, r.d_score_hi)} | {num(r.margin, r.margin_lo, r.margin_hi)} |")
        rates = "early_share_of_turns" in a.usage
        L += ["", "### How often and when the full bot uses each official", "",
              "Uses per player per game [95% CI] in each phase; share = fraction of the player's turns on "
              "which it was used" + (" (overall, and within each phase: the phases differ in length)"
                                     if rates else "") + ".", "",
              "| players | official | early | middle | late | total | share of turns |"
              + (" share early / middle / late |" if rates else ""),
              "|---|---|---|---|---|---|---|" + ("---|" if rates else "")]
        for r in a.usage.itertuples():
            cells = [f"{getattr(r, ph):.2f} [{getattr(r, ph + '_lo'):.2f}, {getattr(r, ph + '_hi'):.2f}]"
                     for ph in (*PHASES, "total")]
            by_phase = (" " + " / ".join(pct(getattr(r, f"{ph}_share_of_turns")) for ph in PHASES) + " |"
                        if rates else "")
            L.append(f"| {r.players} | {OFFICIAL_LABEL[r.official]} | " + " | ".join(cells)
                     + f" | {pct(r.share_of_turns)} |" + by_phase)
        L += ["", "What the bot does instead (uses per game of each official by the restricted seat; "
              "first row per player count = the full bot):", "",
              "| players | forbidden | " + " | ".join(OFFICIAL_LABEL[o] for o in OFFICIALS) + " |",
              "|---|---|" + "---|" * len(OFFICIALS)]
        for r in a.substitution.itertuples():
            L.append(f"| {r.players} | {OFFICIAL_LABEL[r.forbidden]} | "
                     + " | ".join(f"{getattr(r, o):.2f}" for o in OFFICIALS) + " |")
        if len(a.pairs):
            L += ["", "Pairs of officials (restricted bot without A minus without B; separated = CI excludes 0):",
                  "", "| players | A | B | Δ win rate [95% CI] | Δ score [95% CI] | separated |",
                  "|---|---|---|---|---|---|"]
            for r in a.pairs.itertuples():
                sep = ", ".join(x for x, s in (("win", r.win_separated), ("score", r.score_separated)) if s)
                L.append(f"| {r.players} | {OFFICIAL_LABEL[r.a]} | {OFFICIAL_LABEL[r.b]} | "
                         f"{pp(r.d_win, r.d_win_lo, r.d_win_hi)} | {num(r.d_score, r.d_score_lo, r.d_score_hi)} "
                         f"| {sep or 'no'} |")
        L += ["", "### Seat advantage", "",
              "All games of this study (seats rotate, so each seat meets the same mix of bots); the last "
              "column uses only the control games (identical bots).", "",
              "| players | seat | games | wins | win rate [95% CI] | fair | equal seats p | control only |",
              "|---|---|---|---|---|---|---|---|"]
        ctrl = a.seats_control.set_index(["players", "seat"])
        for r in a.seats.itertuples():
            c = ctrl.loc[(r.players, r.seat)] if (r.players, r.seat) in ctrl.index else None
            cc = f"{pct(c.win_rate)} [{pct(c.lo)}, {pct(c.hi)}] of {int(c.games)}" if c is not None else "–"
            L.append(f"| {r.players} | {r.seat} | {r.games} | {r.wins} | {pct(r.win_rate)} [{pct(r.lo)}, "
                     f"{pct(r.hi)}] | {pct(r.expected)} | {r.p_equal_seats:.3g} | {cc} |")
        L += ["", wbc_sentence(a.wbc), ""]
    return "\n".join(L).rstrip() + "\n"


def control_facts(df: pd.DataFrame) -> dict:
    """{players: (turns per player, mean score)} of the full bot in the control games: how the bot plays."""
    c = df[df.official == CONTROL]
    return {int(n): (float((g.turns / n).mean()), float(g.score.mean())) for n, g in c.groupby("players")}


def wbc_sentence(w: dict) -> str:
    lo, hi = w["wbc_ci"]
    s = (f"**Against the real games:** at the World Boardgaming Championships the first seat won "
         f"{w['wbc_wins']} of {w['wbc_games']} 4-player games up to 2013 = {pct(w['wbc_rate'])} "
         f"[{pct(lo)}, {pct(hi)}] (binomial p = {w['wbc_p_vs_quarter']:.3g} against 25%), and "
         f"{pct(w['wbc_2024_rate'])} in 2024.")
    if "ours_rate" in w:
        olo, ohi = w["ours_ci"]
        dlo, dhi = w["diff_ci"]
        same = "consistent with" if dlo <= 0 <= dhi else "different from"
        s += (f" Here the first seat won {w['ours_wins']} of {w['ours_games']} 4-player games = "
              f"{pct(w['ours_rate'])} [{pct(olo)}, {pct(ohi)}]; difference to the WBC "
              f"{pp(w['ours_rate'] - w['wbc_rate'], dlo, dhi)}, i.e. {same} the WBC rate.")
    return s


def format_text(a: Analysis) -> str:
    """A compact plain-text summary for the terminal."""
    L = ["officials: Δ win rate and Δ mean score when forbidden (95% CI)"]
    for r in a.ablation.itertuples():
        L.append(f"  {r.players}p {OFFICIAL_LABEL[r.official]:<15} games {r.games:>5}  win {pct(r.win_rate):>6}  "
                 f"Δwin {pp(r.d_win, r.d_win_lo, r.d_win_hi):<26} Δscore {num(r.d_score, r.d_score_lo, r.d_score_hi)}")
    L.append("usage by the full bot (uses per player per game: early / middle / late = total)")
    for r in a.usage.itertuples():
        L.append(f"  {r.players}p {OFFICIAL_LABEL[r.official]:<15} {r.early:5.2f} / {r.middle:5.2f} / "
                 f"{r.late:5.2f} = {r.total:5.2f}  ({pct(r.share_of_turns)} of turns)")
    L.append("seat advantage (all games; seat 1 starts)")
    for n, g in a.seats.groupby("players"):
        cells = "  ".join(f"seat {r.seat} {pct(r.win_rate)} [{pct(r.lo)}, {pct(r.hi)}]" for r in g.itertuples())
        L.append(f"  {n}p ({int(g.games.iloc[0])} games, equal-seats p {g.p_equal_seats.iloc[0]:.3g}): {cells}")
    L.append(wbc_sentence(a.wbc).replace("**", ""))
    L += ["findings:"] + [f"  - {s}" for s in findings(a)]
    return "\n".join(L)
