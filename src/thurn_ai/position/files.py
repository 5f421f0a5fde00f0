"""JSON positions, files: the text of a position (one field a line), saving and loading position files,
and a one-line description of a position.
"""
from __future__ import annotations

import json

from .._core import GameState
from ..errors import PositionError
from ..fileio import atomic_write_text, load_json, path_text
from .build import position_from_dict
from .problems import position_error, problems_of
from .read import position_viewer
from .write import position_to_dict

WIDTH = 100          # saved files: line width


def dumps_position(d: dict) -> str:
    """JSON text: one field a line, short lists and objects kept on one line."""
    return _format(d, 0) + "\n"


def _format(v, depth: int) -> str:
    flat = json.dumps(v, ensure_ascii=False)
    if len(flat) + 2 * depth <= WIDTH or not isinstance(v, (dict, list)) or not v:
        return flat
    pad = "  " * (depth + 1)
    close = "\n" + "  " * depth + ("}" if isinstance(v, dict) else "]")
    if isinstance(v, dict):
        items = [f"{json.dumps(k, ensure_ascii=False)}: {_format(x, depth + 1)}" for k, x in v.items()]
    else:
        items = [_format(x, depth + 1) for x in v]
    if any(isinstance(x, (dict, list)) for x in (v.values() if isinstance(v, dict) else v)):
        return ("{" if isinstance(v, dict) else "[") + "\n" + ",\n".join(pad + x for x in items) + close
    # plain values (cities, counts): fill the lines
    lines, line = [], ""
    for item in items:
        if line and len(pad) + len(line) + len(item) + 2 > WIDTH:
            lines.append(line + ",")
            line = ""
        line = f"{line}, {item}" if line else item
    lines.append(line)
    return ("{" if isinstance(v, dict) else "[") + "\n" + "\n".join(pad + x for x in lines) + close


def save_position(state: GameState, path, viewer: int | None = None) -> None:
    atomic_write_text(path, dumps_position(position_to_dict(state, viewer)), what="position file")


def read_position_file(path):
    """The JSON data of a position file: PositionError naming the file for an unreadable or huge file,
    bytes that are not UTF-8, bad JSON, absurd nesting or numbers (thurn_ai.fileio.load_json)."""
    return load_json(path, "position file", PositionError)


def load_position(path, seed: int | None = None, board_file=None) -> tuple[GameState, int | None]:
    """A position file as (state, viewer): viewer is the seat whose view the file is, None if complete.
    The file names a packaged board; `board_file` (a path the user gave) replaces it."""
    data = read_position_file(path)
    return position_of_file(data, path, seed, board_file), position_viewer(data)


def position_of_file(data, path, seed: int | None = None, board_file=None) -> GameState:
    """The state of a position file's data (read_position_file), every problem in one PositionError
    naming the file."""
    try:
        return position_from_dict(data, seed, board_file)
    except PositionError as e:
        raise position_error(problems_of(e), path_text(path)) from None


def describe(state: GameState, viewer: int | None = None) -> str:
    """One line about a position: whose view, board, variant, players, turn, who is to do what, scores."""
    rules = state.rules
    view = "complete position" if viewer is None else f"seat {viewer}'s view"
    where = ("game over" if state.is_terminal()
             else f"seat {state.current_player} to move ({state.phase})")
    return (f"{view}, {rules.load_board().name} board, {rules.resolved_variant}, {rules.players} players, "
            f"turn {state.turn + 1}, {where}, scores {' / '.join(map(str, state.scores()))}")
