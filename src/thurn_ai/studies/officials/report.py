"""The officials study, its report: the findings as sentences, the markdown report and the terminal text."""
from __future__ import annotations

import math
from dataclasses import replace
from pathlib import Path

import pandas as pd

from .turn_choice import turn_section
from ...game.officials import OFFICIALS, STAGES
from .plan import CONTROL, OFFICIAL_LABEL, StudyError
from .rated import RATINGS
from .choice import SMALL_SAMPLE
from .tables import Analysis
from ..markdown import num, p_text, pct, pp, table
from .findings import StudyFindings
from .report_study import ESTIMATOR, HYPOTHESES, METHOD, POWER, control_wbc, study_detail, study_facts, verdict
from .report_validation import advice_follows, validation_method, validation_results
from .advice import advice_intro, advice_rules, follow_of
from .report_paper import (MULTIPLE, Part, ablation_brief, ablation_estimate, question_lines, result_lines,
                           summary_lines, threats_lines)
from .report_paper import weighted as _weighted
from .validation_cells import tested_sentence
from .report_choice import (CHOICE_METHOD, choice_detail, choice_search_lines, choice_section,  # noqa: F401
                            choice_table_lines, format_choice_text)


def findings(a: Analysis) -> list[str]:
    """Plain sentences: what forbidding each official does (where the CI excludes 0 and where it does not),
    which pairs of officials the data separate, how often each is used, and the seat advantage."""
    return ablation_findings(a) + usage_findings(a) + seat_findings(a)


def ablation_findings(a: Analysis) -> list[str]:
    """Per player count: what forbidding each official does (primary estimate) and which pairs of officials
    the data separate."""
    out = []
    for n, g in a.primary.groupby("players"):
        worst = g.sort_values("d_primary").iloc[0]
        how = "paired" if (g.primary == "paired").all() else "against 1/n" if (g.primary != "paired").all() \
            else "paired where the control dealt the same games, else against 1/n"
        costs = [OFFICIAL_LABEL[r.official] for r in g.itertuples() if r.d_primary_hi < 0]
        gains = [OFFICIAL_LABEL[r.official] for r in g.itertuples() if r.d_primary_lo > 0]
        unclear = [r for r in g.itertuples() if r.d_primary_lo <= 0 <= r.d_primary_hi]
        s = (f"{n} players (primary estimate: {how}): taking away the {OFFICIAL_LABEL[worst.official]} costs the "
             f"most ({pp(worst.d_primary, worst.d_primary_lo, worst.d_primary_hi)} win rate, "
             f"{num(worst.d_score, worst.d_score_lo, worst.d_score_hi)} points). "
             f"Win rate lower without: {', '.join(costs) or 'none'}")
        if gains:
            s += f"; higher without (this bot uses it to its harm): {', '.join(gains)}"
        s += "; no change detected: " + (", ".join(
            f"{OFFICIAL_LABEL[r.official]} ({pp(r.d_primary, r.d_primary_lo, r.d_primary_hi)}; {_power_text(r)})"
            for r in unclear) or "none") + "."
        out.append(s)
        p = a.pairs[a.pairs.players == n]
        if len(p):
            sep = [f"{OFFICIAL_LABEL[r.a]} vs {OFFICIAL_LABEL[r.b]}" for r in p.itertuples()
                   if r.win_separated or r.score_separated]
            not_sep = [f"{OFFICIAL_LABEL[r.a]} vs {OFFICIAL_LABEL[r.b]}" for r in p.itertuples()
                       if not (r.win_separated or r.score_separated)]
            out.append(f"{n} players: pairs the CIs separate (win rate or score): {', '.join(sep) or 'none'}; "
                       f"not separated: {', '.join(not_sep) or 'none'}.")
    return out


