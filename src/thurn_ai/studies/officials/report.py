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
from .report_tables import (PROSE, choice_detail, choice_search_lines,
                            choice_section, comparison_section, seats_section, study_detail, study_facts)
from .report_text import (ablation_brief, ablation_estimate, ablation_findings, ablation_sentences, ablation_summary,
                          agreement_sentence, choice_sentences, first_seat_text, first_seats, off_fair,
                          played_counts, player_summary, primary_rows, primary_sentence, seat_findings,
                          seat_sentences, seat_summary, take_rate_summary, usage_findings)
from .report_validation import controlled_counts, advice_follows, validation_method, validation_results
from .turn_choice import turn_section
from .validation_cells import tested_sentence


@dataclass
class Part:
    """One question of the study and the result that answers it: its text (primary: the confirmatory one),
    the result's title (what was tested) and the result's markdown lines."""
    question: str
    title: str
    lines: list[str] = field(default_factory=list)
    primary: bool = False

    @classmethod
    def of(cls, key: str, lines: list[str], primary: bool = False) -> Part:
        """The part whose question and title are prose/report.md's q-<key> and t-<key>."""
        return cls(PROSE(f"q-{key}"), PROSE(f"t-{key}"), lines, primary)


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
    asked = PROSE("asked") + (PROSE("asked-choice") if table is not None else "")
    if validation is not None and len(validation):
        asked += PROSE("asked-validation")
    L = ["## Summary", "", asked + ".", ""]
    found = [s for s in (primary_sentence(validation), ablation_summary(a, main), take_rate_summary(table),
                         seat_summary(a)) if s]
    if found:
        L.append("**Found.** " + " ".join(found))
        if follow == "player":
            L += ["", PROSE("found-player")]
        L.append("")
    return L


def threats_lines(f) -> list[str]:
    """Threats to validity (of a findings.StudyFindings): what the numbers assume, each said only where the
    data or the code show it."""
    analyses, choice, main, validation, studies = f.analyses, f.choice, f.main_study, f.validation, f.studies
    L = ["## Threats to validity", "", PROSE("threats-intro"), ""]
    spec = (studies.get(main) or {}).get("bot", "")
    if choice and main in choice:
        s = ("**One bot's choices.** The rating, the take rates and the advice are one search configuration's "
             f"(`{spec}`)" if spec else "**One bot's choices.** The rating, the take rates and the advice are "
             "one search's")
        if "playout=heuristic" in spec:
            s += ", whose playouts follow the heuristic bot: its choices at the offers can carry the heuristic's rules"
        L += ["- " + s + PROSE("threat-one-bot") + agreement_sentence(f.agreement), *PROSE.lines("threats-rating")]
    if validation is not None and len(validation):
        with_control = controlled_counts(validation)
        without = sorted({int(n) for n in validation.players} - set(with_control))
        s = PROSE("threat-budget")
        if with_control:
            s += (f"; the controls remove that at {', '.join(map(str, with_control))} players only, and their "
                  "searches are as small as the rated bot's, so a budget at which the rating could be followed "
                  "is not tested")
        if without:
            s += (f". The {'- and '.join(map(str, without))}-player cells have no control: their losses to the "
                  "standard bot are not the rating's own effect")
        cells = f.validation_cells
        L.append("- " + s + "." + tested_sentence(cells, ("budget", "controls")))
        L.append(PROSE("threat-all-four") + tested_sentence(cells, ("officials",)))
    played = {name: m.get("played_with") for name, m in studies.items() if m.get("played_with")}
    if any("; then " in w or "not recorded" in w or "uncommitted" in w for w in played.values()):
        L.append(PROSE("threat-code", played="; ".join(f"{name}: {w}" for name, w in played.items())))
    if analyses:
        L += PROSE.lines("threats-ablation")
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
        parts.append(Part.of("validation", validation_results(v, choice, main) + ([since, ""] if since else []),
                             primary=True))
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
        parts.append(Part.of("ablation", L + [""]))
    if choice:
        L = []
        if main in choice:
            L += [f"- {s}" for s in choice_sentences(main_choice["table"], follow)] + [""]
        for c in choice.values():
            L += [f"![{Path(img).stem}]({img})" for img in c.get("plots", [])]
        parts.append(Part.of("choice", L + ["", "The tables per bot: Appendix."]))
    if advice is not None and len(advice):
        parts.append(Part.of("advice-player" if follow == "player" else "advice-rating",
                             advice_rules(advice) + [f"![{Path(img).stem}]({img})"
                                                     for img in main_choice.get("advice_plots", [])]))
    if f.turns is not None:
        body = _body(turn_section(f.turns, follow))
        if body:
            parts.append(Part.of("turns", body))
    names = list(f.compare) or list(analyses)
    if comparison is not None:
        body = _body(comparison_section(comparison, names, f.comparison_plots))
        if body:
            parts.append(Part.of("comparison", _per_study(analyses, usage_findings) + body))
    if analyses:
        L = [f"- {s}" for s in seat_sentences(a)] + [""] if a is not None else []
        L += _per_study(analyses, seat_findings)
        if seats is not None and len(analyses) > 1:
            wbc = (a if a is not None else list(analyses.values())[-1]).wbc
            L += _body(seats_section(seats, list(analyses), wbc))
        parts.append(Part.of("seats", L))
    return parts


