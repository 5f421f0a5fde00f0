"""The officials study, its plots: ablation effects, usage by phase, seat advantage, and a 2x2 summary (PNG)."""
from __future__ import annotations

from pathlib import Path

import numpy as np

from .fileio import atomic_savefig
from .officials import OFFICIALS, PHASES
from .officials_study_plan import OFFICIAL_LABEL
from .officials_study_tables import Analysis


def write_plots(a: Analysis, out_dir, prefix: str = "", title: str = "") -> list[str]:
    """PNG plots (ablation effects, usage by phase, seat advantage, and a 2x2 summary); returns names."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []

    def save(fig, name):
        fig.tight_layout()
        try:
            atomic_savefig(fig, out_dir / f"{prefix}{name}.png", dpi=110)
        finally:
            plt.close(fig)
        written.append(f"{prefix}{name}.png")

    def effect(ax, col, ylabel, scale=1.0):
        counts = sorted(a.ablation.players.unique())
        width = 0.8 / max(len(counts), 1)
        for i, n in enumerate(counts):
            g = a.ablation[a.ablation.players == n].set_index("official").reindex(OFFICIALS).dropna(subset=[col])
            x = np.array([OFFICIALS.index(o) for o in g.index]) + (i - (len(counts) - 1) / 2) * width
            y = g[col].to_numpy() * scale
            err = np.vstack([y - g[col + "_lo"].to_numpy() * scale, g[col + "_hi"].to_numpy() * scale - y])
            ax.errorbar(x, y, yerr=err, fmt="o", capsize=3, label=f"{n} players")
        ax.axhline(0, color="grey", lw=0.8)
        ax.set_xticks(range(len(OFFICIALS)), [OFFICIAL_LABEL[o] for o in OFFICIALS])
        ax.set_ylabel(ylabel)
        ax.legend(fontsize=8)

    rates = "early_share_of_turns" in a.usage

    def usage(ax):
        """Per official and player count: the share of turns on which it was used in each phase (bars side
        by side), or, without turns per phase, the uses per game stacked by phase."""
        counts = sorted(a.usage.players.unique())
        width = 0.8 / max(len(counts), 1)
        colors = {"early": "#9ecae1", "middle": "#4292c6", "late": "#08519c"}
        for i, n in enumerate(counts):
            g = a.usage[a.usage.players == n].set_index("official").reindex(OFFICIALS)
            x = np.arange(len(OFFICIALS)) + (i - (len(counts) - 1) / 2) * width
            bottom = np.zeros(len(OFFICIALS))
            for k, ph in enumerate(PHASES):
                if rates:
                    y = 100 * g[f"{ph}_share_of_turns"].to_numpy()
                    ax.bar(x + (k - 1) * width / 3, y, width / 3 * 0.95, color=colors[ph],
                           label=ph if i == 0 else None)
                    bottom = np.fmax(bottom, y)  # fmax: a phase no game reached is nan
                else:
                    ax.bar(x, g[ph].to_numpy(), width * 0.95, bottom=bottom, color=colors[ph],
                           label=ph if i == 0 else None, edgecolor="white", lw=0.5)
                    bottom += g[ph].to_numpy()
            for xx, b in zip(x, bottom):
                ax.text(xx, b, f"{n}p", ha="center", va="bottom", fontsize=7)
        ax.set_xticks(range(len(OFFICIALS)), [OFFICIAL_LABEL[o] for o in OFFICIALS])
        ax.set_ylabel("% of the player's turns in the phase" if rates else "uses per player per game")
        ax.legend(fontsize=8, title="game phase", title_fontsize=8)

    def seats(ax):
        for n, g in a.seats.groupby("players"):
            y = g.win_rate.to_numpy()
            ax.errorbar(g.seat + (n - 3) * 0.08, y, yerr=[y - g.lo.to_numpy(), g.hi.to_numpy() - y], fmt="o-",
                        capsize=3, label=f"{n} players")
            ax.axhline(1 / n, color="grey", lw=0.6, ls=":")
        w = a.wbc
        lo, hi = w["wbc_ci"]
        ax.errorbar([1 - 0.25], [w["wbc_rate"]], yerr=[[w["wbc_rate"] - lo], [hi - w["wbc_rate"]]], fmt="s",
                    color="black", capsize=3, label="WBC 4p, 71/226")
        ax.plot([1 - 0.35], [w["wbc_2024_rate"]], "D", color="dimgrey", label="WBC 2024 (34%)")
        ax.set_xlabel("seat (1 = start player)")
        ax.set_ylabel("win rate")
        ax.set_xticks([1, 2, 3, 4])
        ax.legend(fontsize=7)

    fig, ax = plt.subplots(figsize=(7, 4))
    effect(ax, "d_win", "Δ win rate when forbidden (pp)", 100)
    ax.set_title(f"{title} Δ win rate without one official (95% CI)".strip())
    save(fig, "delta_win")
    fig, ax = plt.subplots(figsize=(7, 4))
    effect(ax, "d_score", "Δ mean score when forbidden")
    ax.set_title(f"{title} Δ mean score without one official (95% CI)".strip())
    save(fig, "delta_score")
    fig, ax = plt.subplots(figsize=(7, 4))
    usage(ax)
    ax.set_title(f"{title} usage by game phase (full bot)".strip())
    save(fig, "usage")
    fig, ax = plt.subplots(figsize=(6, 4))
    seats(ax)
    ax.set_title(f"{title} win rate by seat (95% CI)".strip())
    save(fig, "seats")

    fig, axes = plt.subplots(2, 2, figsize=(12, 8))
    effect(axes[0, 0], "d_win", "Δ win rate (pp)", 100)
    axes[0, 0].set_title("Δ win rate without the official")
    effect(axes[0, 1], "d_score", "Δ mean score")
    axes[0, 1].set_title("Δ mean score without the official")
    usage(axes[1, 0])
    axes[1, 0].set_title("turns on which the full bot uses it, by phase" if rates
                         else "uses per player per game, by phase")
    seats(axes[1, 1])
    axes[1, 1].set_title("win rate by seat vs WBC")
    if title:
        fig.suptitle(title)
    save(fig, "summary")
    return written