def usage_findings(a: Analysis) -> list[str]:
    """Per player count: how often the full bot uses each official, and in which phase."""
    out = []
    for n, g in a.usage.groupby("players"):
        g = g.sort_values("total", ascending=False)
        if "early_share_of_turns" in g:
            uses = ", ".join(f"{OFFICIAL_LABEL[r.official]} {r.total:.1f} (on {pct(r.share_of_turns)} of its turns: "
                             + " / ".join(pct(getattr(r, f"{ph}_share_of_turns")) for ph in STAGES) + ")"
                             for r in g.itertuples())
            out.append(f"{n} players: the full bot's uses per game (share of its turns early / middle / late): "
                       f"{uses}.")
        else:
            uses = ", ".join(f"{OFFICIAL_LABEL[r.official]} {r.total:.1f} ({pct(r.share_of_turns)} of turns)"
                             for r in g.itertuples())
            out.append(f"{n} players: the full bot's uses per game: {uses}.")
    return out


def seat_findings(a: Analysis) -> list[str]:
    """Per player count: the first seat in the control games, and the seats off the fair share."""
    out = []
    for n, g in a.seats_control.groupby("players"):
        f = g[g.seat == 0].iloc[0]
        where = ("above" if f.lo > f.expected else "below" if f.hi < f.expected else "not distinguishable from")
        off_fair = [f"seat {r.seat} {pct(r.win_rate)} [{pct(r.lo)}, {pct(r.hi)}]" for r in g.itertuples()
                    if r.lo > r.expected or r.hi < r.expected]
        out.append(f"{n} players, control games only (identical bots): the first seat wins {pct(f.win_rate)} "
                   f"[{pct(f.lo)}, {pct(f.hi)}] of {int(f.games)} games, {where} the fair {pct(f.expected)}; "
                   f"seats whose interval excludes the fair share: {', '.join(off_fair) or 'none'} (all seats "
                   f"equal: chi-square p = {p_text(f.p_equal_seats)}).")
    return out


def _detectable(r) -> float:
    """The detectable effect of a with_primary row for its primary estimator."""
    return r.detectable_paired if r.primary == "paired" else r.detectable_fair


def _power_text(r) -> str:
    """What the games of a with_primary row detect with 80% power, or why no power can be given: paired
    differences that never vary (every game the same as its control's) have no spread to compute it from."""
    d = _detectable(r)
    if math.isnan(d):
        return "no power can be given: the paired differences do not vary, so there is no spread to compute it from"
    return f"the smallest effect these games detect with 80% power is {100 * d:.1f} pp"


def report_head(f: StudyFindings) -> list[str]:
    """The report's first lines: the title and the dirty-tree warning."""
    L = [f"# {f.title}", ""]
    if f.dirty:
        L += [f"> **Not a reproducible result**: built from a working tree with uncommitted changes "
              f"({f.dirty}), so no commit holds the code that made it.", ""]
    return L


def reproduction_lines(f: StudyFindings) -> list[str]:
    """How to rebuild the report, and the commit it was built at."""
    L = []
    if f.command:
        L += ["Reproduce with:", "", "```bash", f.command, "```", ""]
    if f.commit:
        L += [f"Report built at commit `{f.commit}`.", ""]
    return L


def _body(lines: list[str]) -> list[str]:
    """A section's lines without its heading (and the blank line after it)."""
    if lines and lines[0].startswith("#"):
        lines = lines[1:]
    return lines[1:] if lines and lines[0] == "" else lines


def _per_study(analyses: dict, sentences) -> list[str]:
    """Each study's sentences (sentences(a)) under its name, as bullets."""
    L = []
    for name, a in analyses.items():
        said = sentences(a)
        if said:
            L += [f"**{name}**:", ""] + [f"- {s}" for s in said] + [""]
    return L


