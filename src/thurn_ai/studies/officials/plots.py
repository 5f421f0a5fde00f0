"""The officials study, its plots: ablation effects, usage by phase, seat advantage, and a 2x2 summary (PNG)."""
from __future__ import annotations

from pathlib import Path

import numpy as np

from ...fileio import atomic_savefig
from ...game.officials import OFFICIALS, STAGES
from .plan import OFFICIAL_LABEL
from .tables import Analysis


def effect_panel(ax, ablation, col: str, ylabel: str, scale: float = 1.0) -> None:
    """An ablation effect (col: d_win or d_score) per official and player count, with its 95% interval."""
    counts = sorted(ablation.players.unique())
    width = 0.8 / max(len(counts), 1)
    for i, n in enumerate(counts):
        g = ablation[ablation.players == n].set_index("official").reindex(OFFICIALS).dropna(subset=[col])
        x = np.array([OFFICIALS.index(o) for o in g.index]) + (i - (len(counts) - 1) / 2) * width
        y = g[col].to_numpy() * scale
        err = np.vstack([y - g[col + "_lo"].to_numpy() * scale, g[col + "_hi"].to_numpy() * scale - y])
        ax.errorbar(x, y, yerr=err, fmt="o", capsize=3, label=f"{n} players")
    ax.axhline(0, color="grey", lw=0.8)
    ax.set_xticks(range(len(OFFICIALS)), [OFFICIAL_LABEL[o] for o in OFFICIALS])
    ax.set_ylabel(ylabel)
    ax.legend(fontsize=8)


def usage_panel(ax, usage) -> None:
    """Per official and player count: the share of turns on which it was used in each phase (bars side
    by side), or, without turns per phase, the uses per game stacked by phase."""
    rates = "early_share_of_turns" in usage
    counts = sorted(usage.players.unique())
    width = 0.8 / max(len(counts), 1)
    colors = {"early": "#9ecae1", "middle": "#4292c6", "late": "#08519c"}
    for i, n in enumerate(counts):
        g = usage[usage.players == n].set_index("official").reindex(OFFICIALS)
        x = np.arange(len(OFFICIALS)) + (i - (len(counts) - 1) / 2) * width
        bottom = np.zeros(len(OFFICIALS))
        for k, ph in enumerate(STAGES):
            if rates:
                y = 100 * g[f"{ph}_share_of_turns"].to_numpy()
                ax.bar(x + (k - 1) * width / 3, y, width / 3 * 0.95, color=colors[ph], label=ph if i == 0 else None)
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


def seats_panel(ax, seats, wbc: dict) -> None:
    """Win rate per seat and player count (95% CI) with the fair share, and the WBC 4-player record."""
    for n, g in seats.groupby("players"):
        y = g.win_rate.to_numpy()
        ax.errorbar(g.seat + (n - 3) * 0.08, y, yerr=[y - g.lo.to_numpy(), g.hi.to_numpy() - y], fmt="o-",
                    capsize=3, label=f"{n} players")
        ax.axhline(1 / n, color="grey", lw=0.6, ls=":")
    lo, hi = wbc["wbc_ci"]
    ax.errorbar([0 - 0.25], [wbc["wbc_rate"]], yerr=[[wbc["wbc_rate"] - lo], [hi - wbc["wbc_rate"]]], fmt="s",
                color="black", capsize=3, label="WBC 4p, 71/226 (seats bid for)")
    ax.plot([0 - 0.35], [wbc["wbc_2024_rate"]], "D", color="dimgrey", label="WBC 2024 (34%)")
    ax.set_xlabel("seat (0 = start player)")
    ax.set_ylabel("win rate")
    ax.set_xticks([0, 1, 2, 3])
    ax.legend(fontsize=7)


def _panels(a: Analysis) -> dict:
    """name: (draw(ax), title of its own figure, title in the summary, figure size)."""
    rates = "early_share_of_turns" in a.usage
    return {
        "delta_win": (lambda ax: effect_panel(ax, a.ablation, "d_win", "Δ win rate when forbidden (pp)", 100),
                      "Δ win rate without one official (95% CI)", "Δ win rate without the official", (7, 4)),
        "delta_score": (lambda ax: effect_panel(ax, a.ablation, "d_score", "Δ mean score when forbidden (points)"),
                        "Δ mean score without one official (95% CI)", "Δ mean score without the official", (7, 4)),
        "usage": (lambda ax: usage_panel(ax, a.usage), "usage by game phase (full bot)",
                  "turns on which the full bot uses it, by phase" if rates else "uses per player per game, by phase",
                  (7, 4)),
        "seats": (lambda ax: seats_panel(ax, a.seats, a.wbc), "win rate by seat (95% CI)", "win rate by seat vs WBC",
                  (6, 4)),
    }


def write_plots(a: Analysis, out_dir, prefix: str = "", title: str = "") -> list[str]:
    """PNG plots (ablation effects, usage by phase, seat advantage, and a 2x2 summary); returns names."""
    plt = pyplot()
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    panels = _panels(a)
    for name, (draw, own_title, _, size) in panels.items():
        fig, ax = plt.subplots(figsize=size)
        draw(ax)
        ax.set_title(f"{title} {own_title}".strip())
        written.append(save(plt, fig, out_dir, f"{prefix}{name}.png"))
    fig, axes = plt.subplots(2, 2, figsize=(12, 8))
    for ax, (draw, _, summary_title, _) in zip(axes.flat, panels.values()):
        draw(ax)
        ax.set_title(summary_title)
    if title:
        fig.suptitle(title)
    written.append(save(plt, fig, out_dir, f"{prefix}summary.png"))
    return written


