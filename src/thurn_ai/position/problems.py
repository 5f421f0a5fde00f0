"""JSON positions, problems as values: what is wrong (`ProblemKind`), which part of the position it is about
(`field`) and a sentence for a person (`message`). The command line prints the messages, the web editor
shows each next to its field, and the tests assert on the kinds (as python-chess's `Board.status()`
returns named flags rather than text).
"""
from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from ..errors import PositionError, ThurnError


class ProblemKind(Enum):
    """What is wrong with a position. The value is the name the web API and `validate --json` use."""
    # the position cannot be read as written
    NOT_AN_OBJECT = "not_an_object"              # the position (or its players) is not what the format says
    UNREADABLE = "unreadable"                    # not read at all: a board file or a record that fails
    UNKNOWN_FIELD = "unknown_field"
    WRONG_FORMAT = "wrong_format"                # "format" is not "thurn-ai position"
    UNSUPPORTED_VERSION = "unsupported_version"
    WRONG_TYPE = "wrong_type"                    # e.g. text where a whole number or a list belongs
    OUT_OF_RANGE = "out_of_range"                # a whole number outside what the field allows
    UNKNOWN_CITY = "unknown_city"
    UNKNOWN_OFFICIAL = "unknown_official"
    UNKNOWN_PHASE = "unknown_phase"
    UNKNOWN_TILE_STACK = "unknown_tile_stack"
    BAD_RULES = "bad_rules"                      # rules the game cannot be played with
    PLAYER_COUNT = "player_count"                # the rules and the list of players disagree
    SEAT_MISNUMBERED = "seat_misnumbered"
    HAND_TWICE = "hand_twice"                    # both hand and hand_size
    HOUSE_TWICE = "house_twice"                  # one city listed twice among a player's houses
    NO_SUCH_CARRIAGE = "no_such_carriage"
    STACK_REMAINDER = "stack_remainder"          # tile_stacks: not what can remain of a stack
    COUNTER_OVERFLOW = "counter_overflow"        # a counter the engine could not count up to
    # the position is readable but no game reaches it
    ROUTE_REPEATS_CITY = "route_repeats_city"
    ROUTE_NOT_JOINED = "route_not_joined"        # two cities of a route without a road between them
    KNOWN_NOT_IN_HAND = "known_not_in_hand"
    HOUSE_COUNT = "house_count"                  # houses placed and left do not make a player's supply
    HORSE_CARDS_OUTSIDE_VARIANT = "horse_cards_outside_variant"
    TOO_MANY_HORSE_CARDS = "too_many_horse_cards"
    END_NOT_TRIGGERED = "end_not_triggered"      # a condition for the end is met, but the end was not triggered
    END_WITHOUT_CAUSE = "end_without_cause"      # the end was triggered by a player who met no condition for it
    TOO_MANY_CARDS = "too_many_cards"            # more cards of a city than the game has
    CARDS_UNACCOUNTED = "cards_unaccounted"      # the cards do not add up with the deck and hidden hands
    DECK_SIZE = "deck_size"                      # deck_size disagrees with the cards left for the deck
    DISPLAY_OVERFULL = "display_overfull"
    DISPLAY_NOT_REFILLED = "display_not_refilled"
    TILE_TAKEN_TWICE = "tile_taken_twice"        # a tile a player takes once, held twice
    TILES_NOT_CONSERVED = "tiles_not_conserved"  # the tiles held are not the tiles taken from the stack
    TILE_WITHOUT_HOUSES = "tile_without_houses"
    FREE_CITY_TILE = "free_city_tile"            # a house in the free city, but its tile still on the stack
    GAME_END_TILE = "game_end_tile"              # the game-end tile and the end's trigger disagree
    TURN_STATE = "turn_state"                    # draws, plays and official used that no turn reaches
    CLOSE_IMPOSSIBLE = "close_impossible"        # a route being closed that cannot be (length, horses, carriage)
    HOUSE_PLACEMENT = "house_placement"          # close_houses that are not one placement
    DISCARD_ORDER = "discard_order"
    TRUNCATED_NOT_OVER = "truncated_not_over"
    VIEWER_HAND_HIDDEN = "viewer_hand_hidden"    # the viewer's own hand given only by its size
    NO_DEAL = "no_deal"                          # no deal of the unknown cards leaves the mover a legal move
    # engine states only (check_state): a count or flag the engine keeps beside what it describes
    BOOKKEEPING = "bookkeeping"


# The parts of a position a problem can be about (`Problem.field`), as the web editor groups them:
# a seat's own entries, "seat<N>.<part>" (and "seat<N>" for the seat's entry as a whole), and these.
SEAT_PARTS = ("hand", "known", "route", "horse_cards", "houses", "carriage", "tiles", "official_uses", "closes")
FIELDS = ("position",   # the position as a whole: format, version, rng, fields it does not know
          "rules",      # rules, the number of players, viewer
          "turn",       # to_move, turn, phase, turn_state, end_triggered_by, truncated
          "display", "discard",
          "cards",      # deck, deck_size and the cards adding up over all places
          "tiles")      # tile_stacks and the tiles adding up over all players


def seat_field(seat: int, part: str = "") -> str:
    """The field of a seat's entry: 'seat1.route' (hand_size is part 'hand', houses_left 'houses')."""
    return f"seat{seat}.{part}" if part else f"seat{seat}"


@dataclass(frozen=True)
class Problem:
    """One problem of a position: its kind, the part of the position it is about, a sentence for a person."""
    kind: ProblemKind
    field: str
    message: str

    def __str__(self) -> str:
        return self.message

    def to_json(self) -> dict:
        return {"kind": self.kind.value, "field": self.field, "message": self.message}


def position_error(problems: list[Problem], source: str = "") -> PositionError:
    """One PositionError naming every problem (its `problems` attribute keeps them)."""
    head = f"{source}: " if source else ""
    if len(problems) == 1:
        msg = head + problems[0].message
    else:
        msg = f"{head}{len(problems)} problems:\n" + "\n".join(f"  - {p.message}" for p in problems)
    return PositionError(msg, problems)


def problems_of(e: ThurnError) -> list[Problem]:
    """The problems an error names: a PositionError's own, or the error as one problem of the position
    (a board file or a file that could not be read at all)."""
    if isinstance(e, PositionError) and e.problems:
        return list(e.problems)
    return [Problem(ProblemKind.UNREADABLE, "position", str(e))]
