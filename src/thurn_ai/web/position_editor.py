"""Checking a position as it is set up in the page: the same checks as `thurn-ai validate`
(thurn_ai.position.check_position, then building the state), each problem tagged with the field of the
editor it belongs to, so the page can show it next to that field.
"""
from __future__ import annotations

import re

from ..errors import PositionError, ThurnError
from ..fileio import loads_json
from ..position import dumps_position, position_from_dict, position_to_dict, position_viewer
from ..position.build import check_position
from .views import state_view

MAX_POSITION_CHARS = 2 ** 20      # a position is a few kB

# (pattern, field): the first pattern that matches a problem's message names its field. Seat fields are
# "seat<N>.<part>"; the rest name a part of the editor. The messages come from thurn_ai/position/read.py
# and thurn_ai/position/check.py, which start each with the field they are about.
_SEAT_PART = re.compile(r"^seat (\d+)[: ]+(hand_size|hand|known|route|horse_cards|houses|tiles|carriage|"
                        r"official_uses|closes)\b")
_FIELDS = [
    (re.compile(r"^seat (\d+): (known card|\d+ known card)"), "known"),
    (re.compile(r"^seat (\d+): .*house"), "houses"),
    (re.compile(r"^seat (\d+): (carriage|.*carriage)"), "carriage"),
    (re.compile(r"^seat (\d+): .*horse card"), "horse_cards"),
    (re.compile(r"^seat (\d+): give either hand"), "hand"),
    (re.compile(r"^seat (\d+) is the viewer"), "hand"),
    (re.compile(r"^seat (\d+) holds (tile|the game-end tile|\d+ tiles)"), "tiles"),
    (re.compile(r"^seat (\d+) has the .*carriage"), "carriage"),
    (re.compile(r"^seat (\d+) has placed all"), "houses"),
]
_GENERAL = [
    (re.compile(r"^(the )?display"), "display"),
    (re.compile(r"^discard"), "discard"),
    (re.compile(r"^(tile_stacks|tile stack|the end was triggered)"), "tiles"),
    (re.compile(r"^(turn_state|phase|unknown phase|to_move|turn |no way of dealing|truncated|end_triggered_by)"),
     "turn"),
    (re.compile(r"^(rules|the rules are for|players must|viewer)"), "rules"),
    (re.compile(r"^(city |deck|with the deck given|the hands given by size|\d+ cards are not accounted)"),
     "cards"),
]
PART_ALIASES = {"hand_size": "hand"}


def problem_field(message: str) -> str:
    """The editor field a problem message is about: 'seat1.route', 'display', 'turn', 'cards', ... or
    'position' when no field fits."""
    m = _SEAT_PART.match(message)
    if m:
        return f"seat{m.group(1)}.{PART_ALIASES.get(m.group(2), m.group(2))}"
    for pattern, part in _FIELDS:
        m = pattern.match(message)
        if m:
            return f"seat{m.group(1)}.{part}"
    for pattern, field in _GENERAL:
        if pattern.match(message):
            return field
    return "position"


def parse_position_text(text) -> dict:
    """A position's JSON text as data; PositionError for text that is not a JSON object."""
    if not isinstance(text, str):
        raise PositionError("a position is JSON text")
    if len(text) > MAX_POSITION_CHARS:
        raise PositionError(f"the text is longer than {MAX_POSITION_CHARS:,} characters; it cannot be a position")
    data = loads_json(text.lstrip("\ufeff"), "the position", PositionError)
    if not isinstance(data, dict):
        raise PositionError("a position is a JSON object {...}")
    return data


def check_for_editor(data) -> dict:
    """{ok, problems: [{field, message}], ...}; when ok also the position as saved (`position`, the
    normalised dict of the same view, and `text`, as `save_position` writes it), and `view`, the page's
    data of it. Problems are the same as `thurn-ai validate` reports."""
    try:
        problems = check_position(data)
    except ThurnError as e:       # the board of a rules entry, a record that cannot be read at all
        problems = getattr(e, "problems", None) or [str(e)]
    if problems:
        return {"ok": False, "problems": [{"field": problem_field(p), "message": p} for p in problems]}
    # seed 0: a view's unknown cards are dealt the same way each time, so the answer is stable
    try:
        state = position_from_dict(data, seed=0)
    except PositionError as e:
        problems = getattr(e, "problems", None) or [str(e)]
        return {"ok": False, "problems": [{"field": problem_field(p), "message": p} for p in problems]}
    viewer = position_viewer(data)
    normal = position_to_dict(state, viewer)
    return {"ok": True, "problems": [], "position": normal, "text": dumps_position(normal),
            "view": state_view(state, viewer)}
