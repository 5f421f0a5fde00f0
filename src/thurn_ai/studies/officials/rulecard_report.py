"""The rule card's report (results/officials/rulecard.md, in a paper's order: summary, questions, methods,
results, threats to validity, appendix) and the card itself, the short table a player reads at the table
(README.md and docs/officials-advice.md, between CARD_START and CARD_END), both written from the saved
tables: the held-out agreement (rulecard.agreement_table) and the paired games (rulecard.paired_play_table),
read once into findings.RuleCardFindings (its pooled agreement, the best single rules, Holm), which this module
only formats.
"""
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
from ..markdown import p_text, pct, pct_ci, pp, table
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
    intro = ("Cards in hand count the first card drawn; \"did the same\": at offers of games the card was not "
             "fitted on; \"in play\": the win rate of the heuristic bot following the card minus the heuristic's "
             "own, same seat and deals.")
    # the link on a line of its own: a link broken across lines is not followed by the site's hooks
    after = ["It describes the search's choices, not shown to be good advice (in play it lost); "
             "intervals, assumptions:",
             f"[the card's report]({report_link}) (commit `{code}`)."]
    return [CARD_START, *textwrap.wrap(intro, 118), "", *card_lines(f), "", *after, CARD_END]


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
    L = ["**One line of the card at a time** (exploratory: added after the whole card's games against "
         "heuristic had been played, before any of these; the heuristic's own choices for the other "
         "officials; the same deals and control as the whole card; p-values not adjusted):", ""]
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
    return ["# The officials' rule card: fitted on half the games, checked on the other half, tested in play", "",
            f"Built at commit `{code}` by `python experiments/officials_rulecard.py` from "
            "`results/officials/search_choices.parquet` (the officials study's offers) and the games it plays "
            f"(`rulecard_games.parquet`, played at commit `{f.played_at}`: `rulecard_runs.json`); tables: "
            "`rulecard_agreement.csv`, `rulecard_play.csv`.", "",
            "## Summary", "",
            *card_lines(f), "",
            *_summary_items(f), *_reading(play),
            "", "## Questions", "", *_questions(play),
            "## Methods", "", *_methods(f),
            "## Results", "", *_results(f),
            "## Threats to validity", "", *THREATS,
            "## Appendix: every rule, every official and player count", "",
            *_agreement_rows(agreement), "",
            f"Reproduce: `python experiments/officials_rulecard.py` (fit, play, report; `--part fit|play|report`). "
            f"Commit of this report: `{code}`.", ""]


def _summary_items(f: RuleCardFindings) -> list[str]:
    """The summary's numbered findings: the Postmaster's rule, the other officials, the card in play against
    each opponent, what it changes, and each line of the card alone."""
    agreement, play, lines, pooled = f.agreement, f.play, f.lines, f.pooled
    pm = agreement[agreement.official == "postmaster"].set_index(["players", "rule"])
    best = f.best_single.set_index(["players", "official"])
    L = [
        f"1. **Postmaster.** The card's joint rule (cards in hand after the first draw, and route length) "
        f"reproduces the search's choice at {pct(pooled.loc['postmaster'].share)} "
        f"[{pct(pooled.loc['postmaster'].lo)}, {pct(pooled.loc['postmaster'].hi)}] of "
        f"{int(pooled.loc['postmaster'].test_offers):,} held-out Postmaster offers; always taking it, "
        + ", ".join(f"{pct(pm.loc[(n, 'always')].share)}" for n in sorted(agreement.players.unique()))
        + " at " + " / ".join(str(n) for n in sorted(agreement.players.unique())) + " players; the best "
        "single factor, " + ", ".join(f"{pct(best.loc[(n, 'postmaster')].share)} ({best.loc[(n, 'postmaster')].rule})"
                                       for n in sorted(agreement.players.unique()))
        + "; the full hand × route × stage table (no card: some 90 cells), "
        + ", ".join(pct(pm.loc[(n, 'hand x route x stage table')].share) for n in sorted(agreement.players.unique()))
        + ". Two factors are about as far as these three features go.",
        "2. **The other officials** need no factor: never the Administrator, always the Postal Carrier and the "
        "Cartwright reproduce the search at "
        + ", ".join(f"{pct(pooled.loc[o].share)} ({OFFICIAL_LABEL[o]})" for o in OFFICIALS[1:])
        + " of held-out offers; no rule with a limit did better by the fit's margin.",
    ]
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
        L.append(f"{k + 1}. **What the card changes** (uses a game against heuristic players, the card's seat / "
                 f"the heuristic's, at {' / '.join(str(n) for n in h.players)} players): Postal Carrier "
                 f"{uses('postal_carrier')}; Cartwright {uses('cartwright')} (one official a turn: a second card "
                 f"played forgoes the turn's Cartwright); Postmaster {uses('postmaster')}; Administrator "
                 f"{uses('administrator')}.")
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
    return ["", "**Reading.** The card reproduces what the search does at most offers; that is a description of "
            "one bot, and agreement is not strength. "
            + (("Inside the heuristic bot, following it loses win rate against the heuristic's own choices ("
                + ", ".join(f"{r.players} players against {_opponent_name(r.opponent)}" for r in worse.itertuples())
                + ", Holm p < 0.05), so it is not shown to be good advice; ") if len(worse) else "")
            + (("following it wins more (" + ", ".join(f"{r.players} players against {_opponent_name(r.opponent)}"
                                                      for r in better.itertuples()) + "); ") if len(better) else "")
            + "where no difference was detected, the detectable difference is given in the results."]


