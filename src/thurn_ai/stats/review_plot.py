"""The picture of a game review (`thurn-ai review --png`): above, each reviewed seat's win chance over the game,
as its own searches rated its decisions; below, the expected final points each seat's decisions have lost so
far (the review's unit); marks at the labelled moves (matplotlib, Agg backend)."""
from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (after choosing the backend)

from ..fileio import atomic_savefig  # noqa: E402
from ..play.review import Review  # noqa: E402

#: the marks of the labels: (marker, size)
MARKS = {"inaccuracy": ("o", 40), "mistake": ("s", 55), "blunder": ("X", 90)}


def review_figure(r: Review, title: str | None = None):
    """The figure: x the move's number in the game; above, y the seat's win chance at its decision (best
    play); below, the expected points its decisions lost up to there."""
    fig, (ax, lost) = plt.subplots(2, 1, figsize=(9, 6.2), sharex=True, height_ratios=(3, 2))
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for seat in r.seats:
        mine = [d for d in r.decisions if d.seat == seat]
        color = colors[seat % len(colors)]
        xs = [d.index + 1 for d in mine]
        total, running = 0.0, []
        for d in mine:
            total += d.loss_points
            running.append(total)
        ax.plot(xs, [100 * d.win for d in mine], color=color, lw=1.4, label=f"seat {seat} ({r.bots[seat]})")
        lost.step(xs, running, where="post", color=color, lw=1.4)
        for label, (marker, size) in MARKS.items():
            hit = [(i, d) for i, d in enumerate(mine) if d.label == label]
            if hit:
                ax.scatter([d.index + 1 for _, d in hit], [100 * d.win for _, d in hit], marker=marker, s=size,
                           color=color, edgecolors="black", linewidths=0.6, zorder=3)
                lost.scatter([d.index + 1 for _, d in hit], [running[i] for i, _ in hit], marker=marker, s=size,
                             color=color, edgecolors="black", linewidths=0.6, zorder=3)
    for label, (marker, size) in MARKS.items():      # the legend of the marks, in grey
        ax.scatter([], [], marker=marker, s=size, color="lightgrey", edgecolors="black", label=label)
    ax.axhline(100 / r.players, color="grey", ls=":", lw=1)
    ax.set_ylim(0, 100)
    ax.set_ylabel("win chance at the\nseat's decision (%)")
    ax.set_title(title or f"review: {r.players} players, {r.budget} iterations per search")
    ax.legend(fontsize=8, ncol=2, loc="upper left")
    lost.set_ylabel("expected points\nlost so far")
    lost.set_xlabel("move of the game")
    lost.set_ylim(bottom=0)
    fig.tight_layout()
    return fig


def save_review_png(r: Review, path, title: str | None = None) -> None:
    """Write review_figure(r) to `path` as a PNG, atomically."""
    fig = review_figure(r, title)
    try:
        atomic_savefig(fig, path, what="review PNG", dpi=110)
    finally:
        plt.close(fig)
