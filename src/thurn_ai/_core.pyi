"""Type stubs for the compiled core (cext/thurn_ai/_core.pyx and its _core_*.pxi parts): the game state,
its compiled configuration, and the engine's codes. Keep in step with the .pyx (tests/core/test_stubs.py checks
that every public name and method of the compiled module is here, with the same parameters)."""
from typing import Any, Callable, NamedTuple

from .game.board import Board
from .game.rules import Rules

#: the shift of a move code's kind: code = kind << SHIFT | argument
SHIFT: int
#: the second random generator's stream id (the random-move generator)
SECOND_GENERATOR: int
#: move kinds by name: draw, deck, administrator, left, right, new, horse, close, stop, house, done,
#: cartwright, no_cartwright, discard
KINDS: dict[str, int]
PHASES: tuple[str, ...]
OFFICIALS: tuple[str, ...]
TURN_FIELDS: tuple[str, ...]


class Tile(NamedTuple):
    """One tile a player holds: the id of its stack (as in the board file) and its value."""
    stack: str
    value: int


class TurnState(NamedTuple):
    """The scalar fields of a state, by name (codes: phase in PHASES, official in 1 + the index in
    OFFICIALS, placed_now a bit set of cities, rng/prng the two generators)."""
    current: int
    phase: int
    official: int
    forced_pm: int
    draws: int
    plays: int
    last_house: int
    last_discard: int
    end_triggered: int
    end_player: int
    truncated: int
    turn: int
    placed_now: int
    display_n: int
    deck_n: int
    discard_n: int
    rng: int
    prng: int


class Config:
    """Compiled form of Rules + Board (immutable, shared by every state of a game)."""
    @property
    def rules(self) -> Rules: ...
    @property
    def board(self) -> Board: ...
    def __init__(self, rules: Rules) -> None: ...


class GameState:
    """One position of a game. Use thurn_ai.new_game() to make one; see thurn_ai.game for the API."""
    def __init__(self, config: Config, seed: int = 0) -> None: ...
    def clone(self) -> GameState:
        """An independent copy (one struct copy)."""
    @property
    def config(self) -> Config: ...
    @property
    def rules(self) -> Rules: ...
    @property
    def board(self) -> Board: ...
    @property
    def n_players(self) -> int: ...
    @property
    def current_player(self) -> int:
        """The seat to move (seats play clockwise from seat 0, the start player)."""
    @property
    def turn(self) -> int:
        """Turns completed so far (all players together)."""
    @property
    def phase(self) -> str:
        """The kind of decision due: draw, play, after_play, houses, cartwright, discard or over."""
    def is_terminal(self) -> bool:
        """Whether the game is over."""
    def legal_moves(self) -> list[int]:
        """The legal moves of the player to move, as move codes (see thurn_ai.game.notation)."""
    def is_legal(self, move: int) -> bool:
        """Whether a move code is legal for the player to move."""
    def apply(self, move: int | str) -> None:
        """Apply a move (a code from legal_moves() or its notation, e.g. 'draw Ulm', 'right Lodz').
        An illegal move raises IllegalMoveError and leaves the state unchanged."""
    def parse_move(self, text: str) -> int:
        """The move code of a move in notation (NotationError if it cannot be read)."""
    def move_str(self, move: int) -> str:
        """The notation of a move code."""
    def to_dict(self, viewer: int | None = None) -> dict[str, Any]:
        """The position as JSON-ready data (see docs/position-format.md); with `viewer`, only what that
        player may know."""
    def observation(self, player: int) -> dict[str, Any]:
        """Exactly what `player` may know, as a position dict."""
    def apply_random(self) -> int:
        """Apply one uniformly random legal move (using the state's generator); returns it."""
    def playout(self) -> int:
        """Play uniformly random moves to the end in compiled code; returns the number of moves."""
    def determinize(self, observer: int, seed: int) -> GameState:
        """A copy in which everything `observer` cannot see is re-dealt at random (and the chance
        generator reseeded): a state consistent with everything that player knows."""
    def reseed(self, seed: int) -> None:
        """Reseed chance (deck draws) and the random-move generator."""
    def score(self, player: int) -> int:
        """The current score of `player`."""
    def scores(self) -> list[int]:
        """Current score of every player: highest carriage + tiles - houses not placed."""
    def winner(self) -> int:
        """The winner by score and the tie-break (meaningful once the game is over)."""
    def ranking(self) -> list[int]:
        """Seats from first to last place, ties broken as the rules say."""
    def hand(self, player: int) -> dict[str, int]:
        """The cards in `player`'s hand as {city: count}, in board order."""
    def known(self, player: int) -> dict[str, int]:
        """The cards of `player`'s hand every player knows (taken face up): {city: count}."""
    def route(self, player: int) -> list[str]:
        """`player`'s route as city names from its left end to its right end."""
    def houses(self, player: int) -> set[str]:
        """The cities where `player` has a house."""
    def houses_left(self, player: int) -> int:
        """Houses `player` has not placed yet (each costs a point at the end)."""
    def horse_cards(self, player: int) -> dict[str, int]:
        """Cards `player` laid as draught horses (horses variant): {city: count}."""
    def carriage(self, player: int) -> int | None:
        """The size of `player`'s carriage, None before the first one (and in the horses variant)."""
    def tiles(self, player: int) -> list[Tile]:
        """The tiles `player` holds, one Tile(stack, value) each, in board order of the stacks."""
    def official_uses(self, player: int) -> dict[str, int]:
        """How often `player` used each official: {official: count}."""
    def closes(self, player: int) -> int:
        """Routes `player` has closed."""
    def display(self) -> list[str]:
        """The face-up cards, as city names (a name once per card), in board order."""
    def turn_state(self) -> TurnState:
        """The scalar fields of the state as a TurnState (named fields, see TURN_FIELDS)."""
    def export(self) -> dict[str, Any]:
        """Every field of the state as plain Python values (used by thurn_ai.position)."""
    def load(self, d: dict[str, Any]) -> None:
        """Set every field from a dict in the form export() gives (validation is the caller's job)."""
    def settle(self) -> None:
        """Run automatic steps (used after load() of a position saved mid-decision)."""
    def _cards(self, which: int, player: int = 0) -> list[str]: ...
    def _pile_counts(self, which: int) -> dict[str, int]: ...
    def _city_names(self, mask: int) -> list[str]: ...
    def _player_parts(self, player: int) -> tuple[Any, ...]: ...
    def _stack_tails(self) -> list[list[int]]: ...


def install(*, notation_error: type[Exception], illegal_move_error: Callable[..., Exception],
            parse_move: Callable[..., int], move_to_str: Callable[..., str],
            position_to_dict: Callable[..., dict[str, Any]]) -> None:
    """Called once by thurn_ai: the functions and error type the core's methods delegate to."""


def valid_house_set(where: Config | Board, cities: int) -> bool:
    """Whether a set of cities (a bit mask) is one legal house placement."""


def bench_playouts(state: GameState, n: int, seed: int) -> int:
    """n random playouts from clones of `state`, all in compiled code; returns total moves played."""


def bench_legal_moves(state: GameState, n: int) -> int:
    """Generate the legal moves n times in compiled code; returns the total count (for timing)."""