def methods_lines(f: StudyFindings, follow: str) -> list[str]:
    """The Methods section: the bots and budgets, the tournaments and their pairing, the ratings, the
    validation by play and its controls, the advice, the estimators, power and multiple comparisons."""
    choice = f.choice
    L = ["## Methods", "", "### Bots and budgets", ""]
    for name, a in f.analyses.items():
        m = f.studies.get(name, {})
        L.append(f"- **{name}**" + (f" (`{m['bot']}`)" if m.get("bot") else "") + f": {study_facts(m, a)}")
    L += ["", "### Tournaments and their pairing (the ablation)", "", PROSE("method"), ""]
    if f.notes:
        L += [f"- {note}" for note in f.notes] + [""]
    if choice:
        L += ["### The ratings: value at the moment of choice", "", PROSE("choice-method"), ""]
        for name, c in choice.items():
            L += [f"**{name}**: " + " ".join(choice_search_lines(c)), ""]
    v = f.validation
    if v is not None and len(v):
        L += ["### Validation by play and its controls", "", validation_method(v), ""]
    advice = (choice or {}).get(f.main_study, {}).get("advice")
    if advice is not None and len(advice):
        L += ["### The advice at the table", "", advice_intro(advice), ""]
    L += ["### Estimators", "", PROSE("estimator"), "", "### Power", "", PROSE("power"), "",
          "### Multiple comparisons", "", PROSE("multiple"), ""]
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
    """The markdown report of the study's findings in a paper's order: summary, questions, methods, results, threats to
    validity, appendix (issue 40)."""
    if not f.analyses:
        raise StudyError("no study results to report")
    main = f.main_study if f.main_study in f.analyses else list(f.analyses)[-1]
    f = replace(f, main_study=main)
    advice = (f.choice or {}).get(main, {}).get("advice")
    follow = follow_of(advice) if advice is not None else advice_follows(f.validation)
    parts = _parts(f)
    L = report_head(f)
    L += summary_lines(f.analyses, main, f.choice, f.validation, follow)
    L += question_lines(parts, PROSE("hypotheses"))
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
    """The players' page's short summary of the study (markdown lines, between README_START and README_END): a few
    headline results, each with what it was tested against, and where the report says more (the numbers and tests are
    the report's; the rule card above the block is the rule card study's)."""
    main = f.main_study
    a, c = f.analyses.get(main), (f.choice or {}).get(main, {})
    if a is None and c.get("advice") is None:
        return []
    L = [README_START, "", PROSE("readme-head", commit=f.commit or "?"), ""]
    primary = primary_rows(f.validation)
    if primary is not None:
        n, rows = primary
        L.append(PROSE("readme-primary", n=n, said=", ".join(
            f"{r.rating} {pp(r.d_control, r.d_control_lo, r.d_control_hi)}" for r in rows.itertuples())))
    if a is not None and len(a.ablation):
        t = a.primary
        L.append(PROSE("readme-ablation", main=main, estimate=ablation_estimate(t), counts=played_counts(t),
                       brief=ablation_brief(t)))
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