def _parts(f: StudyFindings) -> list[Part]:
    """The study's questions, each with the result that answers it, in the report's order (the primary one
    first); a part whose data are missing is left out."""
    analyses, choice, comparison, seats = f.analyses, f.choice, f.comparison, f.seats
    main = f.main_study
    main = main if main in analyses or main in (choice or {}) else (list(analyses) or list(choice or {}))[-1]
    a = analyses.get(main)
    main_choice = (choice or {}).get(main, {})
    advice = main_choice.get("advice")
    follow = follow_of(advice)
    parts = []
    v = f.validation
    if v is not None and len(v):
        since = tested_sentence(f.validation_cells).strip()
        parts.append(Part("Does a bot that follows the search's rating at every offer of an official win as often "
                          "as its control, the same searches with the side picked by the search's own move, on "
                          "the same deals? (At the counts without a control: does it win its fair share against "
                          "the standard search?)",
                          "Following the rating in play, against its control on the same deals (validation by play)",
                          validation_results(v, choice, main)
                          + ([since, ""] if since else []), primary=True))
    if analyses:
        L = []
        if a is not None:
            L += [f"The {main} study's seat that never uses the official, against players who do:", ""]
            L += [f"- {s}" for s in _ablation_sentences(a)] + [""]
        L += ["Every bot, every count (primary estimate), and the pairs of officials the data separate:", ""]
        L += _per_study(analyses, ablation_findings)
        for name in analyses:
            L += [f"![{Path(img).stem}]({img})" for img in f.plots.get(name, [])
                  if Path(img).stem.endswith("summary")]
        parts.append(Part("What is each official worth to a player: how much less (or more) does a seat that may "
                          "not use it win, against players who do, than the same seat in the control game of "
                          "the same deal?",
                          "Never using an official, against players who do, paired with the control game of the "
                          "same deal (ablation)", L + [""]))
    if choice:
        L = []
        if main in choice:
            L += [f"- {s}" for s in _choice_sentences(main_choice["table"], follow)] + [""]
        for c in choice.values():
            L += [f"![{Path(img).stem}]({img})" for img in c.get("plots", [])]
        parts.append(Part("At an offer, does the search rate the best move that uses the official above the best "
                          "move without it, and how often?",
                          "Value at the moment of choice: the search's rating of using an offered official "
                          "against the best move without it", L + ["", "The tables per bot: Appendix."]))
    if advice is not None and len(advice):
        mine = follow == "player"
        parts.append(Part(("What does the search do at the offers, by what a player sees (hand size, route length, "
                           "phase, player count)? Descriptive: no test is made." if mine else
                           "How often is using each official right by the rating, by what a player sees (hand "
                           "size, route length, phase, player count)?"),
                          ("Advice at the table: the search's own choices at the offers, by what a player sees"
                           if mine else "Advice at the table: the rating's shares, by what a player sees"),
                          advice_rules(advice) + [f"![{Path(img).stem}]({img})"
                                                  for img in main_choice.get("advice_plots", [])]))
    if f.turns is not None:
        body = _body(turn_section(f.turns, follow))
        if body:
            parts.append(Part("Which official (or none) is worth most in a turn, held for the whole turn?",
                              "Which official this turn: one search per option for the whole turn", body))
    names = list(f.compare) or list(analyses)
    if comparison is not None:
        body = _body(comparison_section(comparison, names, f.comparison_plots))
        if body:
            parts.append(Part("How do the heuristic bot and the search use the officials, and what does the search "
                              "rate their choices worth?",
                              "Heuristic vs search: how each uses the officials, and what the search rates their "
                              "choices worth", _per_study(analyses, usage_findings) + body))
    if analyses:
        L = [f"- {s}" for s in _seat_sentences(a)] + [""] if a is not None else []
        L += _per_study(analyses, seat_findings)
        if seats is not None and len(analyses) > 1:
            wbc = (a if a is not None else list(analyses.values())[-1]).wbc
            L += _body(seats_section(seats, list(analyses), wbc))
        parts.append(Part("Does the first seat win more than its fair share among identical bots?",
                          "Seat advantage: the first seat among identical bots, against the fair share and the WBC "
                          "record", L))
    return parts


