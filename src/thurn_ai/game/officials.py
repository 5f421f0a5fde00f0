"""The four officials, the other names they are known by, and the stages of a game in which their use is
counted: the one home of these facts (notation, bot specs, bots, statistics, plots, the officials study
and the CLI all read them from here).

A game *stage* (early, middle, late: how far the houses are placed) is not a *phase* (the decision due
now: draw, play, ..., thurn_ai._core.PHASES)."""
from __future__ import annotations

from .._core import KINDS, OFFICIALS, SHIFT, GameState   # noqa: F401 (OFFICIALS: the engine's order is its codes)
from .rules import HOUSES

OFFICIAL_LABEL = {"postmaster": "Postmaster", "administrator": "Administrator",
                  "postal_carrier": "Postal Carrier", "cartwright": "Cartwright"}
#: other names an official may be given (bot specs' forbid=, move notation): short forms and the German
#: game's names
OFFICIAL_ALIASES = {"admin": "administrator", "amtmann": "administrator", "carrier": "postal_carrier",
                    "postillion": "postal_carrier", "postmeister": "postmaster", "wagner": "cartwright"}

#: stages of a game by the houses the leading player has placed, a third of the supply each
STAGES = ("early", "middle", "late")


def official_name(text: str) -> str | None:
    """The official `text` names ('Postal-Carrier', 'wagner', ...), or None if it names none."""
    name = text.strip().lower().replace("-", "_")
    name = OFFICIAL_ALIASES.get(name, name)
    return name if name in OFFICIALS else None


#: the moves that play a card (a second one in a turn is the Postal Carrier); notation lists them too
PLAY_KINDS = ("left", "right", "new", "horse")
_DRAWS = {KINDS["draw"], KINDS["deck"]}
_PLAYS = {KINDS[k] for k in PLAY_KINDS}


def official_of(state: GameState, move: int) -> str | None:
    """'postmaster', 'administrator', 'postal_carrier', 'cartwright' or None for an ordinary move.

    The forced Postmaster (empty hand at the start of the turn) is not a choice and returns None."""
    kind = move >> SHIFT
    if kind == KINDS["administrator"]:
        return "administrator"
    if kind == KINDS["cartwright"]:
        return "cartwright"
    phase = state.phase
    if kind in _DRAWS and phase == "play":
        return "postmaster"
    if kind in _PLAYS and phase == "after_play":
        return "postal_carrier"
    return None


def stage_of(placed: int) -> str:
    """early / middle / late for a game whose leading player has placed `placed` houses."""
    return STAGES[0] if 3 * placed < HOUSES else (STAGES[1] if 3 * placed < 2 * HOUSES else STAGES[2])


def game_stage(state: GameState) -> str:
    """early / middle / late, by the houses already placed (a third of the supply each)."""
    return stage_of(max(HOUSES - state.houses_left(p) for p in range(state.n_players)))   # not a whole export()


def possible_officials(state) -> list[str]:
    """The officials the player to move could still use this turn, at its first decision (a generous
    check, so no option is missed): the Administrator if it is offered now; the Postmaster if two cards
    can be drawn; the Postal Carrier with a card in hand (after a draw and a play one remains); the
    Cartwright in the classic variant if one card more and the Cartwright's reach make the next carriage."""
    t = state.turn_state()
    if t.forced_pm or t.official:
        return []
    p = state.current_player
    out = []
    if any(official_of(state, m) == "administrator" for m in state.legal_moves()):
        out.append("administrator")
    if t.display_n + t.deck_n + t.discard_n >= 2:
        out.append("postmaster")
    if sum(state.hand(p).values()) >= 1:
        out.append("postal_carrier")
    sizes = [s for s, _pts in state.board.carriages]
    have = state.carriage(p)
    if state.rules.resolved_variant == "classic" and sizes and (have is None or have < sizes[-1]):
        nxt = next(s for s in sizes if have is None or s > have)
        if len(state.route(p)) + 1 + state.rules.cartwright_reach >= nxt:
            out.append("cartwright")
    return [o for o in OFFICIALS if o in out]
