"""The game API: make games, and the GameState class (compiled; defined in cext/thurn_ai/_core_state.pxi).

    >>> import thurn_ai
    >>> g = thurn_ai.new_game(players=3, seed=7)
    >>> g.legal_moves()[:2]            # move codes; g.move_str(m) gives the notation
    >>> g.apply("draw deck")           # a code or notation; illegal moves raise IllegalMoveError
    >>> h = g.clone()                  # cheap, fully independent copy
    >>> h.playout(); h.is_terminal(), h.scores(), h.ranking(), h.winner()
    >>> g.hand(0), g.route(0), g.houses(0), g.tiles(0), g.carriage(0), g.score(0)   # typed accessors
    >>> log = CloseLog(); log.apply(g, move)       # applies a move; a CloseAward when it ends a close

The typed accessors (hand, known, route, houses, houses_left, horse_cards, carriage, tiles,
official_uses, closes, display, score) are compiled methods of GameState that read one field each; see
docs/analysis.md.
"""
from __future__ import annotations

import copyreg
import operator
from dataclasses import dataclass
from functools import lru_cache

from .._core import KINDS, SHIFT, Config, GameState, Tile
from ..errors import PositionError, RulesError
from ..fileio import short_repr
from .rules import Rules

__all__ = ["GameState", "Config", "new_game", "config_for", "Rules", "Tile", "CloseAward", "CloseLog"]


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


def _reduce(state: GameState):
    # pickling is registered from here, above the core: the rules and the raw state rebuild it exactly
    return _rebuild, (state.rules, state.export())


copyreg.pickle(GameState, _reduce)


# ---------------------------------------------------------------- what a close awarded

@dataclass(frozen=True)
class CloseAward:
    """What one close of a route gave its player.

    Attributes:
        player: the seat.
        move: the index (from 0) of the `close` move among the moves the CloseLog saw (in a game record: among
            its moves; -1 when not known).
        turn: turns completed before this one (as in positions).
        route: the cities closed, left end first.
        houses: the cities where houses were placed, in board order.
        tiles: the tiles taken, Tile(stack, value), route tile first then the stacks in board order (the
            game-end tile among them when this close ended the game).
        carriage: the size of the carriage taken (None: none).
        cartwright: the carriage came with the Cartwright.
        carriage_points: what the carriage change adds.
        points: the player's score change, houses (1 each: unplaced houses cost a point) + tiles + carriage.
        ends_game: this close triggered the end of the game (last house or the last carriage).
    """
    player: int
    move: int
    turn: int
    route: tuple
    houses: tuple
    tiles: tuple
    carriage: int | None
    cartwright: bool
    carriage_points: int
    points: int
    ends_game: bool

    def to_dict(self) -> dict:
        return {"player": self.player, "move": self.move, "turn": self.turn, "route": list(self.route),
                "houses": list(self.houses),
                "tiles": [{"stack": t.stack, "value": t.value} for t in self.tiles],
                "carriage": self.carriage, "cartwright": self.cartwright,
                "carriage_points": self.carriage_points, "points": self.points, "ends_game": self.ends_game}

    @classmethod
    def from_dict(cls, d, players: int | None = None) -> "CloseAward":
        """A CloseAward from its to_dict() form; PositionError naming the first bad field."""
        if not isinstance(d, dict):
            raise PositionError(f"a close is an object, not {short_repr(d)}")
        missing = [k for k in CLOSE_FIELDS if k not in d]
        if missing:
            raise PositionError(f"a close misses {', '.join(missing)}")
        unknown = [k for k in d if k not in CLOSE_FIELDS]
        if unknown:
            raise PositionError(f"a close has unknown field {short_repr(unknown[0])}")

        def whole(k, lo=None, hi=None):
            v = d[k]
            if isinstance(v, bool) or not isinstance(v, int) or (lo is not None and v < lo) \
                    or (hi is not None and v > hi):
                raise PositionError(f"close {k} must be a whole number"
                                    + (f" from {lo}" if lo is not None else "")
                                    + (f" to {hi}" if hi is not None else "") + f", not {short_repr(v)}")
            return v

        def names(k):
            v = d[k]
            if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
                raise PositionError(f"close {k} must be a list of city names, not {short_repr(v)}")
            return tuple(v)

        tiles = d["tiles"]
        if not isinstance(tiles, list) or not all(
                isinstance(t, dict) and set(t) == {"stack", "value"} and isinstance(t["stack"], str)
                and isinstance(t["value"], int) and not isinstance(t["value"], bool) for t in tiles):
            raise PositionError(f"close tiles must be a list of {{\"stack\": id, \"value\": n}}, not "
                                f"{short_repr(tiles)}")
        carriage = d["carriage"]
        if carriage is not None and (isinstance(carriage, bool) or not isinstance(carriage, int)):
            raise PositionError(f"close carriage must be a carriage size or null, not {short_repr(carriage)}")
        for k in ("cartwright", "ends_game"):
            if not isinstance(d[k], bool):
                raise PositionError(f"close {k} must be true or false, not {short_repr(d[k])}")
        return cls(player=whole("player", 0, None if players is None else players - 1),
                   move=whole("move", -1), turn=whole("turn", 0), route=names("route"),
                   houses=names("houses"), tiles=tuple(Tile(t["stack"], t["value"]) for t in tiles),
                   carriage=carriage, cartwright=d["cartwright"], carriage_points=whole("carriage_points"),
                   points=whole("points"), ends_game=d["ends_game"])


