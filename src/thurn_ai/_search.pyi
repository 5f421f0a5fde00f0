"""Type stubs for the compiled search (cext/thurn_ai/_search.pyx): Information-Set MCTS and determinized UCT.
The options are described, defaulted and checked in thurn_ai.bots.search_options.SearchOptions, whose
tree_args() gives Tree's keyword arguments."""
from typing import Sequence

from ._core import GameState
from ._policy import official_mask as official_mask
from ._policy import plan_policy_choice as plan_policy_choice
from ._policy import policy_choice as policy_choice
from ._policy import policy_playout as policy_playout
from ._policy import _PriorWeights

PLAYOUTS: dict[str, int]
REWARDS: dict[str, int]
SELECTS: dict[str, int]
EVALUATIONS: dict[str, int]


class OfficialFilter:
    """Which moves of the searching player a Tree keeps, by the officials they use (bit sets of 1 << official
    code): at the root decision only (root_uses, root_avoids) and through the root player's current turn
    (turn_uses, turn_avoids). The default keeps every move."""
    @property
    def root_uses(self) -> int: ...
    @property
    def root_avoids(self) -> int: ...
    @property
    def turn_uses(self) -> int: ...
    @property
    def turn_avoids(self) -> int: ...
    def __init__(self, root_uses: int = 0, root_avoids: int = 0, turn_uses: int = 0, turn_avoids: int = 0) -> None:
        """ValueError unless each pair is two disjoint sets of official bits (0-31)."""
    def with_root(self, uses: int = 0, avoids: int = 0) -> OfficialFilter:
        """This filter with the root decision's sets replaced."""
    def with_turn(self, uses: int = 0, avoids: int = 0) -> OfficialFilter:
        """This filter with the current turn's sets replaced."""


class Tree:
    """One search tree (ISMCTS, or UCT on one fixed determinization). Build, run(), read the root."""
    @property
    def n_nodes(self) -> int: ...
    @property
    def observer(self) -> int: ...
    @property
    def iterations(self) -> int: ...
    @property
    def playout_moves(self) -> int: ...
    #: keep the hand-set share of a mixed prior per node (set before the first run; SearchOptions.hand_prior)
    hand_cache: bool
    def __init__(self, state: GameState, seed: int, *, c: float, select: int, plan_prior: float,
                 prior_temp: float, playout: int, eps: float, horizon: int, evaluation: int, tile_weight: float,
                 scale: float, reward: int, widen: float, ismcts: bool = True, forbid: int = 0, observer: int = -1,
                 officials: OfficialFilter | None = None,
                 value_weights: tuple[Sequence[float], Sequence[float]] | None = None,
                 prior_weights: Sequence[_PriorWeights | None] | None = None, prior_mix: float = 0.0,
                 root_move: int = -1, hand_weights: Sequence[Sequence[float]] | None = None,
                 others_planner: bool = False) -> None:
        """Search from `state` for `observer` (default: the player to move); root_move >= 0: the whole budget
        through that legal move of the root decision (the best continuation after it); hand_weights[p][city]:
        deal the opponents' hidden cards by these weights (infer=policy) instead of uniformly."""
    def run(self, iterations: int = 0, seconds: float = 0.0, cpu: bool = False, settle: bool = False,
            favourite: float = 0.0, favourite_after: float = 0.0) -> int:
        """Search for `iterations` iterations, or `seconds` (whichever is given; both: the first reached);
        releases the GIL. settle=True stops an iteration budget early once the most visited root move cannot
        be overtaken in the iterations left; favourite > 0 stops it once the most visited root move holds that
        share of the visits, after `favourite_after` of the budget. Returns the iterations done."""
    def reroot(self, state: GameState, path: Sequence[int]) -> int:
        """Keep the subtree reached by the observer's moves `path` as the tree, rooted at `state`; returns
        the root visits carried over (0: the tree did not hold that line and starts afresh)."""
    def visits_along(self, path: Sequence[tuple[int, int]]) -> int:
        """The visits of the node reached from the root by the (mover, move) pairs of `path` (0: the tree
        does not hold that line; the root's visits for an empty path). Reads only."""
    def root_children(self) -> list[tuple[int, int, int, float, float, float]]:
        """[(move, visits, avail, value_sum, wins_sum, score_sum)] for every child of the root."""
    def root_tables(self) -> list[tuple[int, float]]:
        """[(move, table_sum)] for every child of the root, in root_children's order: the sum over its visits
        of the other players' mean final (or evaluated) value."""
    def principal_variation(self, first_move: int = -1, min_visits: int = 1, officials: bool = False
                            ) -> list[int] | list[tuple[int, int]]:
        """The most-visited line of the observer's own decisions from the root until another player is
        to move; with officials=True, (move, official bit) pairs."""
    def own_nodes(self, min_visits: int = 1) -> list[tuple[list[int], list[tuple[int, int, int, float, float, float]]]]:
        """[(path, children)] of the nodes below the root where the observer decides again in the same turn,
        reached by its own moves without a draw and visited at least min_visits times: the moves from the
        root, and (move, visits, avail, value_sum, wins_sum, score_sum) of its moves there."""
    def turn_officials(self) -> dict[int, int]:
        """{official bit: visits} over the tree's moves of the root player's current turn that used an
        official."""


def weighted_determinization(state: GameState, observer: int, seed: int,
                             weights: Sequence[Sequence[float]]) -> GameState:
    """The position with what `observer` cannot see dealt again, each opponent p's hidden cards drawn from the
    hidden pool by count x weights[p][city] (what a Tree with hand_weights samples each iteration)."""
def hand_evidence(state: GameState, viewer: int, player: int, move: int, plan_prior: float = 0.8,
                  temp: float = 3.0) -> list[float | None] | None:
    """Per city x, log P(move | `player`'s hidden cards held one x) under the hand-set prior, read from
    `viewer`'s observation `state`; None for a city with no card hidden from the viewer, or instead of the
    list when the move says nothing about the hand."""
def hidden_cards(state: GameState, player: int) -> int:
    """How many of `player`'s cards are hidden from the others."""
