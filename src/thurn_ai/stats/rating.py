"""Ratings from a league's games: a batch Luce / Plackett-Luce fit (choix) with game-bootstrap intervals.

    >>> from thurn_ai.stats.rating import fit_ratings
    >>> table = fit_ratings(results, anchor="heuristic")     # one player count's tournament frame

A bot's rating is its log-strength, anchored so that the anchor bot is 0: between two bots rated a and b, the
model's chance that the first wins a two-player game is 1 / (1 + exp(b - a)); at a table of several, each
player's chance to win is its strength's share of the table's (the Luce choice axiom). Two ways to read a game:

    win    (primary) the winner, chosen among the players of its table (choix.ilsr_top1): a rating of winning,
           the unit the project measures strength in; the rules' tie-break decides a shared top score
    place  the whole placing order (Plackett-Luce, choix.ilsr_rankings): uses every seat's place, so it is
           tighter, but it rates out-placing the other seats, not winning (review 6, section 4)

Batch maximum likelihood over all games at once: no order of games matters (unlike an online update such as
OpenSkill's). Intervals: the fit repeated on resamples of whole games (percentile 95%). Fit each player count
apart: strength at a 4-player table is not strength at 2.
"""
from __future__ import annotations

import math

import numpy as np
import pandas as pd

#: the fit's regularization (choix's alpha): keeps a bot that never won finite; small next to real counts
ALPHA = 1e-3
KINDS = ("win", "place")


def game_orders(df: pd.DataFrame) -> tuple[list[str], list[tuple[int, ...]]]:
    """The bots (labels, sorted) and each game's placing order as bot indices (first = the winner), by the
    `rank` column (the rules' tie-break: no two seats share a place)."""
    bots = sorted(df["bot"].unique())
    index = {b: i for i, b in enumerate(bots)}
    ordered = df.sort_values(["game", "rank"], kind="stable")
    orders = [tuple(index[b] for b in g["bot"]) for _, g in ordered.groupby("game", sort=True)]
    return bots, orders


def _fit(n_items: int, orders: list[tuple[int, ...]], kind: str) -> np.ndarray:
    import choix
    if kind == "win":
        return choix.ilsr_top1(n_items, [(o[0], o[1:]) for o in orders], alpha=ALPHA, max_iter=10_000)
    return choix.ilsr_rankings(n_items, orders, alpha=ALPHA, max_iter=10_000)


def fit_ratings(df: pd.DataFrame, anchor: str = "heuristic", kind: str = "win", bootstrap: int = 200,
                seed: int = 0, level: float = 0.95) -> pd.DataFrame:
    """One row per bot, best first: games, wins (the rules' tie-break), win share (a shared top score split),
    rating (log-strength, anchor = 0), lo / hi (its game-bootstrap interval), and p_anchor: the model's
    chance (%) that it beats the anchor in a two-player game."""
    if kind not in KINDS:
        raise ValueError(f"kind is one of {', '.join(KINDS)}, not {kind!r}")
    bots, orders = game_orders(df)
    if anchor not in bots:
        raise ValueError(f"the anchor {anchor!r} played no game here (bots: {', '.join(bots)})")
    a = bots.index(anchor)
    theta = _fit(len(bots), orders, kind)
    point = theta - theta[a]
    rng = np.random.default_rng(seed)
    draws = np.empty((bootstrap, len(bots)))
    for b in range(bootstrap):
        pick = rng.integers(0, len(orders), len(orders))
        t = _fit(len(bots), [orders[i] for i in pick], kind)
        draws[b] = t - t[a]
    tail = (1 - level) / 2 * 100
    lo, hi = (np.percentile(draws, [tail, 100 - tail], axis=0) if bootstrap
              else (np.full(len(bots), math.nan),) * 2)
    per_bot = df.groupby("bot").agg(games=("game", "size"), wins=("win", "sum"), win_share=("win_share", "mean"))
    table = pd.DataFrame({"bot": bots, "rating": point, "lo": lo, "hi": hi,
                          "p_anchor": 100 / (1 + np.exp(-point))})
    table = table.join(per_bot, on="bot")
    table["win_share"] *= 100
    return table.sort_values("rating", ascending=False, kind="stable").reset_index(drop=True)


def ratings_markdown(table: pd.DataFrame, players: int) -> str:
    """The table as markdown rows (bot, rating [interval], beats the anchor %, games, win share)."""
    lines = [f"| bot ({players} players) | rating [95%] | beats anchor (model) | games | win share |",
             "|---|---:|---:|---:|---:|"]
    for r in table.itertuples():
        lines.append(f"| `{r.bot}` | {r.rating:+.2f} [{r.lo:+.2f}, {r.hi:+.2f}] | {r.p_anchor:.0f}% | "
                     f"{r.games} | {r.win_share:.1f}% |")
    return "\n".join(lines)


def plot_ratings(tables: dict[int, pd.DataFrame], path, anchor: str = "heuristic") -> None:
    """One panel per player count: each bot's rating with its interval (written atomically)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from ..fileio import atomic_savefig
    counts = sorted(tables)
    fig, axes = plt.subplots(1, len(counts), figsize=(4.2 * len(counts), 3.6), squeeze=False)
    for ax, n in zip(axes[0], counts):
        t = tables[n].iloc[::-1]
        y = np.arange(len(t))
        ax.errorbar(t["rating"], y, xerr=[t["rating"] - t["lo"], t["hi"] - t["rating"]], fmt="o", capsize=3)
        ax.axvline(0, color="grey", lw=0.8)
        ax.set_yticks(y, t["bot"])
        ax.set_title(f"{n} players")
        ax.set_xlabel(f"rating (log-strength, {anchor} = 0)")
    fig.tight_layout()
    atomic_savefig(fig, path, dpi=110)
    plt.close(fig)
