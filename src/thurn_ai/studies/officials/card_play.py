"""The rule card for a player (issue 53): against the heuristic's own rule at the card's held-out offers
(baseline_table, paired offer by offer, clustered by game), and as a constraint on the default mcts held to the
card's side at every offer against unrestricted mcts on the same deals (CONSTRAINT fixes its cells)."""
from __future__ import annotations

import math

import numpy as np
import pandas as pd

from ...bots.mcts import MCTS_DEFAULTS
from ...bots.spec import BotSpec
from ...game.officials import OFFICIALS
from ...stats.summary import wilson_interval
from .rulecard import CARD, SPLIT_SEED, paired_agreement, paired_play_table, play_cells, split_by_game
from .sided import sided_spec

__all__ = ["HOST_RULE", "host_choices", "baseline_table", "STANDARD", "constraint_spec", "CONSTRAINT",
           "play_constraint", "constraint_table", "numbers"]

#: the heuristic bot's own rule for each official, in words (the decisions of thurn_ai/bots/heuristic.py)
HOST_RULE = {
    "postmaster": "first, when a second card from the display (or the deck) is worth more to the plan than a "
                  "Postal Carrier or the Cartwright this turn",
    "administrator": "when the route is in danger (nothing in hand or on display extends it), or nothing on "
                     "display is useful while the route needs a card",
    "postal_carrier": "a second card, when the plan continues with a card in hand",
    "cartwright": "whenever it gains a carriage, unless that ends the game while behind",
}

#: the strong player the card constrains: today's default search, its options written out
STANDARD = BotSpec("mcts", {**MCTS_DEFAULTS, "iterations": 1000})
#: the design of the constraint's games, fixed before any (2026-11-28): games a count (the card's cell and its
#: control, the same deals; whole seat rotations) and the seed; the paired difference of wins (tie-break), 95%
#: t interval, Holm across the three counts
CONSTRAINT = {"games": {2: 400, 3: 402, 4: 400}, "seed": 5300}


def host_choices(offers: pd.DataFrame, records) -> pd.Series:
    """Whether the heuristic, asked in each offer's position (rebuilt from the kept records), uses the offer's
    official (agreement.heuristic_uses)."""
    from .agreement import heuristic_uses
    return heuristic_uses(offers, records)


def baseline_table(offers: pd.DataFrame, seed: int = SPLIT_SEED) -> pd.DataFrame:
    """Per player count and official, on the card's held-out offers (the games it was not fitted on): how often
    the card and the heuristic's own choice (column host_used) reproduce the search's (used), each with its
    Wilson interval (offers as independent), and the card's agreement minus the heuristic's on the same offers
    with a 95% interval clustered by game (d_card_host, its lo and hi)."""
    held_out = offers[~split_by_game(offers, seed)]
    out = []
    for (n, official), g in held_out.groupby(["players", "official"], sort=True):
        used = g.used.to_numpy(bool)
        card = CARD.rule(int(n), official).says_use(g.hand_size.to_numpy(), g.route_len.to_numpy()) == used
        host = g.host_used.to_numpy(bool) == used
        row = {"players": int(n), "official": official, "offers": len(g), "games": g.game.nunique()}
        for name, right in (("card", card), ("host", host)):
            k = int(np.sum(right))
            lo, hi = wilson_interval(k, len(g))
            row.update({name: k / len(g) if len(g) else math.nan, f"{name}_lo": lo, f"{name}_hi": hi})
        d, lo, hi = paired_agreement(card, host, list(zip(g.source, g.game)))
        row.update(d_card_host=d, d_card_host_lo=lo, d_card_host_hi=hi)
        out.append(row)
    table = pd.DataFrame(out)
    if table.empty:
        return table
    order = {o: i for i, o in enumerate(OFFICIALS)}
    return table.sort_values(["players", "official"], key=lambda c: c.map(order) if c.name == "official" else c,
                             kind="stable").reset_index(drop=True)


#: the findings a row of a table gives: (name, value column, interval's columns, unit, what it is)
BASELINE_NUMBERS = (
    ("card", "card", ("card_lo", "card_hi"), "share", "the card reproduces the search's choice (held-out offers)"),
    ("host", "host", ("host_lo", "host_hi"), "share", "the heuristic's own choice reproduces the search's"),
    ("card_minus_host", "d_card_host", ("d_card_host_lo", "d_card_host_hi"), "pp",
     "the card minus the heuristic, paired, clustered by game"))
CONSTRAINT_NUMBERS = (
    ("d_win", "d_win", ("d_win_lo", "d_win_hi"), "pp", "the card-held search minus the search, paired wins"),
    ("card", "card_rate", ("card_lo", "card_hi"), "share",
     "the card-held search's wins in the focus seat, 95% Wilson"),
    ("control", "control_rate", ("control_lo", "control_hi"), "share",
     "the unrestricted search's wins in that seat on the same deals, 95% Wilson"),
    ("d_score", "d_score", ("d_score_lo", "d_score_hi"), "difference",
     "the card-held search minus the search, paired final score"))


def numbers(baseline: pd.DataFrame, constraint: dict) -> dict:
    """The folder's findings as named numbers: per count and official the card's and the heuristic's agreement with the
    search and their paired difference ('baseline.<n>p.<official>.*'), and per constraint table given ({'constraint'
    or 'pilot.constraint': constraint_table's}) the card-held search's and the search's wins ('<key>.<n>p.card',
    '.control') and their paired differences in wins and score ('.d_win', '.d_score')."""
    out: dict = {}
    for r in baseline.itertuples():
        out |= _row_numbers(f"baseline.{r.players}p.{r.official}", r, BASELINE_NUMBERS)
    for name, t in constraint.items():
        for r in t.itertuples():
            out |= _row_numbers(f"{name}.{r.players}p", r, CONSTRAINT_NUMBERS)
    return out


def _row_numbers(key: str, row, spec) -> dict:
    from ..findings import Number
    return {f"{key}.{name}": Number(getattr(row, value), getattr(row, lo), getattr(row, hi), unit, 1, row.games, says)
            for name, value, (lo, hi), unit, says in spec}


def constraint_spec(standard: BotSpec = STANDARD) -> BotSpec:
    """The standard search held to the card's side at every offer."""
    return sided_spec(standard, "card")


def play_constraint(players: int, games: int, seed: int, standard: BotSpec = STANDARD, out_dir=None,
                    jobs: int = 1) -> pd.DataFrame:
    """The constrained search in one rotating seat against the standard search in the others, and the standard
    search in its seat on the same deals (rulecard.play_cells' rows, opponent = the standard)."""
    # the tournaments' files hold the specs' text
    return play_cells(str(standard), players, games, seed + 100 * players, jobs=jobs, out_dir=out_dir,
                      cards=(str(constraint_spec(standard)),), control_bot=str(standard))


def constraint_table(rows: pd.DataFrame) -> pd.DataFrame:
    """The constrained search minus the standard in its seat, per count (rulecard.paired_play_table: paired
    wins and scores with t intervals, power), with p Holm-adjusted across the counts (p_holm)."""
    from .design import holm
    table = paired_play_table(rows)
    return table.assign(p_holm=holm(table.p_win)) if len(table) else table
