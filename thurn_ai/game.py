"""The game API: make games, and the GameState class (compiled; defined in cext/thurn_ai/_core.pyx).

    >>> import thurn_ai
    >>> g = thurn_ai.new_game(players=3, seed=7)
    >>> g.legal_moves()[:2]            # move codes; g.move_str(m) gives the notation
    >>> g.apply("draw deck")           # a code or notation; illegal moves raise IllegalMoveError
    >>> h = g.clone()                  # cheap, fully independent copy
    >>> h.playout(); h.is_terminal(), h.scores(), h.ranking(), h.winner()
"""
from __future__ import annotations

import operator
from functools import lru_cache

from ._core import Config, GameState
from .errors import RulesError
from .fileio import short_repr
from .rules import Rules

__all__ = ["GameState", "Config", "new_game", "config_for", "Rules"]


@lru_cache(maxsize=64)
def config_for(rules: Rules) -> Config:
    """The compiled configuration of a Rules object (cached: states of one game share it)."""
    return Config(rules)


def new_game(players: int = 2, seed: int = 0, board: str = "south", variant: str | None = None,
             rules: Rules | None = None, **options) -> GameState:
    """A new game at its first decision. Chance comes from a generator seeded with `seed` and held in
    the state, so the same seed and the same moves give the same game."""
    if rules is None:
        rules = Rules(players=players, board=board, variant=variant, **options)
    try:
        seed = operator.index(seed)
    except TypeError:
        raise RulesError(f"a game's seed is a whole number, not {short_repr(seed)}") from None
    return GameState(config_for(rules), seed & 0xFFFFFFFFFFFFFFFF)


def _rebuild(rules: Rules, data: dict) -> GameState:
    g = GameState(config_for(rules), 0)
    g.load(data)
    return g
