# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The compiled rules of Thurn und Taxis: state, move generation, moves, determinization, playouts.

All rules live here, in plain C functions over two structs: ConfigData (the board and rule switches,
immutable) and StateData (one position, a flat struct so a clone is one memcpy). The Python layer
(thurn_ai.game, .notation, .position) wraps them; nothing here allocates during play.

Cards are identical per city, so every pile (hands, display, deck, discard) is a count per city. The deck
is a multiset: a card drawn from it is uniformly random among the cards in it, which is the same
distribution as drawing from the top of a shuffled pile, and makes determinization a re-deal.
"""
from libc.string cimport memset, memmove
from libc.stdint cimport uint8_t, int8_t, int16_t, int32_t, uint32_t, uint64_t
from cpython.object cimport PyTypeObject
from cpython.ref cimport Py_INCREF
from cpython.tuple cimport PyTuple_SET_ITEM

from collections import namedtuple
from itertools import combinations

from thurn_ai._random cimport below


# The module's parts, in this order: textual includes, so one compilation unit (each file's first lines say why).
include "_core_turn.pxi"
include "_core_moves.pxi"
include "_core_playouts.pxi"
include "_core_config.pxi"


# ---------------------------------------------------------------- what the layers above provide
#
# The core imports nothing from the package: notation (move <-> text), positions (JSON dicts) and the
# error types live above it and are installed here by thurn_ai.game when the package is imported
# (importing thurn_ai._core imports the package first). Pickling is registered from above too (copyreg).

_above = {}


def install(*, notation_error, illegal_move_error, parse_move, move_to_str, position_to_dict):
    """Called once by thurn_ai.game: the functions and error type the core's methods delegate to."""
    _above.update(notation_error=notation_error, illegal_move_error=illegal_move_error, parse_move=parse_move,
                  move_to_str=move_to_str, position_to_dict=position_to_dict)


cdef object _from_above(str name):
    try:
        return _above[name]
    except KeyError:
        raise RuntimeError("thurn_ai._core is used without the thurn_ai package: import thurn_ai first") from None


def _move_code(move):
    """The int code of a move given as a number; a float, None or anything else is not a move (a float
    must not be truncated into some legal code)."""
    import operator
    if isinstance(move, bool):
        raise _from_above("notation_error")(f"not a move: {move!r}")
    try:
        return operator.index(move)
    except TypeError:
        raise _from_above("notation_error")(f"not a move: {move!r} (give a move code or its notation)") from None


include "_core_state.pxi"


# Constants for the Python layer (the enum values above, by name)
SHIFT = MOVE_SHIFT
SECOND_GENERATOR = SECOND_STREAM
KINDS = {"draw": MV_DRAW, "deck": MV_DECK, "administrator": MV_ADMIN, "left": MV_LEFT,
         "right": MV_RIGHT, "new": MV_NEW, "horse": MV_HORSE, "close": MV_CLOSE, "stop": MV_STOP,
         "house": MV_HOUSE, "done": MV_DONE, "cartwright": MV_CART, "no_cartwright": MV_NOCART,
         "discard": MV_DISCARD}
PHASES = ("draw", "play", "after_play", "houses", "cartwright", "discard", "over")
OFFICIALS = ("postmaster", "administrator", "postal_carrier", "cartwright")