def pyplot():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def save(plt, fig, out_dir: Path, name: str, dpi: int = 110) -> str:
    """Write the figure to out_dir/name (atomically) and close it; its name."""
    fig.tight_layout()
    try:
        atomic_savefig(fig, out_dir / name, dpi=dpi)
    finally:
        plt.close(fig)
    return name


def write_choice_plots(table, df, out_dir, prefix: str = "", title: str = "") -> list[str]:
    """Value at the moment of choice, two PNGs: the distribution of Δ win (with − without) per official and
    game phase (boxes per player count), and the share of decisions where using it is right (Δ win > 0,
    95% Wilson CI) next to how often the player took it. table: choice_table(df); df: the rated rows."""
    plt = pyplot()
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    counts = sorted(df.players.unique()) if len(df) else []
    width = 0.8 / max(len(counts), 1)
    written = []

    fig, axes = plt.subplots(1, len(OFFICIALS), figsize=(15, 4), sharey=True)
    for ax, o in zip(axes, OFFICIALS):
        rated = df[(df.official == o) & df.d_win.notna()] if len(df) else df
        for i, n in enumerate(counts):
            data = [100 * rated[(rated.players == n) & (rated.phase == ph)].d_win.to_numpy() for ph in STAGES]
            pos = np.arange(len(STAGES)) + (i - (len(counts) - 1) / 2) * width
            keep = [k for k, d in enumerate(data) if len(d)]
            if keep:
                b = ax.boxplot([data[k] for k in keep], positions=pos[keep], widths=width * 0.9, showfliers=False,
                               patch_artist=True, manage_ticks=False)
                for patch in b["boxes"]:
                    patch.set_facecolor(f"C{i}")
                    patch.set_alpha(0.6)
            ax.plot([], [], "s", color=f"C{i}", label=f"{n} players")
        if rated.empty:
            ax.text(0.5, 0.5, "no rated decisions", ha="center", va="center", transform=ax.transAxes)
        ax.axhline(0, color="grey", lw=0.8)
        ax.set_xticks(range(len(STAGES)), STAGES)
        ax.set_title(OFFICIAL_LABEL[o])
        if o == OFFICIALS[0]:
            ax.set_ylabel("Δ win probability, with − without (pp)")
            ax.legend(fontsize=7)
    fig.suptitle(f"{title} value at the moment of choice (search estimate; boxes: quartiles)".strip())
    written.append(save(plt, fig, out_dir, f"{prefix}choice_delta.png"))

    fig, axes = plt.subplots(1, len(OFFICIALS), figsize=(15, 4), sharey=True)
    for ax, o in zip(axes, OFFICIALS):
        t = table[(table.official == o) & (table.phase != "all")] if len(table) else table
        for i, n in enumerate(counts):
            g = t[t.players == n].set_index("phase").reindex(STAGES)
            x = np.arange(len(STAGES)) + (i - (len(counts) - 1) / 2) * width
            y = 100 * g.right.to_numpy(dtype=float)
            err = np.vstack([y - 100 * g.right_lo.to_numpy(dtype=float), 100 * g.right_hi.to_numpy(dtype=float) - y])
            ax.bar(x, np.nan_to_num(y), width * 0.9, color=f"C{i}", alpha=0.6, label=f"{n}p: using it is right")
            ax.errorbar(x, y, yerr=np.nan_to_num(err), fmt="none", ecolor="black", capsize=2, lw=0.8)
            ax.plot(x, 100 * g.used.to_numpy(dtype=float), "k_", ms=12, mew=2,
                    label="taken by the player" if i == 0 else None)
        ax.axhline(50, color="grey", lw=0.6, ls=":")
        ax.set_xticks(range(len(STAGES)), STAGES)
        ax.set_ylim(0, 100)
        ax.set_title(OFFICIAL_LABEL[o])
        if o == OFFICIALS[0]:
            ax.set_ylabel("% of decisions where it is on offer")
            ax.legend(fontsize=7)
    fig.suptitle(f"{title} how often using the official is right (Δ win > 0, 95% CI) and how often "
                 "it was taken".strip())
    written.append(save(plt, fig, out_dir, f"{prefix}choice_right.png"))
    return written


def write_comparison_plot(comparison, names: list[str], out_dir, name: str = "heuristic_vs_search.png") -> list[str]:
    """Share of its turns on which each player uses each official, by phase, for each named study (one
    line per study and player count): where the players' timing differs."""
    plt = pyplot()
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    fig, axes = plt.subplots(1, len(OFFICIALS), figsize=(15, 4), sharey=False)
    styles = ["-", "--", ":", "-."]
    for ax, o in zip(axes, OFFICIALS):
        c = comparison[comparison.official == o]
        for k, study in enumerate(names):
            cols = [f"{study}_share_{ph}" for ph in STAGES]
            if not all(col in c for col in cols):
                continue
            for r in c.itertuples():
                y = [100 * getattr(r, col) for col in cols]
                ax.plot(range(len(STAGES)), y, styles[k % len(styles)], marker="o", color=f"C{r.players - 2}",
                        label=f"{study}, {r.players}p")
        ax.set_xticks(range(len(STAGES)), STAGES)
        ax.set_title(OFFICIAL_LABEL[o])
        if o == OFFICIALS[0]:
            ax.set_ylabel("% of the player's turns in the phase")
        ax.legend(fontsize=6)
    fig.suptitle(" vs ".join(names) + ": when each official is used")
    return [save(plt, fig, out_dir, name)]