def methods_lines(f: StudyFindings, follow: str) -> list[str]:
    """The Methods section: the bots and budgets, the tournaments and their pairing, the ratings, the
    validation by play and its controls, the advice, the estimators, power and multiple comparisons."""
    choice = f.choice
    L = ["## Methods", "", "### Bots and budgets", ""]
    for name, a in f.analyses.items():
        m = f.studies.get(name, {})
        L.append(f"- **{name}**" + (f" (`{m['bot']}`)" if m.get("bot") else "") + f": {study_facts(m, a)}")
    L += ["", "### Tournaments and their pairing (the ablation)", "", METHOD, ""]
    if f.notes:
        L += [f"- {note}" for note in f.notes] + [""]
    if choice:
        L += ["### The ratings: value at the moment of choice", "", CHOICE_METHOD, ""]
        for name, c in choice.items():
            L += [f"**{name}**: " + " ".join(choice_search_lines(c)), ""]
    v = f.validation
    if v is not None and len(v):
        L += ["### Validation by play and its controls", "", validation_method(v), ""]
    advice = (choice or {}).get(f.main_study, {}).get("advice")
    if advice is not None and len(advice):
        L += ["### The advice at the table", "", advice_intro(advice), ""]
    L += ["### Estimators", "", ESTIMATOR, "", "### Power", "", POWER, "", "### Multiple comparisons", "",
          MULTIPLE, ""]
    return L


def appendix_lines(f: StudyFindings) -> list[str]:
    """The Appendix: each study's detail tables, the value at the moment of choice per study, how to
    reproduce the report and its commit."""
    L = ["## Appendix", ""]
    for name, a in f.analyses.items():
        L += study_detail(f"Detail tables of the {name} study", a, f.studies.get(name, {}), f.plots.get(name, []),
                          wbc_sentence)
    if f.choice:
        L += ["### Value at the moment of choice, per bot", ""] + choice_detail(f.choice)
    L += ["### Reproduction", ""] + (reproduction_lines(f) or ["–", ""])
    return L


def build_report(f: StudyFindings) -> str:
    """The markdown report of the study's findings in a paper's order: summary, questions, methods, results,
    threats to validity, appendix (issue 40). Results: the validation by play (the primary question, with
    f.validation); the ablation of every study; the value at the moment of choice and the advice (f.choice);
    the turn question (f.turns); the two players side by side (f.comparison); the seats (side by side with
    f.seats). StudyError when there is no ablation to report."""
    if not f.analyses:
        raise StudyError("no study results to report")
    main = f.main_study if f.main_study in f.analyses else list(f.analyses)[-1]
    f = replace(f, main_study=main)
    advice = (f.choice or {}).get(main, {}).get("advice")
    follow = follow_of(advice) if advice is not None else advice_follows(f.validation)
    parts = _parts(f)
    L = report_head(f)
    L += summary_lines(f.analyses, main, f.choice, f.validation, follow)
    L += question_lines(parts, HYPOTHESES)
    L += methods_lines(f, follow)
    L += result_lines(parts)
    L += threats_lines(f)
    L += appendix_lines(f)
    return "\n".join(L).rstrip() + "\n"


def control_facts(df: pd.DataFrame) -> dict:
    """{players: (turns per player, mean score)} of the full bot in the control games: how the bot plays."""
    c = df[df.official == CONTROL]
    return {int(n): (float((g.turns / n).mean()), float(g.score.mean())) for n, g in c.groupby("players")}


