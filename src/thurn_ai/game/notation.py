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

from dataclasses import dataclass

from .._core import KINDS, SHIFT, GameState, valid_house_set
from .board import Board
from .officials import OFFICIAL_ALIASES, OFFICIAL_LABEL, OFFICIALS, PLAY_KINDS
from .rules import BASE_HORSES, HAND_LIMIT, MAX_HORSE_CARDS, MIN_CLOSE
from ..errors import IllegalMoveError, NotationError
from ..fileio import short_repr

NAMES = {v: k for k, v in KINDS.items()}
CITY_KINDS = {"draw", "left", "right", "new", "horse", "house", "discard"}
# other words for moves: the officials' other names (those that are a move) and a few of the moves'
ALIASES = {**{a: o for a, o in OFFICIAL_ALIASES.items() if o in KINDS},
           "end": "stop", "pass": "stop", "nocartwright": "no_cartwright", "no-cartwright": "no_cartwright",
           "no cartwright": "no_cartwright", "draw deck": "deck"}


def move_kind(move: int) -> str:
    return NAMES[move >> SHIFT]


def move_city(move: int) -> int:
    return move & ((1 << SHIFT) - 1)


def make_move(kind: str, city: int = 0) -> int:
    return KINDS[kind] << SHIFT | city


def move_to_str(board: Board, move: int) -> str:
    kind = NAMES.get(move >> SHIFT)
    if kind is None or (kind not in CITY_KINDS and move_city(move)):
        raise NotationError(f"not a move code: {move}")
    if kind == "deck":
        return "draw deck"
    if kind == "no_cartwright":
        return "no cartwright"
    if kind in CITY_KINDS:
        if move_city(move) >= board.n_cities:
            raise NotationError(f"not a move code: {move} (no city {move_city(move)} on this board)")
        return f"{kind} {board.cities[move_city(move)]}"
    return kind


def parse_move(board: Board, text: str, state=None) -> int:
    """The move code of `text`. With `state` (GameState.parse_move passes it), `left X` on a one-card
    route is read as `right X`: both ends of one card are the same end, and the engine lists that move
    once, as `right X`."""
    code = _parse(board, text)
    if state is not None and code >> SHIFT == KINDS["left"] and not state.is_terminal():
        right = make_move("right", move_city(code))
        if len(state.route(state.current_player)) == 1 and state.is_legal(right):
            code = right
    return code


def _parse(board: Board, text: str) -> int:
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
    """An IllegalMoveError that says why the move is not possible (when a rule explains it) and what is
    possible instead."""
    try:
        text = move_to_str(state.board, move)
    except NotationError:
        text = str(move)
    if state.is_terminal():
        return IllegalMoveError(f"illegal move {text!r}: the game is over")
    try:
        reason = why_illegal(state, move)
    except (NotationError, IndexError, KeyError):
        reason = None
    legal = state.legal_moves()
    if state.phase == "houses":      # the cities matter here: list them
        possible = [move_to_str(state.board, m) for m in legal]
    else:
        possible = sorted({move_kind(m) for m in legal})
    return IllegalMoveError(f"illegal move {text!r} for player {state.current_player} in the "
                            f"{state.phase} phase" + (f": {reason}" if reason else "")
                            + f"; possible now: {', '.join(possible)}")


PHASE_WORDS = {"draw": "the turn starts with drawing a card",
               "play": "a card has been drawn and one must be played",
               "after_play": "a card has been played this turn",
               "houses": "the route is being closed (placing houses)",
               "cartwright": "the route is being closed (the Cartwright is offered)",
               "discard": "the route has been closed (discarding down to the hand limit)"}


