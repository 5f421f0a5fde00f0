"""JSON positions: a readable form of a game state, complete or as one player sees it, with validation.

    position_to_dict(state, viewer=None) -> dict      # viewer: only what that seat may know
    position_from_dict(data, seed=None) -> GameState  # unknown cards are dealt at random (seeded)
    check_position(data) -> list[Problem]             # every problem: kind, field, message (empty: possible)
    check_state(state) -> list[Problem]               # the same rules on an engine state (tests, soak runs)
    save_position(state, path, viewer=None) / load_position(path, seed=None) -> (state, viewer)

The format is described field by field in docs/position-format.md. Positions name cities, tile stacks and
officials, never engine indices, and almost every bookkeeping field is optional, so a position can be
written by hand. A position converts to and from the engine's raw fields (GameState.export()/load()).

This module is the public face; the work is split by job:
    position_write   state -> position dict (what GameState.to_dict() calls)
    position_problems  Problem (kind, field, message), ProblemKind, the error that lists them
    position_read    position dict -> engine terms, one problem per malformed entry; the format's constants
    position_check   the consistency checks of a readable position, and of an engine state
    position_build   the state from a position (hidden cards dealt), check_position
    position_files   the text of a position, position files, describe()
"""
from __future__ import annotations

from .build import MAX_DEALS, check_position, position_from_dict
from .check import (BASE_HORSES, DISPLAY_SIZE, HAND_LIMIT, MAX_HORSE_CARDS, MIN_CLOSE,
                             SINGLE_TILE_KINDS, _valid_placement, check_state)  # noqa: F401 (notation.py uses it)
from .files import (WIDTH, describe, dumps_position, load_position, position_of_file, read_position_file,
                             save_position)
from .problems import FIELDS, SEAT_PARTS, Problem, ProblemKind, position_error, problems_of
from .read import (FORMAT, HOUSES, PLAYER_FIELDS, RULES_FIELDS, SECOND_GENERATOR, TOP_FIELDS,
                            TURN_FIELDS, VERSION, plural, position_viewer)
from .write import position_to_dict

__all__ = ["position_to_dict", "position_from_dict", "check_position", "check_state", "Problem", "ProblemKind",
           "problems_of", "FIELDS", "SEAT_PARTS", "position_viewer", "position_error",
           "dumps_position", "save_position", "read_position_file", "load_position", "position_of_file", "describe",
           "plural",
           "FORMAT", "VERSION", "SECOND_GENERATOR", "TOP_FIELDS", "PLAYER_FIELDS", "TURN_FIELDS",
           "RULES_FIELDS", "SINGLE_TILE_KINDS", "HOUSES", "HAND_LIMIT", "MIN_CLOSE", "BASE_HORSES",
           "MAX_HORSE_CARDS", "DISPLAY_SIZE", "MAX_DEALS", "WIDTH"]
