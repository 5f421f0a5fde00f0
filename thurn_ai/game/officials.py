"""The four officials and the game phases in which their use is counted: the one home of these facts
(bots, statistics, plots, the officials study and the CLI all read them from here)."""
from __future__ import annotations

from .._core import KINDS, SHIFT, GameState
from .rules import HOUSES

OFFICIALS = ("postmaster", "administrator", "postal_carrier", "cartwright")
OFFICIAL_LABEL = {"postmaster": "Postmaster", "administrator": "Administrator",
                  "postal_carrier": "Postal Carrier", "cartwright": "Cartwright"}

# move kind code -> name, the core's table (thurn_ai.game.notation imports this module for the officials'
# labels, so it is not imported back)
_KIND_NAME = {code: name for name, code in KINDS.items()}

#: phases of a game by the houses the leading player has placed, a third of the supply each
PHASES = ("early", "middle", "late")


def official_of(state: GameState, move: int) -> str | None:
    """'postmaster', 'administrator', 'postal_carrier', 'cartwright' or None for an ordinary move.

    The forced Postmaster (empty hand at the start of the turn) is not a choice and returns None."""
    kind = _KIND_NAME.get(move >> SHIFT)   # what notation.move_kind says
    phase = state.phase
    if kind == "administrator":
        return "administrator"
    if kind == "cartwright":
        return "cartwright"
    if kind in ("draw", "deck") and phase == "play":
        return "postmaster"
    if kind in ("left", "right", "new", "horse") and phase == "after_play":
        return "postal_carrier"
    return None


def game_phase(state: GameState) -> str:
    """early / middle / late, by the houses already placed (a third of the supply each)."""
    placed = max(HOUSES - state.houses_left(p) for p in range(state.n_players))   # not a whole export()
    return PHASES[0] if 3 * placed < HOUSES else (PHASES[1] if 3 * placed < 2 * HOUSES else PHASES[2])