def _questions(play: pd.DataFrame) -> list[str]:
    return [
        "1. *Exploratory.* How often do rules a player can read at the table (cards in hand, route length, "
        "game stage) reproduce the search's choice at an offer of an official, on games the rules were not "
        "fitted on, and how much does a joint rule add to a single factor and to always/never?",
        "2. *Confirmatory (the game counts, seeds, opponents and estimator fixed in "
        "`experiments/officials_rulecard.py` and committed before any game was played; the search's 3- and "
        "4-player cells were cut from 120 to 60 games while the heuristic's were being played, before any "
        "game against the search).* Does a bot that "
        "follows the card win as often as the bot it is built on (`heuristic`), in the same seat on the same "
        "deals, against `heuristic` players and against the search? Primary estimator: the paired difference "
        "of wins (card − heuristic, one pair a deal), 95% t interval, two-sided paired t test, Holm across "
        f"the {len(play)} comparisons.", "",
    ]


def _methods(f: RuleCardFindings) -> list[str]:
    agreement, search, games, seeds = f.agreement, f.search, f.games, f.seeds
    return [
        "- **Offers.** The officials study's search (`mcts(select=puct,prior=0.8,c=1.0,reward=mixed,"
        "playout=heuristic,horizon=3,eval=learned,iterations=1000)` with the hand-set prior) in self-play, "
        "100 games at each of 2, 3 and 4 players; every decision at which an official could be used, "
        f"{int(agreement[agreement.rule == CARD_RULE][['fit_offers', 'test_offers']].sum().sum()):,} in all. "
        "The search's choice is the move it played (`used`), not the study's rating (which lost in play).",
        "- **What a rule sees**: the cards in hand (at a Postmaster offer, the first card drawn is already in "
        "the hand: the Postmaster is the second draw), the cities in the route, and the stage (early / "
        "middle / late: the leading player has placed under a third, under two thirds, or more of the "
        "houses). Player counts are fitted apart.",
        f"- **Split**: by game, half the games of each player count (rounded down) to fit, the rest to "
        f"check, drawn by numpy's generator with seed {SPLIT_SEED}; every offer of a game is on one side.",
        "- **The card's rule** (per player count and official): \"do it with at most H cards in hand and a "
        "route of at most R cities\", either limit optional, or always, or never; the rule that agrees with "
        "the search at the most fitting offers, where a limit more must add at least "
        f"{pct(MIN_GAIN, 0)} of the fitting offers (a line must carry its weight); equal rules: the looser "
        "limits. The bot's card (`rulecard.CARD`) is this fit; a test fits it again from the committed data.",
        "- **Compared** (each fitted on the same half the same way): " + ", ".join(name for name, _ in RULES)
        + ". \"By stage\" fits the card's rule in each stage; the table takes the majority choice in each cell "
        "of hand (2–7+) × route (0–5+) × stage, falling back to the card's rule in a cell the fitting half "
        "lacks.",
        "- **Agreement** on the held-out half: the share of offers where the rule makes the search's choice, "
        "with a 95% Wilson interval (it treats offers as independent; offers of one game are not). The "
        "card minus another rule on the same offers is paired, with a 95% interval clustered by game "
        "(statsmodels OLS on a constant, cluster-robust covariance).",
        "- **The `rulecard` bot**: the `heuristic` bot (unchanged: its fingerprint is pinned) except at an "
        "offer of an official, where the card picks the side (do it or not) and the heuristic's planner picks "
        "the move on that side: the heuristic's own move when it is on that side, else the planner's best "
        "second draw, second card, or move without the official.",
        f"- **Games**: two tournaments per opponent and player count on the same seed (the same deals, "
        f"numbers and seats): `rulecard` in one rotating seat and the opponent in the others, and `heuristic` "
        f"in its place. Opponents: `heuristic` ({' / '.join(str(v) for v in games['heuristic'].values())} "
        f"games a cell at 2 / 3 / 4 players, seeds {seeds['heuristic']} + players) and the study's search at "
        f"300 iterations a move instead of its 1000 (the CPU budget), `{search}` "
        f"({' / '.join(str(v) for v in games[search].values())} games a cell, seeds {seeds[search]} + "
        "players). One process. A win is the rules' tie-break winner (as elsewhere in the officials study). "
        "Power is the smallest paired difference the games detect with 80% power (statsmodels TTestPower, "
        "from the differences' spread).", "",
    ]