def wbc_sentence(w: dict) -> str:
    lo, hi = w["wbc_ci"]
    s = (f"**Against the real games:** at the World Boardgaming Championships the first seat won "
         f"{w['wbc_wins']} of {w['wbc_games']} 4-player games up to 2013 = {pct(w['wbc_rate'])} "
         f"[{pct(lo)}, {pct(hi)}] (binomial p = {p_text(w['wbc_p_vs_quarter'])} against 25%), and "
         f"{pct(w['wbc_2024_rate'])} in 2024. The WBC's players bid for their seats, so a seat's rate there "
         f"includes what was paid for it: the comparison is a direction, not a test of fair seats.")
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
    L = ["officials: Δ win rate and Δ mean score when forbidden (95% CI); Δwin is the primary estimate the findings "
         "use: paired with the control game of the same deal where there is one, else against 1/n"]
    for r in a.primary.itertuples():
        how = "paired" if r.primary == "paired" else "vs 1/n"
        L.append(f"  {r.players}p {OFFICIAL_LABEL[r.official]:<15} games {r.games:>5}  win {pct(r.win_rate):>6}  "
                 f"Δwin {how:<6} {pp(r.d_primary, r.d_primary_lo, r.d_primary_hi):<26} "
                 f"Δscore {num(r.d_score, r.d_score_lo, r.d_score_hi)}")
    L.append("usage by the full bot (uses per player per game: early / middle / late = total)")
    for r in a.usage.itertuples():
        L.append(f"  {r.players}p {OFFICIAL_LABEL[r.official]:<15} {r.early:5.2f} / {r.middle:5.2f} / "
                 f"{r.late:5.2f} = {r.total:5.2f}  ({pct(r.share_of_turns)} of turns)")
    L.append("seat advantage (control games only; seat 0 starts)")
    for n, g in a.seats_control.groupby("players"):
        cells = "  ".join(f"seat {r.seat} {pct(r.win_rate)} [{pct(r.lo)}, {pct(r.hi)}]" for r in g.itertuples())
        L.append(f"  {n}p ({int(g.games.iloc[0])} games, equal-seats p {p_text(g.p_equal_seats.iloc[0])}): {cells}")
    L.append(wbc_sentence(control_wbc(a)).replace("**", ""))
    L += ["findings:"] + [f"  - {s}" for s in findings(a)]
    return "\n".join(L)


# ---------------------------------------------------------------- the strong study: summary and new sections

#: a Δ win rate interval wider than this (half-width) is "too few games to tell" in the summary for players
WIDE = 0.15


def _sample_note(rated: int) -> str:
    return f" (only {rated} rated decisions: the sample is too small to rely on)" if rated < SMALL_SAMPLE else ""


def player_summary(analyses: dict, main: str | None = None, choice: dict | None = None) -> list[str]:
    """A few plain sentences for players, from the data: what never using each official costs the main
    study's player, when using it is right (value at the moment of choice), and the first seat. Says so
    where the sample is too small."""
    out: list[str] = []
    names = list(analyses) or list(choice or {})
    if not names:
        return out
    main = main if main in names else names[-1]
    a = analyses.get(main)
    if a is not None:
        out += _ablation_sentences(a)
    if choice and main in choice:
        out += _choice_sentences(choice[main]["table"], follow_of(choice[main].get("advice")))
    if a is not None:
        out += _seat_sentences(a)
    return out


def _ablation_sentences(a: Analysis) -> list[str]:
    out = []
    t = a.primary
    for o in OFFICIALS:
        r = t[t.official == o].sort_values("players")
        if r.empty:
            continue
        parts, wide = [], []
        for x in r.itertuples():
            if (x.d_primary_hi - x.d_primary_lo) / 2 > WIDE:
                wide.append(f"{x.players}")
                continue
            # the difference carries its sign, the verdict only says whether the interval excludes zero
            est = "paired with the same deals" if x.primary == "paired" else "against 1/n"
            parts.append(f"at {x.players} players it wins {pct(x.win_rate)} of its games instead of "
                         f"{pct(1 / x.players)} ({pp(x.d_primary, x.d_primary_lo, x.d_primary_hi)} {est}, "
                         f"{verdict(x)})")
        s = f"**{OFFICIAL_LABEL[o]}**: a player who never uses it, against players who do"
        s += (": " + "; ".join(parts) if parts else "")
        if wide:
            s += (f"{'; ' if parts else ': '}at {', '.join(wide)} players too few games to tell "
                  f"({int(r.games.min())}–{int(r.games.max())} a table)")
        out.append(s + ".")
    return out


