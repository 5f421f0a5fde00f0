"""The officials study's report in a paper's order (issue 40): the summary, the questions, the multiple
comparisons paragraph of the methods and the threats to validity. Each sentence is built from the same
tables as the results it summarises (no number of its own), and says what was tested against what."""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import pandas as pd

from ...game.officials import OFFICIALS
from .validation_cells import tested_sentence
from .plan import OFFICIAL_LABEL
from .rated import RATINGS
from .report_study import p_text, pct, pp, verdict

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


def weighted(rows: pd.DataFrame, column: str, weights: str) -> float:
    """The mean of `column` over rows weighted by `weights` (nan rows and weights left out)."""
    ok = rows[column].notna() & (rows[weights] > 0)
    return float((rows[column][ok] * rows[weights][ok]).sum() / rows[weights][ok].sum()) if ok.any() else math.nan


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


# ---------------------------------------------------------------------------------------------- summary

def primary_sentence(validation: pd.DataFrame | None) -> str | None:
    """The primary comparison in one sentence: each rating's paired difference to its control at the
    smallest player count where controls were played (None without a control)."""
    if validation is None or validation.empty or "d_control" not in validation:
        return None
    rows = validation[validation.rating.isin(RATINGS) & validation.d_control.notna()]
    if rows.empty:
        return None
    n = int(rows.players.min())
    said = "; ".join(f"the {r.rating} rating {pp(r.d_control, r.d_control_lo, r.d_control_hi)} of win rate "
                     f"(Holm p {p_text(r.p_control_holm)})" for r in rows[rows.players == n].itertuples())
    return (f"The primary test, at {n} players: a bot that follows the search's rating at every offer of an "
            "official, minus its control (the same searches, the side picked by the search's own move, on the "
            f"same deals; paired by deal): {said}.")


def ablation_brief(t: pd.DataFrame) -> str:
    """Each official's primary estimate (with_primary rows) where its verdict is not "no change detected",
    at every count: "Postmaster -43.5 / -32.3 / -21.0 pp (clearly worse); Administrator no change detected; ..."."""
    said = []
    for o in OFFICIALS:
        r = t[t.official == o].sort_values("players")
        if r.empty:
            continue
        moved = [x for x in r.itertuples() if verdict(x) != "no change detected"]
        if not moved:
            said.append(f"{OFFICIAL_LABEL[o]} no change detected")
        elif len(moved) == len(r) and len({verdict(x) for x in moved}) == 1:
            said.append(f"{OFFICIAL_LABEL[o]} " + " / ".join(f"{100 * x.d_primary:+.1f}" for x in moved)
                        + f" pp ({verdict(moved[0])})")
        else:
            said.append(f"{OFFICIAL_LABEL[o]} " + ", ".join(
                f"{pp(x.d_primary, x.d_primary_lo, x.d_primary_hi)} at {x.players} players ({verdict(x)})"
                for x in moved) + ", elsewhere no change detected")
    return "; ".join(said)


def ablation_estimate(t: pd.DataFrame) -> str:
    """What the ablation's primary estimate compares the restricted seat with."""
    return ("the same seat of the control game on the same deal" if (t.primary == "paired").all()
            else "the fair share 1/n where no control game dealt the same cards")


def ablation_summary(a, main: str | None) -> str | None:
    """What never using each official did to the main study's seat (the primary estimate), by verdict."""
    t = a.primary if a is not None else None
    if t is None or t.empty:
        return None
    counts = " / ".join(str(int(n)) for n in sorted(t.players.unique()))
    return (f"A seat of the {main} that never uses an official, against players who do, minus "
            f"{ablation_estimate(t)}, at {counts} players: {ablation_brief(t)}.")


def take_rate_summary(table: pd.DataFrame | None) -> str | None:
    """How often the search took each official when it was on offer (the choice table, all phases)."""
    if table is None or table.empty:
        return None
    rates = []
    for o in OFFICIALS:
        allp = table[(table.official == o) & (table.phase == "all")]
        if len(allp) and allp.rated.sum() > 0:
            rates.append(f"the {OFFICIAL_LABEL[o]} at {pct(weighted(allp, 'used', 'rated'))}")
    if not rates:
        return None
    return ("At the offers of its rated games the search took " + ", ".join(rates) + " of them: a description "
            "of one bot's choices, not a test of them.")


def seat_summary(a) -> str | None:
    """The first seat in the control games: where its interval leaves the fair share, and where not."""
    if a is None or not len(a.seats_control):
        return None
    first = a.seats_control[a.seats_control.seat == 0].sort_values("players")
    off = [x for x in first.itertuples() if x.lo > x.expected or x.hi < x.expected]
    fair = [str(x.players) for x in first.itertuples() if not (x.lo > x.expected or x.hi < x.expected)]
    s = "Among identical bots (control games) the first seat won "
    s += "; ".join(f"{pct(x.win_rate)} [{pct(x.lo)}, {pct(x.hi)}] of {x.games} games at {x.players} players "
                   f"(fair {pct(x.expected)})" for x in off) if off else "its fair share at every count"
    if off and fair:
        s += f"; at {' and '.join(fair)} players its interval includes the fair share"
    return s + "."


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


# ---------------------------------------------------------------------------------------------- threats

def agreement_sentence(agreement: pd.DataFrame | None) -> str:
    """' At the offers its played choice equals the heuristic bot's at ...' (agreement.md), or ''."""
    if agreement is None or agreement.empty or "choice" not in agreement:
        return ""
    every = agreement[(agreement.choice == "played") & agreement.players.astype(str).eq("all")]
    if every.empty:
        return ""
    parts = [f"{OFFICIAL_LABEL[r.official]} {100 * r.agreement:.1f}%"
             + (f" (κ {r.kappa:.2f})" if pd.notna(r.kappa) else "") for r in every.itertuples()
             if r.official in OFFICIAL_LABEL]
    return (" Measured: at the offers of its rated games the search's own choice is the heuristic bot's choice "
            "in the same position at " + ", ".join(parts) + " of the offers ([agreement.md](agreement.md)).")


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
        from .report_validation import _controlled_counts
        with_control = _controlled_counts(validation)
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
