"""Drawing a position with matplotlib (Agg backend, no display needed).

    from thurn_ai.render.board import draw_position, save_png
    save_png(state, "position.png", viewer=None)

The map shows the roads, the cities coloured by province (free cities white), each player's houses as
small squares around the city, and each player's current route as a thick line. A panel beside it lists
the display, the deck, each player's hand as the viewer may know it (their own in full, the others' as a
size plus the cards known from the display), routes, carriages or horses, tiles, and the tiles left.

City positions come from thurn_ai/game/boards/<board>_layout.json (approximate longitude/latitude); a board
file without one gets a force-directed layout computed from its roads.
"""
from __future__ import annotations

import json
import math
import textwrap
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from matplotlib.lines import Line2D  # noqa: E402
from matplotlib.patches import Patch  # noqa: E402

from ..game.board import BOARD_DIR, Board, fold  # noqa: E402
from ..errors import ThurnError  # noqa: E402
from ..fileio import atomic_savefig, path_text  # noqa: E402
from .text import cards, count, tile_name  # noqa: E402

PLAYER_COLORS = ("#d62728", "#1f77b4", "#2ca02c", "#ff7f0e")
PLAYER_NAMES = ("red", "blue", "green", "orange")
PROVINCE_COLORS = ("#fbe3a1", "#b9d8f2", "#cfe8b8", "#f6c6d6", "#d9c9ef", "#c8ece6", "#f3d1b5",
                   "#e0e0a8", "#d4d4d4", "#b5e0f0", "#f0c0a0", "#c0c0f0")
FREE_CITY_COLOR = "#ffffff"


# ---------------------------------------------------------------- layout

def board_layout(board: Board) -> dict[int, tuple[float, float]]:
    """City index -> (x, y) for drawing: from the board's layout file if there is one, else computed."""
    path = BOARD_DIR / f"{board.name}_layout.json"
    if path.exists():
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
        coords = {fold(k): v for k, v in data.get("cities", {}).items()}
        if all(fold(c) in coords for c in board.cities):
            lat0 = math.radians(sum(coords[fold(c)][1] for c in board.cities) / board.n_cities)
            # longitude shrinks with latitude: scale it so distances look right
            return {i: (coords[fold(c)][0] * math.cos(lat0), coords[fold(c)][1])
                    for i, c in enumerate(board.cities)}
    return spring_layout(board)


def spring_layout(board: Board, iterations: int = 300) -> dict[int, tuple[float, float]]:
    """A deterministic force-directed layout (roads pull, all cities push apart)."""
    n = board.n_cities
    angle = np.linspace(0, 2 * np.pi, n, endpoint=False)
    pos = np.c_[np.cos(angle), np.sin(angle)] * 2.0
    k = 1.0
    for step in range(iterations):
        delta = pos[:, None, :] - pos[None, :, :]
        dist = np.linalg.norm(delta, axis=-1) + np.eye(n)
        force = (delta / dist[..., None] ** 2 * k * k).sum(axis=1)
        for a, b in board.roads:
            d = pos[a] - pos[b]
            length = np.linalg.norm(d) + 1e-9
            pull = d / length * (length * length / k)
            force[a] -= pull
            force[b] += pull
        temp = 0.1 * (1 - step / iterations) + 0.005
        norm = np.linalg.norm(force, axis=1, keepdims=True) + 1e-9
        pos += force / norm * np.minimum(norm, temp)
    return {i: (float(x), float(y)) for i, (x, y) in enumerate(pos)}


# ---------------------------------------------------------------- drawing

def _panel_text(state, viewer) -> list[tuple[str, str]]:
    """(text, colour) blocks for the side panel."""
    d = state.export()
    b = state.board
    horses = state.rules.resolved_variant == "horses"
    english = state.rules.all_provinces_tile == "english"
    scores = state.scores()
    wrap = textwrap.TextWrapper(width=54, subsequent_indent="      ")
    blocks = []
    head = [f"turn {d['turn'] + 1}, seat {d['current']} to move ({state.phase})"
            if not state.is_terminal() else f"game over after {d['turn']} turns",
            *wrap.wrap(f"display: {cards(b, d['display'])}"),
            f"deck: {count(d['deck_n'], 'card')}, discard pile: {count(d['discard_n'], 'card')}"]
    if d["end_triggered"]:
        head.append(f"the end was triggered by seat {d['end_player']}"
                    + ("" if state.is_terminal() else ": this is the last round"))
    blocks.append(("\n".join(head), "black"))
    for p in range(state.n_players):
        lines = [f"seat {p} ({PLAYER_NAMES[p]})" + (" - viewer" if viewer == p else "")
                 + f": score {scores[p]}, houses left {d['houses_left'][p]}"]
        if viewer is None or viewer == p:
            lines += wrap.wrap(f"  hand: {cards(b, d['hand'][p])}")
        else:
            known = cards(b, d["known"][p])
            lines += wrap.wrap(f"  hand: {count(sum(d['hand'][p]), 'card')}"
                               + (f", known: {known}" if known != "-" else ""))
        route = " - ".join(b.cities[x] for x in d["route"][p]) or "-"
        lines += wrap.wrap(f"  route ({len(d['route'][p])}): {route}")
        if horses:
            cap = state.rules.base_horses + sum(k * b.horses[x] for x, k in enumerate(d["horse_cards"][p]))
            lines.append(f"  horses: {cap} ({sum(d['horse_cards'][p])} horse cards)")
        else:
            k = d["carriage"][p]
            lines.append(f"  carriage: {b.carriages[k][0]} ({b.carriages[k][1]} points)" if k >= 0
                         else "  carriage: none")
        tiles = [f"{tile_name(b, st, english)} {d['tiles_pts'][p][t]}" for t, st in enumerate(b.tiles)
                 if d["tiles_n"][p][t]]
        lines += wrap.wrap("  tiles: " + (", ".join(tiles) if tiles else "-"))
        blocks.append(("\n".join(lines), PLAYER_COLORS[p]))
    left = [f"{tile_name(b, st, english)} {'/'.join(map(str, st.values[d['stack_pos'][t]:]))}"
            for t, st in enumerate(b.tiles) if d["stack_pos"][t] < len(st.values)]
    blocks.append(("\n".join(wrap.wrap("tiles left: " + ("; ".join(left) if left else "-"))), "black"))
    return blocks