CLOSE_FIELDS = ("player", "move", "turn", "route", "houses", "tiles", "carriage", "cartwright",
                "carriage_points", "points", "ends_game")
_CLOSE = KINDS["close"]
_CART = KINDS["cartwright"]


class CloseLog:
    """Records what each close awarded, by comparing the state when a player closes with the state when
    the close is over (houses placed, tiles taken, carriage; before the discards).

        log = CloseLog()
        while not g.is_terminal():
            award = log.apply(g, bot_move)      # applies the move; a CloseAward when a close just ended
        log.awards                              # every close, in order

    Or call log.before(state, move) before applying a move yourself and log.after(state) after it."""

    def __init__(self):
        self.awards: list[CloseAward] = []
        self._open = None
        self._moves = 0

    def apply(self, state: GameState, move) -> CloseAward | None:
        """Apply `move` (a code or notation) to `state`; the CloseAward if this move ended a close."""
        code = state.parse_move(move) if isinstance(move, str) else move
        if isinstance(code, bool) or not isinstance(code, int) or not 0 <= code < 1 << 16 \
                or not state.is_legal(code):
            state.apply(code)       # raises the error that says why (the log is left as it was)
        self.before(state, code)
        state.apply(code)
        return self.after(state)

    def before(self, state: GameState, move: int) -> None:
        """Call before applying `move` (a code) to `state`."""
        if self._open is not None and move >> SHIFT == _CART:
            self._open["cartwright"] = True
        if move >> SHIFT == _CLOSE and self._open is None:
            p = state.current_player
            k = state.carriage(p)
            self._open = {"player": p, "move": self._moves, "turn": state.turn,
                          "route": tuple(state.route(p)), "houses": state.houses(p),
                          "tails": state._stack_tails(), "carriage": k,
                          "carriage_points": _carriage_points(state, k), "score": state.score(p),
                          "closes": state.closes(p), "ended": state.turn_state().end_triggered, "cartwright": False}
        self._moves += 1

    def after(self, state: GameState) -> CloseAward | None:
        """Call after applying the move; returns the CloseAward when the close is over."""
        o = self._open
        if o is None:
            return None
        p = o["player"]
        if state.closes(p) == o["closes"]:
            return None
        self._open = None
        b = state.board
        tails = state._stack_tails()
        tiles: list[Tile] = []
        for route_first in (True, False):
            for st, was, now in zip(b.tiles, o["tails"], tails):
                if (st.kind == "route") == route_first:
                    tiles.extend(Tile(st.id, v) for v in was[:len(was) - len(now)])
        k = state.carriage(p)
        houses = state.houses(p)
        award = CloseAward(
            player=p, move=o["move"], turn=o["turn"], route=o["route"],
            houses=tuple(c for c in b.cities if c in houses and c not in o["houses"]),
            tiles=tuple(tiles), carriage=k if k != o["carriage"] else None, cartwright=o["cartwright"],
            carriage_points=_carriage_points(state, k) - o["carriage_points"],
            points=state.score(p) - o["score"], ends_game=bool(state.turn_state().end_triggered) and not o["ended"])
        self.awards.append(award)
        return award


def _carriage_points(state: GameState, size: int | None) -> int:
    if size is None:
        return 0
    return next(pts for s, pts in state.board.carriages if s == size)

