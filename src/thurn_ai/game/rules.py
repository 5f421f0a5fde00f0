"""The one small configuration object for a game: board, variant, player count and rule readings."""
from __future__ import annotations

import os
from dataclasses import asdict, dataclass
from typing import ClassVar

from .board import BUILTIN_BOARDS, MIN_CLOSE, Board, is_packaged_board, load_board  # noqa: F401 (MIN_CLOSE)
from ..errors import BoardError, RulesError
from ..fileio import short_repr

PLAYER_COUNTS = (2, 3, 4)   # the players a game may have (every player count of the code reads it here)
VARIANTS = ("classic", "horses")
ALL_PROVINCES_READINGS = ("german", "english")
# The game's fixed numbers: their one home. The compiled core reads them from the Rules object (its
# Config copies rules.houses, rules.hand_limit, ... into ConfigData), everything else imports them here.
HOUSES = 20          # houses per player
HAND_LIMIT = 3       # cards kept after closing a route
DISPLAY_SIZE = 6     # face-up cards
# MIN_CLOSE, the cards a route needs to be closed, comes from board.py, which checks board files with it
BASE_HORSES = 2      # horses variant: the carriage's own horses
MAX_HORSE_CARDS = 6  # horses variant: horse cards a player may lay
CARTWRIGHT_REACH = 2  # the Cartwright takes a carriage up to this many cards larger than the route
# The engine counts each player's official uses and closes in 16 bits (cext/thurn_ai/_core.pxd), at most
# one of each per turn, and a player has at most max_turns turns: so max_turns may not exceed this.
MAX_COUNTER = 32767
MAX_TURNS = MAX_COUNTER
FIELDS = ("players", "board", "variant", "all_provinces_tile", "max_turns")


