"""The board as the page draws it: cities with screen coordinates, provinces, roads, tile stacks and
carriages, as JSON-ready data.

City positions come from the same place as the `--png` drawing (thurn_ai.render.board.board_layout: the
board's layout file, or a layout computed from the roads), scaled into an SVG box with north up.
"""
from __future__ import annotations

from functools import lru_cache

from ..game.board import Board, packaged_board
from ..render.board import board_layout

WIDTH = 1000         # SVG units across; the height follows the board's shape
MARGIN = 70          # room for labels at the edges


def province_codes(board: Board) -> list[str]:
    """A short, unique code per province (printed inside each city, so colour is never the only cue):
    the first three letters, lengthened where two provinces would share them."""
    codes: list[str] = []
    for name in board.provinces:
        n = 3
        while name[:n] in codes and n < len(name):
            n += 1
        code = name[:n]
        k = 2
        while code in codes:        # two provinces with the same name prefix all the way
            code = f"{name[:3]}{k}"
            k += 1
        codes.append(code)
    return codes


def tile_label(board: Board, stack) -> str:
    """A tile stack in words, as a player names it ('every city of Baden', 'a route of 7 cities or more')."""
    names = [board.provinces[k] for k in stack.provinces]
    if stack.kind == "route":
        return f"a route of {stack.length} cities or more"
    if stack.kind == "each_province":
        but = [board.provinces[k] for k in stack.excluded]
        return "a house in every province" + (f" but {' and '.join(but)}" if but else "")
    if stack.kind == "all_cities":
        return f"every city of {' and '.join(names)}"
    if stack.kind == "free_city":
        return f"a house in {' and '.join(board.cities[c] for c in sorted(stack.cities))}"
    if stack.kind == "game_end":
        return "the game-end tile"
    return stack.id


@lru_cache(maxsize=8)
def _geometry(board: Board) -> dict:
    pos = board_layout(board)
    xs = [pos[i][0] for i in range(board.n_cities)]
    ys = [pos[i][1] for i in range(board.n_cities)]
    span_x = (max(xs) - min(xs)) or 1.0
    span_y = (max(ys) - min(ys)) or 1.0
    scale = (WIDTH - 2 * MARGIN) / span_x
    height = round(span_y * scale + 2 * MARGIN)
    codes = province_codes(board)
    cities = []
    for i, name in enumerate(board.cities):
        prov = board.city_province[i]
        cities.append({"name": name, "index": i, "province": prov,
                       "province_name": board.provinces[prov] if prov >= 0 else None,
                       "code": codes[prov] if prov >= 0 else "free",
                       "x": round(MARGIN + (xs[i] - min(xs)) * scale, 1),
                       # latitude grows northwards, SVG y grows downwards
                       "y": round(MARGIN + (max(ys) - ys[i]) * scale, 1),
                       "horses": board.horses[i]})
    return {
        "name": board.name, "title": board.title, "notice": board.notice,
        "default_variant": board.default_variant, "width": WIDTH, "height": height,
        "cards_per_city": board.cards_per_city,
        "provinces": [{"index": k, "name": p, "code": codes[k]} for k, p in enumerate(board.provinces)],
        "cities": cities,
        "roads": [[board.cities[a], board.cities[b]] for a, b in board.roads],
        "tiles": [{"id": st.id, "kind": st.kind, "values": list(st.values), "length": st.length,
                   "label": tile_label(board, st)} for st in board.tiles],
        "carriages": [{"size": s, "points": p} for s, p in board.carriages],
    }


def board_geometry(board: Board | str) -> dict:
    """The page's data of a board: a packaged board by name ('south', 'north') or a Board object."""
    if not isinstance(board, Board):
        board = packaged_board(board)
    return _geometry(board)
