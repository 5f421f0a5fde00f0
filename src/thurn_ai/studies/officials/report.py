"""The officials study's report in a paper's order (issue 40): summary, questions, methods, results, threats to
validity, appendix; the report of the choice part alone; the players' page's block. Each sentence comes from
report_text (read off the findings' tables), each table from report_tables: no number of its own."""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path

from .advice import advice_intro, advice_rules, follow_of
from .findings import StudyFindings
from .plan import StudyError
from ..markdown import pp
from .report_tables import (CHOICE_METHOD, ESTIMATOR, HYPOTHESES, METHOD, POWER, choice_detail, choice_search_lines,
                            choice_section, comparison_section, seats_section, study_detail, study_facts)
from .report_text import (ablation_brief, ablation_estimate, ablation_findings, ablation_sentences, ablation_summary,
                          agreement_sentence, choice_sentences, first_seat_text, first_seats, off_fair,
                          played_counts, player_summary, primary_rows, primary_sentence, seat_findings,
                          seat_sentences, seat_summary, take_rate_summary, usage_findings)
from .report_validation import controlled_counts, advice_follows, validation_method, validation_results
from .turn_choice import turn_section
from .validation_cells import tested_sentence


#: how the p-values and intervals are corrected (the report's Methods)
MULTIPLE = ("The primary comparison's p-values are Holm-adjusted across the validation table. Every other "
            "table's p-values are Holm-adjusted within that table only (family-wise 5% per table); conclusions "
            "that combine tables are not corrected across them, and each 95% interval is uncorrected.")


@dataclass
class Part:
    """One question of the study and the result that answers it: its text (primary: the confirmatory one),
    the result's title (what was tested) and the result's markdown lines."""
    question: str
    title: str
    lines: list[str] = field(default_factory=list)
    primary: bool = False


def question_lines(parts: list[Part], hypotheses: str) -> list[str]:
    """The Questions section: the declared primary hypothesis, then each question numbered as its result."""
    L = ["## Questions", "", hypotheses, ""]
    for i, p in enumerate(parts, 1):
        kind = "primary, confirmatory" if p.primary else "exploratory"
        L.append(f"{i}. ({kind}) {p.question} (Results {i})")
    return L + [""]


def result_lines(parts: list[Part]) -> list[str]:
    """The Results section: one numbered subsection per question."""
    L = ["## Results", ""]
    for i, p in enumerate(parts, 1):
        L += [f"### {i}. {p.title}", ""] + p.lines
        if L[-1] != "":
            L.append("")
    return L


def summary_lines(analyses: dict, main: str | None, choice: dict | None, validation, follow: str) -> list[str]:
    """The Summary: what was asked, and what was found, each with what it was tested against."""
    a = analyses.get(main)
    table = (choice or {}).get(main, {}).get("table")
    asked = ("**Asked.** What each of the four officials is worth to a bot that plays Thurn und Taxis, measured "
             "in tournaments where one seat may not use it")
    if table is not None:
        asked += ("; when using an offered official is the better move, by the search's own rating of single "
                  "decisions")
    if validation is not None and len(validation):
        asked += "; and whether a bot that follows that rating wins (the primary question)"
    L = ["## Summary", "", asked + ".", ""]
    found = [s for s in (primary_sentence(validation), ablation_summary(a, main), take_rate_summary(table),
                         seat_summary(a)) if s]
    if found:
        L.append("**Found.** " + " ".join(found))
        if follow == "player":
            L.append("")
            L.append("Following the rating loses to the same searches choosing as the search does, so the "
                     "advice at the table reports the search's own choices; these describe one bot and, in "
                     "this report, are not tested as advice (Threats to validity).")
        L.append("")
    return L