@dataclass(frozen=True)
class Rules:
    """Everything that selects which game is played.

    Attributes:
        players: 2-4 (PLAYER_COUNTS).
        board: 'south', 'north' (the packaged boards) or, given by the user directly (the command line's
            --board-file), a board file's path; positions and game records name only packaged boards, see
            from_dict().
        variant: 'classic' (base-game carriages, Cartwright, end on the 7-carriage or the last house) or
            'horses' (Glanz und Gloria); None takes the board's default.
        all_provinces_tile: 'german' (the South board's tile needs every province outside Baiern, as printed)
            or 'english' (every province).
        max_turns: an engine safeguard so that a bot that never closes a route cannot loop forever; no real
            game comes near it (see docs/rules.md). At most 32767, what the engine's 16-bit per-player
            counters hold.
    """

    players: int = 2
    board: str = "south"
    variant: str | None = None
    all_provinces_tile: str = "german"
    max_turns: int = 5000

    # the fixed numbers above, for the compiled core (which imports nothing from the package)
    houses: ClassVar[int] = HOUSES
    hand_limit: ClassVar[int] = HAND_LIMIT
    display_size: ClassVar[int] = DISPLAY_SIZE
    min_close: ClassVar[int] = MIN_CLOSE
    base_horses: ClassVar[int] = BASE_HORSES
    max_horse_cards: ClassVar[int] = MAX_HORSE_CARDS
    cartwright_reach: ClassVar[int] = CARTWRIGHT_REACH

    def __post_init__(self):
        if not is_player_count(self.players):
            raise RulesError(f"players must be {player_counts_text()}, not {short_repr(self.players)}")
        if not isinstance(self.board, (str, os.PathLike, Board)):
            raise RulesError(f"board must be {' or '.join(BUILTIN_BOARDS)} (or a board file's path), "
                             f"not {short_repr(self.board)}")
        if self.variant is not None and (not isinstance(self.variant, str) or self.variant not in VARIANTS):
            raise RulesError(f"unknown variant {short_repr(self.variant)}: use classic or horses")
        if not isinstance(self.all_provinces_tile, str) or self.all_provinces_tile not in ALL_PROVINCES_READINGS:
            raise RulesError("all_provinces_tile must be 'german' or 'english'")
        if not _is_int(self.max_turns) or not 1 <= self.max_turns <= MAX_TURNS:
            raise RulesError(f"max_turns must be an integer from 1 to {MAX_TURNS} (the engine's per-player "
                             f"counters are 16-bit), not {short_repr(self.max_turns)}")
        b = self.load_board()
        if self.resolved_variant == "horses" and not b.has_horses:
            raise RulesError(f"the horses variant needs horses on every card; the {b.name} board has none")
        if self.resolved_variant == "classic" and not b.carriages:
            raise RulesError(f"the classic variant needs carriages; the {b.name} board lists none")
        self._check_game_can_end(b)

    def _check_game_can_end(self, b: Board) -> None:
        # A game ends when a player places the last house (needs a city per house) or, in the classic
        # variant, takes the largest carriage (needs a route that long). A board allowing neither would
        # only ever stop at the max_turns safeguard, so it is refused with a clear message.
        if b.n_cities >= HOUSES:
            return
        if self.resolved_variant == "classic" and b.carriages[-1][0] <= b.n_cities:
            return
        if self.resolved_variant == "horses":
            why = f"the horses variant ends only when a player places the last of {HOUSES} houses"
        else:
            why = (f"it is too small both for the largest carriage (size {b.carriages[-1][0]}) "
                   f"and for {HOUSES} houses")
        raise RulesError(f"a game on the {b.name} board could never end: {why}, one house per city, "
                         f"and the board has {b.n_cities} cities")

    def load_board(self) -> Board:
        return load_board(self.board)

    @property
    def resolved_variant(self) -> str:
        return self.variant or self.load_board().default_variant

    def tile_provinces(self, st) -> tuple[int, ...]:
        """The provinces (indices) of tile stack `st` under these rules: for the each-province tile, the
        provinces needing a house, its printed ones ('german' reading) or every province ('english', its
        excluded ones too); for others, the provinces the stack names. The one place the reading is
        applied (the compiled core, the position checker and the bots all ask here)."""
        provinces = tuple(st.provinces)
        if st.kind == "each_province" and self.all_provinces_tile == "english":
            provinces += tuple(st.excluded)
        return provinces

    def to_dict(self) -> dict:
        d = asdict(self)
        d["variant"] = self.resolved_variant
        return d

    @classmethod
    def from_dict(cls, d: dict, *, board_file=None, packaged_only: bool = False) -> "Rules":
        """Rules from their to_dict() form (unknown keys are ignored).

        Data read from a file (a position, a game record) passes packaged_only=True: its `board` must then
        be a packaged board's name ('south', 'north'), never a path, so that a file cannot make the
        program open any other file; a board file comes only from the user, as `board_file` (the
        command line's --board-file), which then replaces the board the data names. Without
        packaged_only (data this program made itself, e.g. a tournament's tasks) `board` may be a path."""
        if not isinstance(d, dict):
            raise RulesError(f"rules must be an object such as {{\"players\": 3, \"board\": \"south\"}}, "
                             f"not {short_repr(d)}")
        known = {k: d[k] for k in FIELDS if k in d}
        if board_file is not None:
            known["board"] = board_file
        elif packaged_only and "board" in known and not is_packaged_board(known["board"]):
            b = known["board"]
            if isinstance(b, str) and (b.endswith(".json") or "/" in b or "\\" in b):
                raise BoardError(f"board {short_repr(b)} is a file; a position or game record names only a "
                                 f"packaged board ({', '.join(BUILTIN_BOARDS)}): give another board file "
                                 "with --board-file")
            raise BoardError(f"unknown board {short_repr(b)}: use {' or '.join(BUILTIN_BOARDS)} "
                             "(another board file only with --board-file)")
        return cls(**known)


def is_player_count(n) -> bool:
    """Whether `n` is a number of players a game may have (a whole number in PLAYER_COUNTS)."""
    return _is_int(n) and n in PLAYER_COUNTS


def player_counts_text(last: str = "or") -> str:
    """'2, 3 or 4': the player counts for messages."""
    return ", ".join(map(str, PLAYER_COUNTS[:-1])) + f" {last} {PLAYER_COUNTS[-1]}"


def _is_int(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)
