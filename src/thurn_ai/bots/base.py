"""The bot interface: a bot sees only its player's observation and has its own seeded generator."""
from __future__ import annotations

import random
from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from .._core import GameState

if TYPE_CHECKING:
    from .search_options import SearchOptions
    from .search_result import RootMove, SearchResult


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
    #: whether the play loop tells this bot of the other players' moves (inform); a bot that does not
    #: ask costs the loop nothing
    informed: bool = False

    def __init__(self, seed: int = 0, forbid=frozenset()):
        self.rng = random.Random(seed)
        self.forbid = frozenset(forbid)

    def choose(self, obs: Observation) -> int:
        raise NotImplementedError

    def inform(self, obs: Observation, player: int, move: int) -> None:
        """Another player's move, as this bot's seat sees it (OpenSpiel's Bot.inform_action): `obs` is this
        seat's own Observation of the position before the move, `player` the seat that moves, `move` its
        code (a move code shows no hidden card: `draw deck` is one code whatever the card). Called by the
        play loop (thurn_ai.play.match.Table.inform) only where `informed` is true; nothing by default."""

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


@runtime_checkable
class Analyst(Protocol):
    """What a bot provides to analyse a position (`thurn-ai hint`, the browser's hints, the studies): its
    search's ranking of the root's moves, its best line and the officials that line uses, and a search
    restricted to the moves with (or without) an official at the root, or to one official for the turn.
    A bot declares it by its class (`class SearchBot(Bot, Analyst)`), and a caller asks
    `isinstance(bot, Analyst)` instead of probing for the methods by name (as OpenSpiel's bots declare
    `ProvidesPolicy()`). The callers are play/analysis.py (analyse, what the hint, the review and the
    officials study ask) and the web's hints."""

    def analyse(self, obs: Observation) -> Sequence[RootMove]:
        """The root's moves, most visited first."""
        ...

    def principal_variation(self, obs: Observation) -> list[int]:
        """The search's best line from this position: move codes, the first its choice."""
        ...

    def line_officials(self, obs: Observation) -> tuple[str, ...]:
        """The officials the best line uses in this turn."""
        ...

    def restrict_root(self, official: str | None, using: bool = True) -> None:
        """Search only the root moves that use (or avoid) `official` (None: no restriction)."""
        ...

    def restrict_turn(self, official: str | None) -> None:
        """Search this turn holding one official (None: no restriction)."""
        ...



@runtime_checkable
class Searcher(Protocol):
    """What a bot that searches provides: a policy and values at a position (`search`: its root moves with
    their visit shares, mean rewards, win shares and mean scores -- the expert teacher data's targets), its
    budget, typed (what the web server bounds), and where its values come from (`value_weights`: whether
    the hint's win map, fitted to the shipped evaluation's search, can read its win shares). Declared by
    the class (`class SearchBot(Bot, Analyst, Searcher)`); callers ask `isinstance(bot, Searcher)`."""

    def search(self, obs: Observation) -> SearchResult:
        """Search the decision at `obs` for the player to move."""
        ...

    @property
    def iterations(self) -> int:
        """Iterations per decision (when no time is set)."""
        ...

    @property
    def time(self) -> float | None:
        """Seconds per decision instead of iterations (None: the iterations count)."""
        ...

    @property
    def workers(self) -> int:
        """Trees searched in parallel threads."""
        ...

    @property
    def value_weights(self) -> str | None:
        """The weights file of the learned evaluation its values come from (None: another evaluation)."""
        ...

    #: every option of the search, typed (what a win map records of the search it was fitted for)
    options: SearchOptions
