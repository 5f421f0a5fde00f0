"""Hands inferred from the opponents' moves (mcts(infer=policy); docs/search-budget.md).

The searcher keeps, per opponent and city, a weight for "a hidden card of this opponent is of this city"
(1: nothing against it). The play loop tells the bot of each opponent's move with the bot's own
observation of the position before it (Bot.inform); the compiled policy model (the hand-set PUCT prior:
the rule of thumb's softmax with most of it on the planner's move, _search.hand_evidence) says how likely
that move was had the opponent held one card of each city besides what is known of its hand. A city whose
card would have made the move less likely loses weight, tempered (STRENGTH) and never below FLOOR: the model
is not the opponent. Evidence is about the cards held then: when the opponent draws a hidden card from the
deck, its hand is one fresh card larger and the old evidence fades by the share of cards it still speaks
of (h / (h + 1) of the log-weights, h the hidden cards before the draw; none left: none kept).

The search deals each opponent's hidden cards from the pool by count x weight (_search.determinize_weighted),
so every public fact holds exactly whatever the weights are.
"""
from __future__ import annotations

import math

from .. import _search
from ..game.notation import move_kind
from .base import Observation

#: the share of a move's log-likelihood ratio believed (the model is a model of the opponent, not it)
STRENGTH = 0.5
#: the least weight a city keeps, against the most likely city's 1
FLOOR = 0.1


class HandBeliefs:
    """One seat's weights over the hidden cards of the other seats, through one game. `plan_prior` and
    `temp` are the policy model's (the search's own prior options); `strength` and `floor` as STRENGTH and
    FLOOR (experiments/infer_hands.py tries others)."""

    def __init__(self, plan_prior: float, temp: float, strength: float = STRENGTH, floor: float = FLOOR):
        self.plan_prior = plan_prior
        self.temp = temp
        self.strength = strength
        self.log_floor = math.log(floor)
        self.player = -1                    # the seat these beliefs are of (-1: none yet)
        self.turn = -1                      # the turn of the last position seen (an earlier one: a new game)
        self.log_w: list[list[float]] = []

    def _follow(self, obs: Observation) -> None:
        """Start afresh for a new seat or game (a turn earlier than the last one seen)."""
        s = obs.state
        if obs.player != self.player or s.turn < self.turn or len(self.log_w) != s.n_players:
            cities = len(s.board.cities)
            self.player = obs.player
            self.log_w = [[0.0] * cities for _ in range(s.n_players)]
        self.turn = s.turn

    def observe(self, obs: Observation, mover: int, move: int) -> None:
        """Learn from `mover`'s `move` at the position `obs` (this seat's view, before the move)."""
        self._follow(obs)
        state = obs.state
        row = self.log_w[mover]
        evidence = _search.hand_evidence(state, obs.player, mover, move, self.plan_prior, self.temp)
        if evidence is not None:
            said = {x: v for x, v in enumerate(evidence) if v is not None}     # the cities with hidden cards
            best = max(said.values())
            for x, v in said.items():
                row[x] += self.strength * (v - best)
            top = max(row[x] for x in said)
            for x in said:
                row[x] = max(row[x] - top, self.log_floor)
        if move_kind(move) == "deck":
            hidden = _search.hidden_cards(state, mover)
            keep = hidden / (hidden + 1)
            for x in range(len(row)):
                row[x] *= keep

    def weights(self, obs: Observation) -> list[list[float]]:
        """The weights for the search at `obs` (this seat to move): a row per seat, a weight per city."""
        self._follow(obs)
        return [[math.exp(v) for v in row] for row in self.log_w]
