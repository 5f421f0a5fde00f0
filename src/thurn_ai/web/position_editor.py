"""Checking a position as it is set up in the page: the same checker as `thurn-ai validate`
(thurn_ai.position.check_position, then building the state). Each problem comes as its kind, its field
(the part of the position it is about, which the page's fields are named after: "seat1.route", "display",
"turn", ...) and its message, so the page shows it next to that field.
"""
from __future__ import annotations

from ..errors import PositionError, ThurnError
from ..fileio import loads_json
from ..position import (check_position, dumps_position, position_from_dict, position_to_dict, position_viewer,
                        problems_of)
from .views import state_view

MAX_POSITION_CHARS = 2 ** 20      # a position is a few kB


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
    """{ok, problems: [{kind, field, message}], ...}; when ok also the position as saved (`position`, the
    normalised dict of the same view, and `text`, as `save_position` writes it), and `view`, the page's
    data of it. Problems are the same as `thurn-ai validate` reports."""
    try:
        problems = check_position(data)
        # seed 0: a view's unknown cards are dealt the same way each time, so the answer is stable
        state = None if problems else position_from_dict(data, seed=0)
    except ThurnError as e:       # the board of a rules entry, a record that cannot be read at all
        problems, state = problems_of(e), None
    if state is None:
        return {"ok": False, "problems": [p.to_json() for p in problems]}
    viewer = position_viewer(data)
    normal = position_to_dict(state, viewer)
    return {"ok": True, "problems": [], "position": normal, "text": dumps_position(normal),
            "view": state_view(state, viewer)}
