"""The board drawing (thurn_ai.render.board): where the cities go (board_layout, the same places for the
--png drawing and the web board), what the drawing shows, and the PNG file it writes."""
from __future__ import annotations

import json
import math
import struct

import matplotlib.pyplot as plt
import pytest
from matplotlib.colors import to_rgba

import thurn_ai
from thurn_ai.errors import ThurnError
from thurn_ai.game.board import BOARD_DIR, load_board
from thurn_ai.render.board import PLAYER_COLORS, board_layout, draw_position, save_png, spring_layout

BOARDS = ("south", "north")


def midgame(board, players=3, seed=5, moves=600):
    """A position some way into a random game: routes, houses and tiles on the board."""
    g = thurn_ai.new_game(board=board, players=players, seed=seed)
    for _ in range(moves):
        if g.is_terminal():
            break
        g.apply_random()
    assert any(g.houses(p) for p in range(players))
    return g


def distance(a, b):
    return math.hypot(a[0] - b[0], a[1] - b[1])


@pytest.mark.parametrize("board", BOARDS)
def test_the_layout_places_every_city_apart(board):
    b = thurn_ai.Rules(board=board).load_board()
    pos = board_layout(b)
    assert sorted(pos) == list(range(b.n_cities))
    pts = list(pos.values())
    assert all(math.isfinite(x) and math.isfinite(y) for x, y in pts)
    span = max(max(p[0] for p in pts) - min(p[0] for p in pts), max(p[1] for p in pts) - min(p[1] for p in pts))
    closest = min(distance(a, c) for i, a in enumerate(pts) for c in pts[i + 1:])
    assert closest > span * 0.03         # no two markers on top of each other


@pytest.mark.parametrize("board,west,east,south,north", [
    ("south", "Basel", "Lodz", "Innsbruck", "Würzburg"),
    ("north", "Amsterdam", "Berlin", "Darmstadt", "Lübeck")])
def test_the_layout_is_a_map_east_right_north_up(board, west, east, south, north):
    b = thurn_ai.Rules(board=board).load_board()
    pos = board_layout(b)
    at = {name: pos[i] for i, name in enumerate(b.cities)}
    assert at[west][0] < at[east][0]
    assert at[south][1] < at[north][1]


def test_a_board_without_a_layout_file_gets_the_computed_layout(tmp_path):
    data = json.loads((BOARD_DIR / "south.json").read_text(encoding="utf-8"))
    data["name"] = "elsewhere"
    path = tmp_path / "elsewhere.json"
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    b = load_board(str(path))
    assert not (BOARD_DIR / f"{b.name}_layout.json").exists()
    assert board_layout(b) == spring_layout(b)


def test_the_computed_layout_is_fixed_and_keeps_roads_short():
    b = thurn_ai.Rules(board="south").load_board()
    pos = spring_layout(b, iterations=150)
    assert pos == spring_layout(b, iterations=150)         # deterministic
    roads = [distance(pos[a], pos[c]) for a, c in b.roads]
    far = [distance(pos[a], pos[c]) for a in range(b.n_cities) for c in range(a + 1, b.n_cities)
           if not b.adjacent(a, c)]
    assert sum(roads) / len(roads) < sum(far) / len(far)   # roads are shorter than non-roads on average


@pytest.mark.parametrize("board", BOARDS)
def test_the_drawing_shows_every_city_and_house_inside_the_map(board):
    g = midgame(board)
    b = g.board
    pos = board_layout(b)
    fig = draw_position(g)
    try:
        ax = fig.axes[0]
        (x0, x1), (y0, y1) = ax.get_xlim(), ax.get_ylim()
        labels = {t.get_text().split(" (")[0]: t.xy for t in ax.texts}
        assert set(labels) == set(b.cities)
        for i, name in enumerate(b.cities):
            assert tuple(labels[name]) == pytest.approx(pos[i])
            assert x0 < pos[i][0] < x1 and y0 < pos[i][1] < y1, name
        # one square per house, in its seat's colour, next to the city it stands in
        span = max(x1 - x0, y1 - y0)
        for p in range(g.n_players):
            drawn = [c.get_offsets()[0] for c in ax.collections
                     if len(c.get_facecolor()) and tuple(c.get_facecolor()[0]) == to_rgba(PLAYER_COLORS[p])]
            assert len(drawn) == len(g.houses(p))
            near = {b.cities[min(pos, key=lambda i: distance(pos[i], xy))] for xy in drawn}
            assert near == g.houses(p)
            assert all(x0 < x < x1 and y0 < y < y1 and min(distance(pos[i], (x, y)) for i in pos) < span * 0.05
                       for x, y in drawn)
    finally:
        plt.close(fig)


def panel_text(g, viewer):
    fig = draw_position(g, viewer=viewer)
    try:
        return "\n".join(t.get_text() for t in fig.axes[1].texts)
    finally:
        plt.close(fig)


def test_the_panel_shows_only_what_the_viewer_may_know():
    g = midgame("south", players=2)
    other = g.determinize(0, seed=11)          # seat 0's unknowns dealt again
    assert panel_text(other, 0) == panel_text(g, 0)
    assert panel_text(other, None) != panel_text(g, None)


def png_size(path):
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR"
    return struct.unpack(">II", data[16:24]), len(data)


def test_save_png_writes_a_picture_of_the_position(tmp_path):
    out = tmp_path / "position.png"
    out.write_bytes(b"old")
    save_png(midgame("north", players=4), out, viewer=2)
    (width, height), size = png_size(out)
    assert width > height > 300
    assert size > 20_000
    assert list(tmp_path.iterdir()) == [out]           # no temporary file left behind


def test_save_png_to_a_missing_folder_is_a_thurn_error(tmp_path):
    with pytest.raises(ThurnError, match="cannot write"):
        save_png(thurn_ai.new_game(seed=1), tmp_path / "no" / "such" / "x.png")