def threats_lines(f) -> list[str]:
    """Threats to validity (of a findings.StudyFindings): what the numbers assume, each said only where the
    data or the code show it."""
    analyses, choice, main, validation, studies = f.analyses, f.choice, f.main_study, f.validation, f.studies
    L = ["## Threats to validity", "", "What the numbers above assume, and where the study does not test it:", ""]
    spec = (studies.get(main) or {}).get("bot", "")
    if choice and main in choice:
        s = ("**One bot's choices.** The rating, the take rates and the advice are one search configuration's "
             f"(`{spec}`)" if spec else "**One bot's choices.** The rating, the take rates and the advice are "
             "one search's")
        if "playout=heuristic" in spec:
            s += ", whose playouts follow the heuristic bot: its choices at the offers can carry the heuristic's rules"
        s += (". The advice tabulates one factor at a time (hand size, route length, phase, player count); the "
              "factors move together in a game, so two rules can point different ways at the same offer. No bot "
              "following the advice's rules was played in this report (the rule card's study plays one: "
              "[rulecard.md](rulecard.md)).")
        s += agreement_sentence(f.agreement)
        L.append("- " + s)
        L.append("- **The search's own evaluation as the rating.** The value at the moment of choice is the "
                 "search's estimate of its own moves (a win share through the win map), not a measured outcome; "
                 "where play tested it (Results 1) following it lost.")
        L.append("- **Calibration among equal players only.** The win map turns the search's win share into a "
                 "win chance for players like the search; the rated decisions come from the control games "
                 "(identical bots in every seat), so the chance is not shown calibrated against weaker or "
                 "stronger opponents (results/learned/report.md breaks calibration down by opponent).")
        L.append("- **Rated decisions from control games only.** Positions that players unlike the search reach "
                 "are not rated; the heuristic bot's rated games are rated by the same search.")
    if validation is not None and len(validation):
        with_control = controlled_counts(validation)
        without = sorted({int(n) for n in validation.players} - set(with_control))
        s = ("**The validation's smaller searches.** The rated bot's searches at an offer are half (first "
             "rating) or a quarter (fresh) of the standard bot's budget, so it can lose for their size alone")
        if with_control:
            s += (f"; the controls remove that at {', '.join(map(str, with_control))} players only, and their "
                  "searches are as small as the rated bot's, so a budget at which the rating could be followed "
                  "is not tested")
        if without:
            s += (f". The {'- and '.join(map(str, without))}-player cells have no control: their losses to the "
                  "standard bot are not the rating's own effect")
        cells = f.validation_cells
        L.append("- " + s + "." + tested_sentence(cells, ("budget", "controls")))
        L.append("- **All four officials at once.** The rated bot follows the rating at the offers of every "
                 "official together; the validation does not say which official's rating misleads."
                 + tested_sentence(cells, ("officials",)))
    played = {name: m.get("played_with") for name, m in studies.items() if m.get("played_with")}
    if any("; then " in w or "not recorded" in w or "uncommitted" in w for w in played.values()):
        L.append("- **Code changes between runs.** The games were played with these commits (runs.json lists "
                 "them): " + "; ".join(f"{name}: {w}" for name, w in played.items())
                 + ". A change of a bot's play between commits would mix two players in "
              "one cell; `python experiments/officials_replay.py` replays saved games to check it.")
    if analyses:
        L.append("- **A player's use, not the game's.** Forbidding an official measures what this bot makes of "
                 "it: the restricted bot plays as before otherwise and does not adapt; the empty hand's forced "
                 "Postmaster is not counted as a use.")
        L.append("- **Declared after the games.** The primary estimator and hypothesis were declared after the "
                 "games were played (Methods, Estimators): a convention the report keeps to, not a "
                 "pre-registration. The exploratory tables are corrected within each table only (Methods, "
                 "Multiple comparisons).")
        L.append("- **Seats.** The WBC's players bid for their seats, so its first-seat rate is a direction to "
                 "compare with, not a test of fair seats.")
    return L + [""]


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
            L += [f"- {s}" for s in ablation_sentences(a)] + [""]
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
            L += [f"- {s}" for s in choice_sentences(main_choice["table"], follow)] + [""]
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
        L = [f"- {s}" for s in seat_sentences(a)] + [""] if a is not None else []
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
        L += study_detail(f"Detail tables of the {name} study", a, f.studies.get(name, {}), f.plots.get(name, []))
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
    primary = primary_rows(f.validation)
    if primary is not None:
        n, rows = primary
        L.append(f"- **Following the search's rating** at every offer, minus its control (same searches "
                 f"choosing as the search does, same deals; primary test, {n} players): " + ", ".join(
                     f"{r.rating} {pp(r.d_control, r.d_control_lo, r.d_control_hi)}" for r in rows.itertuples())
                 + " of win rate. Results: validation by play.")
    if a is not None and len(a.ablation):
        t = a.primary
        L.append(f"- **Never using an official**, the {main}'s seat minus {ablation_estimate(t)}, at "
                 f"{played_counts(t)} players: {ablation_brief(t)}. Results: ablation.")
        first = first_seats(a)
        off = [x for x in first if off_fair(x)]
        if first:
            said = ("; ".join(first_seat_text(x, ", fair {}") for x in off) if off
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