def why_illegal(state, move: int) -> str | None:
    """Why `move` is not legal in `state` (a sentence naming the rule), or None when no rule below
    explains it. Only for a move that is illegal."""
    b = state.board
    kind = NAMES.get(move >> SHIFT)
    x = move_city(move)
    if kind is None or (kind not in CITY_KINDS and x):
        return "not a move code"
    if kind in CITY_KINDS and not 0 <= x < b.n_cities:
        return "not a city of this board"
    city = b.cities[x] if kind in CITY_KINDS else None
    p, phase = state.current_player, state.phase
    t = state.turn_state()
    official, draws, plays, forced_pm, placed_now, last_discard = (
        t.official, t.draws, t.plays, t.forced_pm, t.placed_now, t.last_discard)
    used = OFFICIAL_LABEL[OFFICIALS[official - 1]] if official else None
    turn = _Turn(state, kind, x, city, p, phase, PHASE_WORDS.get(phase, phase), used, draws, plays, forced_pm,
                 placed_now, last_discard, state.route(p))
    return _WHY[kind](turn)


@dataclass(frozen=True)
class _Turn:
    """What the checks of why_illegal read: the move (kind, city index x, city name) and the turn so far."""
    state: GameState
    kind: str
    x: int
    city: str | None
    p: int                 # the player to move
    phase: str
    now: str               # the phase in words
    used: str | None       # the official used this turn (its label)
    draws: int
    plays: int
    forced_pm: int
    placed_now: int        # bit set of the houses placed in this closing
    last_discard: int
    route: list


def _why_draw(t: _Turn) -> str | None:
    if t.phase not in ("draw", "play"):
        return f"cards are drawn at the start of a turn; now {t.now}"
    if t.phase == "play":
        if t.forced_pm:
            return "the forced Postmaster (an empty hand) has drawn its two cards; now play one"
        if t.draws >= 2:
            return "two cards have been drawn (the second with the Postmaster); now play one"
        if t.used:
            return (f"a second draw is the Postmaster, and only one official a turn: the {t.used} "
                    "was used; now play a card")
    if t.kind == "draw" and t.city not in t.state.display():
        return f"{t.city} is not in the display ({', '.join(t.state.display()) or 'empty'})"
    if t.kind == "deck":
        return "the deck and the discard pile are empty"
    return None


def _why_administrator(t: _Turn) -> str | None:
    if t.phase != "draw" or t.draws:
        return "the Administrator replaces the display before the turn's first draw"
    if t.forced_pm:
        return "with an empty hand the turn starts with the forced Postmaster, not the Administrator"
    if t.used:
        return f"only one official a turn: the {t.used} is in use"
    return None


def _why_play(t: _Turn) -> str | None:
    """left, right, new, horse: when a card may be played, then whether it is held."""
    if t.kind == "horse" and t.state.rules.resolved_variant != "horses":
        return "draught horses belong to the horses variant"
    if t.phase == "draw":
        return "draw a card first"
    if t.phase not in ("play", "after_play"):
        return f"cards are played before closing; now {t.now}"
    if t.phase == "after_play":
        if t.plays >= 2:
            return "two cards have been played this turn"
        if t.used:
            return (f"a second card is the Postal Carrier, and only one official a turn: the {t.used} "
                    "was used")
    hand = t.state.hand(t.p)
    if t.city not in hand:
        return f"seat {t.p} holds no {t.city} card (hand: {_cards_text(hand)})"
    if t.kind == "horse":
        return f"a player has at most {MAX_HORSE_CARDS} horse cards"
    if t.kind == "new":
        if t.phase == "after_play" and t.route:
            return "a second card (Postal Carrier) extends the route; it cannot start a new one"
        return None
    return _why_not_at_end(t)


