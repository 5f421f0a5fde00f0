"""Which official (if any) a move would use, so bots can be restricted and usage counted."""
from __future__ import annotations

from .._core import GameState
from ..notation import move_kind

OFFICIALS = ("postmaster", "administrator", "postal_carrier", "cartwright")


def official_of(state: GameState, move: int) -> str | None:
    """'postmaster', 'administrator', 'postal_carrier', 'cartwright' or None for an ordinary move.

    The forced Postmaster (empty hand at the start of the turn) is not a choice and returns None."""
    kind = move_kind(move)
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
