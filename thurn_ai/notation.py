"""Move notation: a short, human-readable text for every move that parses back to the same move.

    draw Ulm        take the face-up Ulm card          draw deck      take the top card of the deck
    administrator   replace the display (before drawing)
    left Ulm        play Ulm at the left end of the route    right Ulm   ... at the right end
    new Ulm         start a new route with Ulm (abandoning the current one, if any)
    horse Ulm       lay Ulm as a draught horse (horses variant)
    close           close the route                    stop           end the turn without closing
    house Ulm       place a house in Ulm (closing)      done           no more houses
    cartwright      take the next carriage with the Cartwright      no cartwright   decline it
    discard Ulm     discard Ulm from hand after closing

A second draw is the Postmaster and a second card played is the Postal Carrier: they use the same
notation and the log marks them. City names ignore case and umlaut spelling (Muenchen = München).
"""
from __future__ import annotations

from ._core import KINDS, SHIFT
from .board import Board
from .errors import IllegalMoveError, NotationError
from .fileio import short_repr

NAMES = {v: k for k, v in KINDS.items()}
CITY_KINDS = {"draw", "left", "right", "new", "horse", "house", "discard"}
ALIASES = {"admin": "administrator", "amtmann": "administrator", "end": "stop", "pass": "stop",
           "nocartwright": "no_cartwright", "no-cartwright": "no_cartwright",
           "no cartwright": "no_cartwright", "wagner": "cartwright", "draw deck": "deck"}


def move_kind(move: int) -> str:
    return NAMES[move >> SHIFT]


def move_city(move: int) -> int:
    return move & ((1 << SHIFT) - 1)


def make_move(kind: str, city: int = 0) -> int:
    return KINDS[kind] << SHIFT | city


def move_to_str(board: Board, move: int) -> str:
    kind = NAMES.get(move >> SHIFT)
    if kind is None:
        raise NotationError(f"not a move code: {move}")
    if kind == "deck":
        return "draw deck"
    if kind == "no_cartwright":
        return "no cartwright"
    if kind in CITY_KINDS:
        return f"{kind} {board.cities[move_city(move)]}"
    return kind


def parse_move(board: Board, text: str) -> int:
    t = " ".join(str(text).split()).strip()
    low = t.lower()
    if low in ALIASES:
        low = ALIASES[low]
    if low in KINDS and low not in CITY_KINDS:
        return make_move(low)
    verb, _, rest = t.partition(" ")
    verb = ALIASES.get(verb.lower(), verb.lower())
    if verb not in CITY_KINDS:
        raise NotationError(f"cannot read move {short_repr(text)}: it should start with one of "
                            "draw, administrator, left, right, new, horse, close, stop, house, done, "
                            "cartwright, no cartwright, discard")
    if not rest:
        raise NotationError(f"cannot read move {short_repr(text)}: {verb} needs a city")
    if verb == "draw" and rest.lower() == "deck":
        return make_move("deck")
    return make_move(verb, board.city_index(rest))


def illegal_move_error(state, move: int) -> IllegalMoveError:
    """An IllegalMoveError that says what is wrong and what is possible instead."""
    try:
        text = move_to_str(state.board, move)
    except NotationError:
        text = str(move)
    if state.is_terminal():
        return IllegalMoveError(f"illegal move {text!r}: the game is over")
    legal = sorted({move_kind(m) for m in state.legal_moves()})
    return IllegalMoveError(f"illegal move {text!r} for player {state.current_player} in the "
                            f"{state.phase} phase; possible now: {', '.join(legal)}")
