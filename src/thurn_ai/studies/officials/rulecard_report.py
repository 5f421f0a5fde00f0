"""The rule card's report (results/officials/rulecard.md, a paper's order) and the card a player reads
(docs/officials-advice.md, between CARD_START and CARD_END): renderers of findings.RuleCardFindings, their
fixed prose in prose/rulecard.md."""
from __future__ import annotations

import math
from collections import Counter
from dataclasses import replace
from pathlib import Path

import pandas as pd

from ...fileio import atomic_write_text
from ...game.officials import OFFICIAL_LABEL, OFFICIALS
from ..provenance import commit
from .findings import RuleCardFindings
from ..markdown import Prose, p_text, pct, pct_ci, pp, table
from .rulecard import (
    CARD,
    CARD_RULE,
    MIN_GAIN,
    RULES,
    SPLIT_SEED,
    RuleCard,
)

__all__ = ["CARD_END", "CARD_START", "card_block", "card_lines", "card_rule_text", "report_lines", "with_card_block",
           "write"]

CARD_START = "<!-- rule-card: written by python experiments/officials_rulecard.py from results/officials/ -->"
CARD_END = "<!-- /rule-card -->"
PROSE = Prose(__package__, "prose/rulecard.md")


def _limit_text(values: dict) -> str | None:
    """'≤ 4 (2p: 5)': the most common limit, the others by player count (None: no limit anywhere)."""
    if all(v is None for v in values.values()):
        return None
    common = Counter(v for v in values.values() if v is not None).most_common(1)[0][0]
    others = [f"{n}p: {'any' if v is None else v}" for n, v in sorted(values.items()) if v != common]
    return f"≤ {common}" + (f" ({', '.join(others)})" if others else "")


def card_rule_text(official: str, card: RuleCard = CARD) -> str:
    """One official's rules at every player count in one short line (the card's wording)."""
    rules = {n: r for n, o, r in card.rules if o == official}
    if all(not r.use for r in rules.values()):
        return "never"
    if all(r.use and not r.limits for r in rules.values()):
        return "always"
    hand = _limit_text({n: r.hand_max if r.use else -1 for n, r in rules.items()})
    route = _limit_text({n: r.route_max if r.use else -1 for n, r in rules.items()})
    return " and ".join(([f"{hand} cards in hand"] if hand else []) + ([f"route {route} cities"] if route else []))


def _opponent_name(opponent: str) -> str:
    return "heuristic" if opponent == "heuristic" else "the search"


def card_lines(f: RuleCardFindings, card: RuleCard = CARD) -> list[str]:
    """The card: one line an official with its one number, and one line a opponent of the card in play
    (every line at most 120 characters: the README's limit)."""
    pooled, play = f.pooled, f.play
    rows = [[OFFICIAL_LABEL[o], card_rule_text(o, card),
             f"{pct(pooled.loc[o].share, 0)} of {int(pooled.loc[o].test_offers):,} offers"] for o in OFFICIALS]
    for opp, g in play.groupby("opponent", sort=False):
        g = g.sort_values("players")
        diffs = " / ".join(f"{100 * x.d_win:+.0f}" for x in g.itertuples())
        # each 95% interval's half-width (the search's rows are small): the README's words are few
        half = sorted({round(50 * (x.d_win_hi - x.d_win_lo)) for x in g.itertuples()})
        rows.append([f"in play, against {_opponent_name(opp)}", "card's bot minus heuristic",
                     f"{diffs} pp (±{half[0]}{f'–{half[-1]}' if len(half) > 1 else ''}) "
                     f"at {'/'.join(str(n) for n in g.players)} players"])
    return table(["official", "use it when", "the search did the same at"], rows)


def card_block(f: RuleCardFindings, code: str, report_link: str) -> list[str]:
    """The card between its markers, lines of at most 120 characters (README.md's limit)."""
    import textwrap
    # the link on a line of its own: a link broken across lines is not followed by the site's hooks
    return [CARD_START, *textwrap.wrap(PROSE("card-intro"), 118), "", *card_lines(f), "",
            *PROSE.lines("card-after", link=report_link, code=code), CARD_END]


def with_card_block(text: str, block: list[str]) -> str:
    """`text` with its card block (CARD_START ... CARD_END) replaced; ValueError when it has none."""
    start, end = text.find(CARD_START), text.find(CARD_END)
    if start < 0 or end < start:
        raise ValueError(f"no block from {CARD_START!r} to {CARD_END!r} to write the rule card into")
    return text[:start] + "\n".join(block) + text[end + len(CARD_END):]


# ------------------------------------------------------------------------------------------ the report

def _agreement_rows(agreement: pd.DataFrame, rules=None) -> list[str]:
    rows = ([r.players, OFFICIAL_LABEL[r.official], r.rule, r.fitted, pct_ci(r.share, r.lo, r.hi),
             f"{r.test_offers} ({r.test_games})",
             pp(r.d_card, r.d_card_lo, r.d_card_hi) if isinstance(r.d_card, float) and not math.isnan(r.d_card)
             else ""]
            for r in agreement.itertuples() if rules is None or r.rule in rules)
    return table(["players", "official", "rule", "fitted on the fitting half", "agrees on the other half [95% Wilson]",
                  "offers (games)", "the card minus this rule [95%, clustered by game]"], rows)