def _choice_sentences(t: pd.DataFrame, follow: str | None = None) -> list[str]:
    """Per official: what using it when offered is compared with, how often it is right by each rating (the
    independent re-rating, without the first rating's selection bias, where the rows have it), and in which
    phase it is worth most, with its unit and the median beside the mean. follow="player" (the validation by
    play found the search's own choice better than the rating's: advice.advice_table): first how often the
    search itself uses it, and the rating's numbers said to be the rating's, not advice."""
    out = []
    for o in OFFICIALS:
        allp = t[(t.official == o) & (t.phase == "all")] if len(t) else t
        rated = int(allp.rated.sum()) if len(allp) else 0
        if not len(allp):
            out.append(f"**{OFFICIAL_LABEL[o]}** at the moment of choice: never on offer in the games rated.")
            continue
        unit = allp.unit.iloc[0] if "unit" in allp else "Δ evaluation"
        fresh = "fresh_rated" in allp and allp.fresh_rated.fillna(0).sum() > 0
        if follow == "player":
            s = (f"**{OFFICIAL_LABEL[o]}** when it is on offer: the search uses it at "
                 f"{pct(_weighted(allp, 'used', 'rated'))} of its offers (its choices at the offers of all four "
                 "officials together beat the rating's in play: Results, validation by play). The rating, not to be "
                 "followed, compares it with the best move without it at the same decision: using it is the "
                 "better move in "
                 f"{pct(_weighted(allp, 'right', 'rated'))} of the {rated} positions rated by the first rating")
        else:
            s = (f"**{OFFICIAL_LABEL[o]}** when it is on offer, against the best move without it at the same "
                 f"decision: using it is the better move in {pct(_weighted(allp, 'right', 'rated'))} of the "
                 f"{rated} positions the search rated by the first rating")
        if fresh:
            s += (f", {pct(_weighted(allp, 'fresh_right', 'fresh_rated'))} by the independent re-rating (no "
                  "selection bias)")
        prefix, weight = ("fresh_", "fresh_rated") if fresh else ("", "rated")
        ph = t[(t.official == o) & (t.phase != "all") & (t[weight].fillna(0) > 0)]
        if len(ph) and follow == "player":
            # play rejected the rating: its Δ by phase would read as advice, so say when the search uses it
            used = {p: _weighted(g, "used", "rated") for p, g in ph.groupby("phase")}
            s += "; the search uses it " + ", ".join(f"{pct(used[p])} in the {p} game" for p in STAGES if p in used)
        elif len(ph):
            by_phase = {p: _weighted(g, f"{prefix}d_win_mean", weight) for p, g in ph.groupby("phase")}
            top = max(by_phase, key=by_phase.__getitem__)
            median = _weighted(ph[ph.phase == top], f"{prefix}d_win_median", weight)
            said = f"{unit} {100 * by_phase[top]:+.1f} pp on average there, median {100 * median:+.1f}"
            if by_phase[top] > 0:
                s += f"; it is worth most in the {top} game ({said})"
            else:       # on average using it now is worse than keeping it for later in every phase
                s += f"; on average using it now is worse in every phase, least in the {top} game ({said})"
        out.append(s + _sample_note(rated) + ".")
    return out


def _seat_sentences(a: Analysis) -> list[str]:
    """The first seat, from the control games only (identical bots in every seat)."""
    out = []
    for n, g in a.seats_control.groupby("players"):
        f = g[g.seat == 0].iloc[0]
        if (f.hi - f.lo) / 2 > WIDE:
            out.append(f"First seat at {n} players: too few games to tell ({int(f.games)}).")
            continue
        where = "more than" if f.lo > f.expected else "less than" if f.hi < f.expected else "about"
        out.append(f"First seat at {n} players: wins {pct(f.win_rate)} [{pct(f.lo)}, {pct(f.hi)}] of "
                   f"{int(f.games)} control games (identical bots), {where} the fair {pct(f.expected)}"
                   + (" (the World Boardgaming Championships: 31.4% of 226 4-player games)" if n == 4 else "")
                   + ".")
    return out