def draw_position(state, viewer: int | None = None, title: str | None = None):
    """A matplotlib Figure of the position as `viewer` may know it (everything when None)."""
    b = state.board
    d = state.export()
    pos = board_layout(b)
    xs = np.array([pos[i][0] for i in range(b.n_cities)])
    ys = np.array([pos[i][1] for i in range(b.n_cities)])
    span = max(xs.max() - xs.min(), ys.max() - ys.min()) or 1.0
    r = span * 0.022                     # house-marker distance from the city centre

    fig = plt.figure(figsize=(16, 9), dpi=100)
    ax = fig.add_axes((0.01, 0.07, 0.6, 0.86))
    panel = fig.add_axes((0.62, 0.02, 0.37, 0.9))
    panel.axis("off")

    for a, c in b.roads:
        ax.plot([xs[a], xs[c]], [ys[a], ys[c]], color="#9a9a9a", lw=1.4, zorder=1)

    # current routes: thick lines, shifted a little per seat so that routes sharing roads stay visible
    n = state.n_players
    for p in range(n):
        route = d["route"][p]
        if not route:
            continue
        off = (p - (n - 1) / 2) * span * 0.006
        rx = xs[route] + off
        ry = ys[route] + off
        ax.plot(rx, ry, color=PLAYER_COLORS[p], lw=6, alpha=0.75, solid_capstyle="round", zorder=2)
        ax.scatter(rx, ry, s=520, facecolors="none", edgecolors=PLAYER_COLORS[p], linewidths=2.5, zorder=3)

    for i, name in enumerate(b.cities):
        prov = b.city_province[i]
        color = FREE_CITY_COLOR if prov < 0 else PROVINCE_COLORS[prov % len(PROVINCE_COLORS)]
        ax.scatter([xs[i]], [ys[i]], s=330, c=color, edgecolors="black",
                   linewidths=2.0 if prov < 0 else 0.8, marker="s" if prov < 0 else "o", zorder=4)
        label = name + (f" ({b.horses[i]}h)" if state.rules.resolved_variant == "horses" else "")
        ax.annotate(label, (xs[i], ys[i]), xytext=(0, -17), textcoords="offset points", ha="center",
                    va="top", fontsize=9, zorder=6,
                    bbox=dict(boxstyle="round,pad=0.15", fc="white", ec="none", alpha=0.75))

    # houses: one small square per seat, at a fixed corner around the city
    for p in range(n):
        ang = math.radians(45 + 90 * p)
        for x in d["houses"][p]:
            ax.scatter([xs[x] + r * math.cos(ang)], [ys[x] + r * math.sin(ang)], s=70, marker="s",
                       c=PLAYER_COLORS[p], edgecolors="black", linewidths=0.7, zorder=5)

    ax.set_aspect("equal")
    pad = span * 0.06
    ax.set_xlim(xs.min() - pad, xs.max() + pad)
    ax.set_ylim(ys.min() - pad * 1.4, ys.max() + pad)
    ax.set_xticks([])
    ax.set_yticks([])

    handles: list[Patch | Line2D] = [
        Patch(facecolor=PROVINCE_COLORS[k % len(PROVINCE_COLORS)], edgecolor="black", label=pname)
        for k, pname in enumerate(b.provinces)]
    if b.free_cities:
        handles.append(Line2D([], [], marker="s", ls="", markerfacecolor="white", markeredgecolor="black",
                              markersize=10, label="free city"))
    handles += [Line2D([], [], color=PLAYER_COLORS[p], lw=5, label=f"seat {p} route / houses")
                for p in range(n)]
    ax.legend(handles=handles, loc="lower center", bbox_to_anchor=(0.5, -0.075), ncol=5, fontsize=8.5,
              frameon=False)

    y = 1.0
    for text, color in _panel_text(state, viewer):
        panel.text(0.0, y, text, va="top", ha="left", fontsize=9.5, family="monospace", color=color,
                   transform=panel.transAxes)
        lines = text.count("\n") + 1
        y -= 0.0215 * lines + 0.02

    if title is None:
        view = "complete position" if viewer is None else f"seat {viewer}'s view"
        title = f"{b.title} - {state.rules.resolved_variant} - {view}"
    fig.suptitle(title, fontsize=13, x=0.01, ha="left")
    return fig


def save_png(state, path, viewer: int | None = None, title: str | None = None) -> None:
    """Draw the position and write it as a PNG file (ThurnError if the file cannot be written)."""
    fig = draw_position(state, viewer, title)
    try:      # atomically: a full disk keeps the old file; a link, a device or a FIFO is refused
        atomic_savefig(fig, Path(path), what="PNG file", format="png")
    except OSError as e:
        raise ThurnError(f"cannot write {path_text(path)}: {e.strerror or e}") from None
    finally:
        plt.close(fig)