def _play_rows(play: pd.DataFrame) -> list[str]:
    rows = ([_opponent_name(r.opponent), r.players, r.games, pct_ci(r.card_rate, r.card_lo, r.card_hi),
             pct_ci(r.control_rate, r.control_lo, r.control_hi), pp(r.d_win, r.d_win_lo, r.d_win_hi),
             p_text(r.p_holm), f"{100 * r.detectable:.1f} pp",
             f"{r.d_score:+.2f} [{r.d_score_lo:+.2f}, {r.d_score_hi:+.2f}] points"] for r in play.itertuples())
    return table(["against", "players", "games", "the card's seat wins [95%]", "the heuristic's, same seat and deal",
                  "difference, paired [95% t]", "Holm p", "detectable (80% power)", "score difference, paired"], rows)


def _uses_rows(play: pd.DataFrame, label: bool = False) -> list[str]:
    rows = ([*([r.cell] if label else []), _opponent_name(r.opponent), r.players,
             *(f"{getattr(r, f'card_uses_{o}'):.2f} / {getattr(r, f'control_uses_{o}'):.2f}" for o in OFFICIALS)]
            for r in play.itertuples())
    return table([*(["cell"] if label else []), "against", "players",
                  *(f"{OFFICIAL_LABEL[o]}: card / heuristic" for o in OFFICIALS)], rows)


def _lines_section(lines: pd.DataFrame) -> list[str]:
    """One line of the card at a time (exploratory: added after the whole card's games, p unadjusted)."""
    if lines.empty:
        return []
    L = [PROSE("lines"), ""]
    L += table(["line of the card", "against", "players", "games", "difference, paired [95% t]", "p",
                "score difference"],
               ([f"{OFFICIAL_LABEL.get(o, o)} only", _opponent_name(r.opponent), r.players, r.games,
                 pp(r.d_win, r.d_win_lo, r.d_win_hi), p_text(r.p_win),
                 f"{r.d_score:+.2f} [{r.d_score_lo:+.2f}, {r.d_score_hi:+.2f}]"]
                for r, o in ((r, r.cell.removeprefix("only ")) for r in lines.itertuples())))
    L += ["", "Uses a game, each line's seat against the heuristic's:", "", *_uses_rows(lines, label=True), ""]
    return L


def _verdict(r) -> str:
    if r.p_holm < 0.05:
        return "wins more than" if r.d_win > 0 else "wins less than"
    return "no difference detected from"


def report_lines(f: RuleCardFindings) -> list[str]:
    """results/officials/rulecard.md in a paper's order: summary, questions, methods, results, threats to
    validity, the appendix (each section its own function below)."""
    agreement, play, code = f.agreement, f.play, f.code
    return [*PROSE.lines("head", code=code, played_at=f.played_at), "",
            "## Summary", "",
            *card_lines(f), "",
            *_summary_items(f), *_reading(play),
            "", "## Questions", "", *_questions(play),
            "## Methods", "", *_methods(f),
            "## Results", "", *_results(f),
            "## Threats to validity", "", *PROSE.lines("threats"), "",
            "## Appendix: every rule, every official and player count", "",
            *_agreement_rows(agreement), "", PROSE("reproduce", code=code), ""]


def _summary_items(f: RuleCardFindings) -> list[str]:
    """The summary's numbered findings: the Postmaster's rule, the other officials, the card in play against
    each opponent, what it changes, and each line of the card alone."""
    agreement, play, lines, pooled = f.agreement, f.play, f.lines, f.pooled
    pm = agreement[agreement.official == "postmaster"].set_index(["players", "rule"])
    best = f.best_single.set_index(["players", "official"])
    counts, p = sorted(agreement.players.unique()), pooled.loc["postmaster"]
    L = [PROSE("postmaster", share=pct(p.share), lo=pct(p.lo), hi=pct(p.hi), offers=int(p.test_offers),
               always=", ".join(f"{pct(pm.loc[(n, 'always')].share)}" for n in counts),
               counts=" / ".join(str(n) for n in counts),
               single=", ".join(f"{pct(best.loc[(n, 'postmaster')].share)} ({best.loc[(n, 'postmaster')].rule})"
                                for n in counts),
               table=", ".join(pct(pm.loc[(n, 'hand x route x stage table')].share) for n in counts)),
         PROSE("others", shares=", ".join(f"{pct(pooled.loc[o].share)} ({OFFICIAL_LABEL[o]})" for o in OFFICIALS[1:]))]
    k = 2
    for k, (opp, g) in enumerate(play.groupby("opponent", sort=False), 3):
        L.append(f"{k}. **In play against {_opponent_name(opp)}**, the heuristic bot following the card, minus the "
                 "heuristic bot itself in the same seat on the same deals: "
                 + "; ".join(f"{pp(r.d_win, r.d_win_lo, r.d_win_hi)} of win rate at {r.players} players "
                             f"({r.games} games, Holm p {p_text(r.p_holm)}; score {r.d_score:+.1f} points "
                             f"[{r.d_score_lo:+.1f}, {r.d_score_hi:+.1f}])" for r in g.itertuples()) + ".")
    h = play[play.opponent == "heuristic"].sort_values("players")
    if len(h):
        def uses(o):
            return ", ".join(f"{getattr(r, f'card_uses_{o}'):.1f} / {getattr(r, f'control_uses_{o}'):.1f}"
                             for r in h.itertuples())
        L.append(PROSE("changes", k=k + 1, counts=" / ".join(str(n) for n in h.players),
                       **{o: uses(o) for o in OFFICIALS}))
        k += 1
    if len(lines):
        L.append(f"{k + 1}. **One line of the card at a time** (exploratory, against heuristic): " + "; ".join(
            f"{OFFICIAL_LABEL.get(r.cell.removeprefix('only '), r.cell)} only {pp(r.d_win, r.d_win_lo, r.d_win_hi)} "
            f"at {r.players} players (p {p_text(r.p_win)})" for r in lines.itertuples()) + ".")
    return L


