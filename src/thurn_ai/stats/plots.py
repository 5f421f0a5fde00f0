"""Plots of tournament results (matplotlib, Agg backend: files only, no display needed)."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (after choosing the backend)
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from ..errors import ThurnError  # noqa: E402
from ..fileio import atomic_savefig, path_text  # noqa: E402
from ..game.officials import OFFICIALS, STAGES  # noqa: E402


def _save(fig, path: Path) -> Path:
    fig.tight_layout()
    try:
        atomic_savefig(fig, path, dpi=110)   # a kill leaves the old PNG or the new one
    finally:
        plt.close(fig)
    return path


def _bar_height(n_bots: int) -> float:
    return 1.2 + 0.45 * n_bots


def plot_win_rates(summary: dict, path: Path) -> Path:
    """Win rate per bot (ties shared) with its 95% Wilson interval, against the fair share."""
    t = summary["bots"].iloc[::-1]
    fair = 1 / int(summary["overview"]["players"].iloc[0])
    y = np.arange(len(t))
    err = np.vstack([t["win_rate"] - t["win_low"], t["win_high"] - t["win_rate"]]) * 100
    fig, ax = plt.subplots(figsize=(7, _bar_height(len(t))))
    ax.barh(y, t["win_rate"] * 100, xerr=err, capsize=4, color="#4c72b0")
    ax.axvline(fair * 100, color="grey", ls="--", lw=1, label=f"fair share {fair:.0%}")
    ax.set_yticks(y, t.index)
    ax.set_xlim(0, 100)
    ax.set_xlabel("win rate, % (ties shared; 95% Wilson interval)")
    ax.legend(loc="lower right")
    return _save(fig, path)


def plot_scores(df: pd.DataFrame, summary: dict, path: Path) -> Path:
    """Score distribution per bot (box plot, mean marked)."""
    order = list(summary["bots"].index)[::-1]
    data = [df.loc[df["bot"] == b, "score"].to_numpy() for b in order]
    fig, ax = plt.subplots(figsize=(7, _bar_height(len(order))))
    style: dict[str, Any] = {"showmeans": True, "meanprops": {"marker": "D", "markerfacecolor": "white"}}
    try:
        ax.boxplot(data, orientation="horizontal", **style)
    except TypeError:      # matplotlib < 3.10
        ax.boxplot(data, vert=False, **style)
    ax.set_yticks(np.arange(1, len(order) + 1), order)
    ax.set_xlabel("final score (box: quartiles, diamond: mean)")
    return _save(fig, path)


def plot_seats(summary: dict, path: Path) -> Path:
    """Seat advantage: win rate by seat for every bot, and over all bots with its 95% interval."""
    seats = summary["seats"]
    by_bot = summary["seat_bots"]
    n_seats = len(seats)
    x = np.arange(n_seats)
    width = 0.8 / (len(by_bot) + 1)
    fig, ax = plt.subplots(figsize=(max(6, 1.8 * n_seats) + 3, 4))
    for i, (bot, row) in enumerate(by_bot.iterrows()):
        ax.bar(x + i * width, row.to_numpy() * 100, width, label=bot, alpha=0.8)
    err = np.vstack([seats["win_rate"] - seats["win_low"], seats["win_high"] - seats["win_rate"]]) * 100
    ax.bar(x + len(by_bot) * width, seats["win_rate"] * 100, width, yerr=err, capsize=4, color="black",
           label="all bots (95% CI)")
    ax.axhline(seats["fair"].iloc[0] * 100, color="grey", ls="--", lw=1, label="fair share")
    ax.set_xticks(x + width * len(by_bot) / 2, [f"seat {s}" for s in seats.index])
    ax.set_ylabel("win rate, % (ties shared)")
    ax.set_ylim(0, 105)
    ax.legend(fontsize="small", loc="upper left", bbox_to_anchor=(1.01, 1))
    return _save(fig, path)


def plot_officials(summary: dict, path: Path) -> Path:
    """Official uses per game for each bot, split by phase of the game."""
    off = summary["officials"]
    bots = list(off.index)
    x = np.arange(len(OFFICIALS))
    width = 0.8 / len(bots)
    shades = dict(zip(STAGES, (1.0, 0.7, 0.4)))
    fig, ax = plt.subplots(figsize=(8, 4))
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for i, bot in enumerate(bots):
        bottom = np.zeros(len(OFFICIALS))
        for stage in STAGES:
            h = np.array([off.loc[bot, f"{o}_{stage}"] for o in OFFICIALS])
            ax.bar(x + i * width, h, width, bottom=bottom, color=colors[i % len(colors)],
                   alpha=shades[stage], label=bot if stage == STAGES[0] else None, edgecolor="white")
            bottom += h
    ax.set_xticks(x + width * (len(bots) - 1) / 2, [o.replace("_", " ") for o in OFFICIALS])
    ax.set_ylabel("uses per game\n(bottom to top: early, middle, late)")
    ax.legend(fontsize="small")
    return _save(fig, path)


def plot_pairwise(summary: dict, path: Path) -> Path:
    pw = summary["pairwise"]
    order = list(summary["bots"].index)
    m = pw.pivot(index="bot", columns="opponent", values="share").reindex(index=order, columns=order) * 100
    fig, ax = plt.subplots(figsize=(2 + 1.1 * len(order), 1.5 + 0.9 * len(order)))
    im = ax.imshow(m.to_numpy(dtype=float), cmap="RdBu", vmin=0, vmax=100)
    for i in range(len(order)):
        for j in range(len(order)):
            if i != j and not np.isnan(m.iat[i, j]):
                v = m.iat[i, j]
                ax.text(j, i, f"{v:.0f}", ha="center", va="center", color="white" if abs(v - 50) > 30 else "black")
    ax.set_xticks(range(len(order)), order, rotation=30, ha="right")
    ax.set_yticks(range(len(order)), order)
    ax.set_title("% of meetings the row bot outscored\nthe column bot (ties count half)", fontsize="medium")
    fig.colorbar(im, label="%")
    return _save(fig, path)


def write_plots(df: pd.DataFrame, summary: dict, out_dir) -> list[Path]:
    """Write the PNGs into out_dir; returns their paths."""
    out = Path(out_dir)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise ThurnError(f"cannot create {path_text(out)}: {e.strerror}") from None
    paths = [plot_win_rates(summary, out / "win_rates.png"),
             plot_scores(df, summary, out / "scores.png"),
             plot_seats(summary, out / "seats.png"),
             plot_officials(summary, out / "officials.png")]
    if "pairwise" in summary:
        paths.append(plot_pairwise(summary, out / "pairwise.png"))
    return paths