def choice_report(f: StudyFindings) -> str:
    """A markdown report of the choice part alone (no ablation played): the summary for players, the
    command and commit, and the section "Value at the moment of choice"."""
    if not f.choice:
        raise StudyError("no choice results to report")
    L = report_head(f)
    summary = player_summary({}, f.main_study, f.choice)
    if summary:
        L += ["## Summary", ""] + [f"- {s}" for s in summary] + [""]
    L += choice_section(f.choice) + reproduction_lines(f)
    return "\n".join(L).rstrip() + "\n"


def comparison_section(comparison: pd.DataFrame, names: list[str], plots=()) -> list[str]:
    """The markdown section comparing two players of the officials (e.g. the heuristic bot and the search)."""
    if comparison is None or comparison.empty or len(names) < 2:
        return []
    a, b = names[0], names[1]
    L = [f"## {a.capitalize()} vs {b}: how each uses the officials", "",
         "Uses per game and the share of its turns on which each player used the official (early / middle / "
         "late); Δ win rate when the official is forbidden (ablation); and, at the decisions where it was on "
         "offer in each player's own games, how often it took the official, how often the search rates "
         "taking it right, how often the player agreed with the search, and the search's Δ win the player "
         "gave away per game by its choices (summed over the decisions where the search rates the other "
         "side better by more than two standard errors; a lower bound, as the player may also pick a worse "
         "move within a side; estimates of a search, not measured wins).", ""]
    for img in plots:
        L += [f"![{Path(img).stem}]({img})", ""]

    def cell(r, key, f=pct):
        v = getattr(r, key, math.nan)
        return "–" if v is None or (isinstance(v, float) and math.isnan(v)) else f(v)

    rows = []
    for r in comparison.itertuples():
        for name in (a, b):
            shares = " / ".join(cell(r, f"{name}_share_{ph}") for ph in STAGES)
            dwin = ("–" if math.isnan(getattr(r, f"{name}_d_win", math.nan)) else
                    pp(getattr(r, f"{name}_d_win"), getattr(r, f"{name}_d_win_lo"), getattr(r, f"{name}_d_win_hi")))
            rated = getattr(r, f"{name}_rated", math.nan)
            note = " (small sample)" if not math.isnan(rated) and rated < SMALL_SAMPLE else ""
            rows.append([r.players, OFFICIAL_LABEL[r.official], name, cell(r, f"{name}_uses", lambda v: f"{v:.2f}"),
                         f"{cell(r, f'{name}_share')} ({shares})", dwin,
                         cell(r, f"{name}_offered", lambda v: f"{v:.1f}"), cell(r, f"{name}_taken"),
                         cell(r, f"{name}_right") + note, cell(r, f"{name}_agree"),
                         cell(r, f"{name}_given_away", lambda v: f"{100 * v:.1f} pp")])
    return L + table(["players", "official", "player", "uses / game", "share of turns (early / middle / late)",
                      "Δ win when forbidden", "on offer / game", "taken when on offer", "search: right to take",
                      "agrees with search", "given away / game"], rows) + [""]


