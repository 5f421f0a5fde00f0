"""Type stubs for the compiled playout policies and evaluations (cext/thurn_ai/_policy.pyx and its
_policy_*.pxi parts), used by the search; these functions are for tests, the bots and benchmarks."""
from typing import Iterable, Protocol, Sequence

import numpy as np

from ._core import GameState


class _PriorWeights(Protocol):
    """What the compiled prior reads off one player count's and phase's weights (learned.prior.PhasePrior
    is one): a move's score w . phi + v . tanh(W phi + b), W, b and v None for the conditional logit. Declared
    here so that the compiled floor names no module above it; private, as the compiled module has no such
    name (a type for the checker only)."""
    w: np.ndarray
    W: np.ndarray | None
    b: np.ndarray | None
    v: np.ndarray | None

#: the most hidden units a phase of the learned move prior may have (PRIOR_HIDDEN)
MAX_PRIOR_HIDDEN: int
#: the playout codes policy_choice and the playouts accept (random, heuristic, plan, heuristic-tiles)
PLAYOUT_KINDS: tuple[int, ...]


def policy_choice(state: GameState, seed: int, forbid: int = 0, eps: float = 0.0, kind: int = 1) -> int:
    """The move the playout policy `kind` (a playout code: heuristic by default, thurn_ai._search.PLAYOUTS)
    plays for the player to move (a legal move code)."""


def policy_playout(state: GameState, seed: int, eps: float = 0.05) -> int:
    """Play the heuristic policy (all players) to the end of the game, in place; returns moves played."""


def policy_turn_playout(state: GameState, seed: int, uses: int, avoids: int, kind: int = 1, eps: float = 0.05) -> int:
    """Play the rest of the current turn, in place, as a turn-restricted search's playout does; returns the
    moves played."""


def official_mask(names: Iterable[str]) -> int:
    """Bit set for Tree(forbid=...) from official names (postmaster, administrator, postal_carrier,
    cartwright)."""


def plan_policy_choice(state: GameState, forbid: int = 0) -> int:
    """The planning playout policy's move for the player to move (a legal move code; deterministic)."""


def value_features_of(state: GameState) -> tuple[float, list[list[float]]]:
    """(progress, [[feature, ...] per player]): the learned evaluation's inputs for a position."""


def learned_value(state: GameState, win_weights: Sequence[float], score_weights: Sequence[float], reward: int = 2,
                  scale: float = 8.0) -> tuple[list[float], list[float], list[float]]:
    """The compiled learned evaluation of a position: (win chances, expected final scores, rewards), each
    a list over the players."""


def prior_features_of(state: GameState, forbid: int = 0) -> tuple[int, list[int], list[list[float]]]:
    """(phase row or -1, moves, [[feature, ...] per move]): the learned prior's inputs at the decision of
    the player to move."""


def learned_prior_of(state: GameState, rows: Sequence[_PriorWeights | None], forbid: int = 0
                     ) -> tuple[list[int], list[float]]:
    """(moves, probabilities): the compiled learned prior at the decision of the player to move."""