def _results(f: RuleCardFindings) -> list[str]:
    agreement, play, lines = f.agreement, f.play, f.lines
    n_offers = int(agreement[agreement.rule == CARD_RULE].test_offers.sum())
    return [
        "### How often the rules reproduce the search's choice (held-out half)", "",
        *_agreement_rows(agreement[agreement.official == "postmaster"]), "",
        f"Over the {n_offers:,} held-out offers of all four officials and player counts the card agrees with the "
        f"search at {pct(int(agreement[agreement.rule == CARD_RULE].agree.sum()) / n_offers)}. The other "
        "officials' rows are in the appendix.", "",
        "### The card in play", "",
        *_play_rows(play), "",
        "Uses of each official a game, the card's seat against the heuristic's in the same seat (the "
        "card never takes the Administrator; the heuristic takes it when nothing in hand or on display "
        "extends its route):", "",
        *_uses_rows(play), "",
        *_lines_section(lines),
        "Against " + "; against ".join(
            f"{_opponent_name(opp)}: the card's bot {_verdict(r)} the heuristic at {r.players} players"
            for opp, g in play.groupby("opponent", sort=False) for r in g.itertuples()) + ".", "",
    ]


#: the rule card's threats to validity
THREATS = [
    "- **The search is the measuring instrument.** The card reproduces one bot's choices; that bot is "
    "not known to choose well, and at the offers it largely follows the heuristic's own rules (its PUCT "
    "prior is a compiled port of them: it matches the heuristic at 99.99% of Administrator offers, 91% "
    "of Postal Carrier and 83% of Postmaster offers, research review 4). Agreement is not strength: "
    "the play cells test strength, and only against these two opponents.",
    "- **What the play cells test** is the card's *official choices* inside the heuristic bot (the rest "
    "of its play is the heuristic's), against the heuristic's own official choices. A person who plays "
    "otherwise may gain or lose differently. \"Never the Administrator\" drops the heuristic's "
    "route-in-danger rule (nothing in hand or on display extends the route): the play cells include that "
    "change; it is not tested alone.",
    "- **Budget.** The games against the search use 300 iterations a move, not the 1000 of the offers the "
    "card was fitted on; the card was not refitted to that search.",
    "- **Population.** The offers come from the search's self-play: the states it reaches (hand size is "
    "partly the result of its earlier Postmaster choices). Humans reach other states; the card was not "
    "checked on human games.",
    "- **Dependence.** Offers of one game share a deal and a player: the Wilson intervals are too narrow "
    "by the design effect; the paired card-minus-rule intervals are clustered by game. The split itself "
    "is by game.",
    "- **Selection on the checking half.** The card's form (two limits, a 1-point margin) was chosen "
    "after looking at tables of the whole data (the study's advice tables, the review's); only the "
    "thresholds were fitted on the fitting half alone. The summary's \"best single factor\" is picked on "
    "the held-out half, which flatters it, not the card.",
    "- **Multiplicity.** The play comparisons are Holm-adjusted among themselves; the agreement table is "
    "descriptive (no tests).", "",
]


def write(out, root, f: RuleCardFindings, pages: bool = True) -> None:
    """results/officials/rulecard.md, and (pages) the card's block in README.md and docs/officials-advice.md,
    from the card's findings (findings.rulecard_findings; without f.code, the root's commit)."""
    out, root = Path(out), Path(root)
    if not f.code:
        f = replace(f, code=commit(root))
    code = f.code
    atomic_write_text(out / "rulecard.md", "\n".join(report_lines(f)))
    report = (out / "rulecard.md").resolve()
    for page in (root / "README.md", root / "docs" / "officials-advice.md") if pages else ():
        link = Path(_relative(report, page.parent)).as_posix()
        text = page.read_text(encoding="utf-8")
        atomic_write_text(page, with_card_block(text, card_block(f, code, link)))


def _relative(target: Path, start: Path) -> str:
    import os
    return os.path.relpath(target, start.resolve())