def seats_section(seats: pd.DataFrame, names: list[str], wbc: dict) -> list[str]:
    """The markdown section: win rate per seat of each study side by side, and the WBC record."""
    if seats is None or seats.empty:
        return []
    L = ["## Seat advantage: " + " and ".join(names), "",
         "Win rate per seat (seat 0 starts) over all games of each study, with 95% Wilson intervals; in brackets "
         "the control games alone (identical players in every seat).", ""]
    rows = []
    for r in seats.itertuples():
        cells = []
        for name in names:
            if math.isnan(getattr(r, f"{name}_all_rate", math.nan)):
                cells.append("–")
                continue
            s = (f"{pct(getattr(r, f'{name}_all_rate'))} [{pct(getattr(r, f'{name}_all_lo'))}, "
                 f"{pct(getattr(r, f'{name}_all_hi'))}] of {getattr(r, f'{name}_all_games')}")
            if not math.isnan(getattr(r, f"{name}_control_rate", math.nan)):
                s += (f" (control {pct(getattr(r, f'{name}_control_rate'))} of "
                      f"{getattr(r, f'{name}_control_games')})")
            cells.append(s)
        rows.append([r.players, r.seat, pct(r.fair), *cells])
    return L + table(["players", "seat", "fair", *names], rows) + ["", wbc_sentence(wbc), ""]


#: the block of docs/officials-advice.md (once the README's) that the study's report step writes
#: (experiments/officials.py): its first and last lines; its links are relative to docs/
README_START = "<!-- officials-advice: written by python experiments/officials.py from results/officials/ -->"
README_END = "<!-- /officials-advice -->"


def readme_block(f: StudyFindings) -> list[str]:
    """The players' page's short summary of the study (markdown lines, between README_START and README_END):
    a few headline results, each with what it was tested against, and where the report says more (the
    numbers and tests are the report's; the rule card above the block is the rule card study's). Empty when
    the main study has neither an ablation nor rated decisions."""
    main = f.main_study
    a, c = f.analyses.get(main), (f.choice or {}).get(main, {})
    if a is None and c.get("advice") is None:
        return []
    L = [README_START, "",
         f"Headline results of [the study's report](../results/officials/report.md) (commit "
         f"`{f.commit or '?'}`), each with what it was tested against; the report's Threats to validity "
         "say what they assume:", ""]
    v = f.validation
    if v is not None and len(v) and "d_control" in v:
        rows = v[v.rating.isin(RATINGS) & v.d_control.notna()]
        if len(rows):
            n = int(rows.players.min())
            L.append(f"- **Following the search's rating** at every offer, minus its control (same searches "
                     f"choosing as the search does, same deals; primary test, {n} players): " + ", ".join(
                         f"{r.rating} {pp(r.d_control, r.d_control_lo, r.d_control_hi)}"
                         for r in rows[rows.players == n].itertuples())
                     + " of win rate. Results: validation by play.")
    if a is not None and len(a.ablation):
        t = a.primary
        counts = " / ".join(str(int(n)) for n in sorted(t.players.unique()))
        L.append(f"- **Never using an official**, the {main}'s seat minus {ablation_estimate(t)}, at {counts} "
                 f"players: {ablation_brief(t)}. Results: ablation.")
        first = a.seats_control[a.seats_control.seat == 0].sort_values("players")
        off = [x for x in first.itertuples() if x.lo > x.expected or x.hi < x.expected]
        if len(first):
            said = ("; ".join(f"{pct(x.win_rate)} [{pct(x.lo)}, {pct(x.hi)}] of {x.games} games at {x.players} "
                              f"players, fair {pct(x.expected)}" for x in off) if off
                    else "its fair share within its interval at every count")
            if off and len(off) < len(first):
                said += "; elsewhere within its interval"
            L.append("- **First seat** among identical bots (control games): " + said + ". Results: seat advantage.")
    return L + ["", README_END]


def with_readme_block(readme: str, block: list[str]) -> str:
    """The README text with its officials block (README_START ... README_END) replaced by `block`; StudyError
    when the README has no such block (a hand-edited README: say where it goes rather than guess)."""
    start, end = readme.find(README_START), readme.find(README_END)
    if start < 0 or end < start:
        raise StudyError(f"the README has no block from {README_START!r} to {README_END!r} to write the "
                         "officials' advice into")
    return readme[:start] + "\n".join(block) + readme[end + len(README_END):]