def _why_not_at_end(t: _Turn) -> str:
    """left, right: why the card held does not extend the route at that end."""
    b, route, city, kind = t.state.board, t.route, t.city, t.kind
    if not route:
        return f"seat {t.p} has no route yet: start one with 'new {city}'"
    if city in route:
        return f"{city} is on the route already"
    if len(route) == 1:
        return f"{city} has no road to {route[0]}, the route's only card"
    end = route[0] if kind == "left" else route[-1]
    other = route[-1] if kind == "left" else route[0]
    hint = ""
    if b.adjacent(t.x, b.city_index(other)) and len(route) > 1:
        hint = f" (it connects to {other}: play '{'right' if kind == 'left' else 'left'} {city}')"
    return f"{city} has no road to {end}, the {kind} end of the route{hint}"


def _why_end_turn(t: _Turn) -> str | None:
    """close, stop."""
    if t.phase != "after_play":
        return f"a turn ends (closing the route or not) after a card is played; now {t.now}"
    if t.kind == "stop":
        return None
    if len(t.route) < MIN_CLOSE:
        return f"a route needs {MIN_CLOSE} cards to be closed; seat {t.p}'s has {len(t.route)}"
    b = t.state.board
    pulling = BASE_HORSES + sum(b.horses[b.city_index(c)] * k for c, k in t.state.horse_cards(t.p).items())
    return f"a route of {len(t.route)} cards needs as many horses; seat {t.p} has {pulling}"


def _why_house(t: _Turn) -> str | None:
    """house, done."""
    if t.phase != "houses":
        return f"houses are placed while closing a route; now {t.now}"
    if t.kind == "done":
        return None
    state, city, p = t.state, t.city, t.p
    if city not in t.route:
        return f"{city} is not on the route being closed ({', '.join(t.route)})"
    if city in state.houses(p):
        return f"seat {p} has a house in {city} already"
    if not state.houses_left(p):
        return f"seat {p} has no houses left"
    return _why_not_one_placement(t)


def _why_not_one_placement(t: _Turn) -> str | None:
    """A house in a city of the route: the order of placing, or a set of houses the rules do not allow."""
    b, city = t.state.board, t.city
    placed = [b.cities[y] for y in range(b.n_cities) if t.placed_now >> y & 1]
    one_placement = valid_house_set(b, sum(1 << b.city_index(c) for c in placed) | 1 << t.x)   # the engine's rule
    if placed and b.city_index(placed[-1]) > t.x and one_placement:
        return (f"houses are placed in board order: place {city} first, then {placed[-1]} (after "
                f"{placed[-1]} only cities later in the board order can follow)")
    if not one_placement:
        assert city is not None             # a house move names its city
        cities = ", ".join(sorted(placed + [city], key=b.city_index))
        return (f"{cities} is not one placement: at most one city a province (and one free city), "
                "or cities of one province only")
    return None


def _why_cartwright(t: _Turn) -> str:
    """cartwright, no cartwright."""
    return ("the Cartwright is offered while closing, when the route is one or two cards short of "
            f"the next carriage; now {t.now}")


def _why_discard(t: _Turn) -> str:
    if t.phase != "discard":
        return f"cards are discarded after closing a route, down to {HAND_LIMIT}; now {t.now}"
    hand = t.state.hand(t.p)
    if t.city not in hand:
        return f"seat {t.p} holds no {t.city} card (hand: {_cards_text(hand)})"
    if t.last_discard and t.x < t.last_discard:
        return (f"discards are made in board order: after {t.state.board.cities[t.last_discard]} only cities "
                "later in the board order can follow")
    return ("discards are made in board order: discard the cards before "
            f"{t.city} first (the cards from {t.city} on are fewer than must go)")


# the check of each kind of move
_WHY = {"draw": _why_draw, "deck": _why_draw, "administrator": _why_administrator,
        **dict.fromkeys(PLAY_KINDS, _why_play),
        "close": _why_end_turn, "stop": _why_end_turn, "house": _why_house, "done": _why_house,
        "cartwright": _why_cartwright, "no_cartwright": _why_cartwright, "discard": _why_discard}


def _cards_text(counts: dict) -> str:
    return ", ".join(f"{k}× {c}" if k > 1 else c for c, k in counts.items()) or "empty"
