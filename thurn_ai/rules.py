"""The one small configuration object for a game: board, variant, player count and rule readings."""
from __future__ import annotations

from dataclasses import asdict, dataclass

from .board import Board, load_board
from .errors import RulesError

VARIANTS = ("classic", "horses")
ALL_PROVINCES_READINGS = ("german", "english")
HOUSES = 20  # houses per player (the compiled core's ConfigData.houses)


@dataclass(frozen=True)
class Rules:
    """Everything that selects which game is played.

    players: 2-4.  board: 'south', 'north' or a board-file path.  variant: 'classic' (base-game carriages,
    Cartwright, end on the 7-carriage or the last house) or 'horses' (Glanz und Gloria); None takes the
    board's default.  all_provinces_tile: 'german' (the South board's tile needs every province outside
    Baiern, as printed) or 'english' (every province).  max_turns: an engine safeguard so that a bot that
    never closes a route cannot loop forever; no real game comes near it (see docs/rules.md).
    """

    players: int = 2
    board: str = "south"
    variant: str | None = None
    all_provinces_tile: str = "german"
    max_turns: int = 5000

    def __post_init__(self):
        if not isinstance(self.players, int) or not 2 <= self.players <= 4:
            raise RulesError(f"players must be 2, 3 or 4, not {self.players!r}")
        if self.variant is not None and self.variant not in VARIANTS:
            raise RulesError(f"unknown variant {self.variant!r}: use classic or horses")
        if self.all_provinces_tile not in ALL_PROVINCES_READINGS:
            raise RulesError("all_provinces_tile must be 'german' or 'english'")
        if not isinstance(self.max_turns, int) or not 1 <= self.max_turns <= 1_000_000:
            raise RulesError(f"max_turns must be an integer from 1 to 1000000, not {self.max_turns!r}")
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

    def to_dict(self) -> dict:
        d = asdict(self)
        d["variant"] = self.resolved_variant
        return d

    @classmethod
    def from_dict(cls, d: dict) -> "Rules":
        known = {k: d[k] for k in ("players", "board", "variant", "all_provinces_tile", "max_turns") if k in d}
        return cls(**known)