def _reading(play: pd.DataFrame) -> list[str]:
    """What the card's agreement and its games say, together."""
    worse = play[(play.p_holm < 0.05) & (play.d_win < 0)]
    better = play[(play.p_holm < 0.05) & (play.d_win > 0)]
    def cells(rows):
        return ", ".join(f"{r.players} players against {_opponent_name(r.opponent)}" for r in rows.itertuples())
    return ["", PROSE("reading", worse=(f"Inside the heuristic bot, following it loses win rate against the "
                                         f"heuristic's own choices ({cells(worse)}, Holm p < 0.05), so it is not "
                                         "shown to be good advice; ") if len(worse) else "",
                      better=f"following it wins more ({cells(better)}); " if len(better) else "")]


def _questions(play: pd.DataFrame) -> list[str]:
    return [*PROSE.lines("questions", comparisons=len(play)), ""]


def _methods(f: RuleCardFindings) -> list[str]:
    agreement, search, games, seeds = f.agreement, f.search, f.games, f.seeds
    card = agreement[agreement.rule == CARD_RULE]
    return [*PROSE.lines("methods", offers=int(card[["fit_offers", "test_offers"]].sum().sum()), split_seed=SPLIT_SEED,
                         min_gain=pct(MIN_GAIN, 0), compared=", ".join(name for name, _ in RULES),
                         heuristic_games=" / ".join(str(v) for v in games["heuristic"].values()),
                         heuristic_seed=seeds["heuristic"], search=search,
                         search_games=" / ".join(str(v) for v in games[search].values()), search_seed=seeds[search]),
            ""]


def _results(f: RuleCardFindings) -> list[str]:
    agreement, play, lines = f.agreement, f.play, f.lines
    n_offers = int(agreement[agreement.rule == CARD_RULE].test_offers.sum())
    return [
        "### How often the rules reproduce the search's choice (held-out half)", "",
        *_agreement_rows(agreement[agreement.official == "postmaster"]), "",
        PROSE("agreement-total", offers=n_offers,
              share=pct(int(agreement[agreement.rule == CARD_RULE].agree.sum()) / n_offers)), "",
        "### The card in play", "",
        *_play_rows(play), "",
        PROSE("uses"), "",
        *_uses_rows(play), "",
        *_lines_section(lines),
        "Against " + "; against ".join(
            f"{_opponent_name(opp)}: the card's bot {_verdict(r)} the heuristic at {r.players} players"
            for opp, g in play.groupby("opponent", sort=False) for r in g.itertuples()) + ".", "",
    ]


def write(out, root, f: RuleCardFindings, pages: bool = True) -> None:
    """results/officials/rulecard.md, and (pages) the card's block in docs/officials-advice.md, from the
    card's findings (findings.rulecard_findings; without f.code, the root's commit). The README's officials
    block is written by hand: a designer's finding and a player's rule tested in play, its numbers checked
    against the findings files (tests/project/test_quoted_numbers.py)."""
    out, root = Path(out), Path(root)
    if not f.code:
        f = replace(f, code=commit(root))
    code = f.code
    atomic_write_text(out / "rulecard.md", "\n".join(report_lines(f)))
    report = (out / "rulecard.md").resolve()
    for page in (root / "docs" / "officials-advice.md",) if pages else ():
        link = Path(_relative(report, page.parent)).as_posix()
        text = page.read_text(encoding="utf-8")
        atomic_write_text(page, with_card_block(text, card_block(f, code, link)))


def _relative(target: Path, start: Path) -> str:
    import os
    return os.path.relpath(target, start.resolve())
