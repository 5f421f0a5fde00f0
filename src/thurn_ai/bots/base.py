"""The bot interface: a bot sees only its player's observation and has its own seeded generator."""
from __future__ import annotations

import random

from .._core import GameState


class Observation:
    """What one player may know, in a form search can use directly.

    `state` is a full game state in which everything the player cannot see (opponents' unknown cards,
    the deck) has been re-dealt at random and the chance generator reseeded, so nothing hidden leaks:
    legal moves, the player's own hand and all public facts are exact. `determinize(seed)` samples
    another state consistent with the same knowledge (ISMCTS draws one per iteration).
    """

    __slots__ = ("state", "player")

    def __init__(self, true_state: GameState, player: int, seed: int):
        self.state = true_state.determinize(player, seed & 0xFFFFFFFFFFFFFFFF)
        self.player = player

    def legal_moves(self) -> list[int]:
        return self.state.legal_moves()

    def determinize(self, seed: int) -> GameState:
        return self.state.determinize(self.player, seed & 0xFFFFFFFFFFFFFFFF)

    def to_dict(self) -> dict:
        return self.state.to_dict(viewer=self.player)


class Bot:
    """Base class. Subclasses implement choose(); `spec` is the string the bot was made from."""

    spec = "bot"
    #: officials this bot may not use (see thurn_ai.bots.spec: forbid=postmaster+cartwright)
    forbid: frozenset = frozenset()

    def __init__(self, seed: int = 0, forbid=frozenset()):
        self.rng = random.Random(seed)
        self.forbid = frozenset(forbid)

    def choose(self, obs: Observation) -> int:
        raise NotImplementedError

    def last_search(self, obs: Observation | None = None):
        """This bot's last search (thurn_ai.bots.search_result.SearchResult; with `obs`, only the one it made
        to choose at that observation), or None: a bot that does not search has none (tree searches override
        this)."""
        return None

    def allowed_moves(self, state: GameState) -> list[int]:
        """Legal moves minus those that would use a forbidden official (never empty)."""
        moves = state.legal_moves()
        if not self.forbid:
            return moves
        from ..game.officials import official_of
        ok = [m for m in moves if official_of(state, m) not in self.forbid]
        return ok or moves

    def __repr__(self):
        return f"<{type(self).__name__} {self.spec}>"
