"""The halving root in play (issue 51): the cells, fixed before their games, and their summary.

Every cell plays `Cell.seed` = SEED's deals, which no earlier cell used; cells with the same player count
play the same deals in the same seats, so the candidate and the frozen default are compared game by game.
The adoption rule, committed with these cells before any of their games:

  `mcts(root=halving)` becomes the default `mcts` if (1) against `heuristic`, its win share minus
  anchor-1k's, paired by deal and pooled over 2 / 3 / 4 players, has a 95% t interval above zero, and (2) in
  the head to head against anchor-1k (the candidate in one seat, anchor-1k in every other), its win share
  minus the fair share 1/n, pooled over the three counts, has a 95% t interval above zero. Each count's
  difference is reported with its interval, Holm-corrected over the report's comparisons.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from .expert.measure import Cell, cell_summary, paired, pooled, seat_rows, t_interval

SEED = 2051
CANDIDATE = "mcts(root=halving)"
BASELINE = "anchor-1k"
GAMES = {2: 400, 3: 402, 4: 400}      # whole seat rotations; ~7-9 points detectable a count, ~4-5 pooled

#: the cells in the order they are played (the paired ones against heuristic first)
CELLS: list[Cell] = [
    *(c for n in GAMES for c in (Cell(f"base_p{n}", n, BASELINE, GAMES[n], seed=SEED),
                                 Cell(f"halving_p{n}", n, CANDIDATE, GAMES[n], seed=SEED))),
    *(Cell(f"h2h_p{n}", n, CANDIDATE, GAMES[n], others=BASELINE, seed=SEED) for n in GAMES),
    *(Cell(f"h2h3k_p{n}", n, CANDIDATE, GAMES[n], others="anchor-3k", seed=SEED) for n in GAMES),
]
BY_NAME = {c.name: c for c in CELLS}

#: what the report prints beside wins: the searching seat's mean route-length tile points, its share of the
#: game-end tile, its unplaced houses
STRATEGY = {"route tiles": ("tile_route5", "tile_route6", "tile_route7"), "game-end tile": ("tile_game_end",),
            "houses unplaced": ("houses_unplaced",)}


def strategy(out: Path, cell: Cell) -> dict[str, float] | None:
    """The searching seat's mean route-length tile points, game-end tile points and unplaced houses."""
    rows = seat_rows(out, cell)
    if rows is None:
        return None
    return {name: float(rows[list(cols)].sum(axis=1).mean()) for name, cols in STRATEGY.items()}


def excess(out: Path, cells: list[Cell]) -> dict | None:
    """The candidate seat's win share minus the fair share 1/n, per game, pooled over `cells` (head to
    head): mean, 95% t interval, p-value, games."""
    d = []
    for cell in cells:
        rows = seat_rows(out, cell)
        if rows is not None:
            d.append(rows["win_share"].to_numpy(float) - 1 / cell.players)
    x = np.concatenate(d) if d else np.zeros(0)
    if len(x) < 2:
        return None
    return {"games": len(x), "excess": float(x.mean()), **t_interval(x)}


def summary(out: Path) -> dict:
    """Everything the report prints, as data: each cell's summary and strategy, the paired differences per
    count and pooled, the head-to-head excess per count and pooled, and the adoption rule's verdict."""
    cells = {c.name: {**(cell_summary(out, c) or {}), **(strategy(out, c) or {})} for c in CELLS}
    pairs = [(BY_NAME[f"halving_p{n}"], BY_NAME[f"base_p{n}"]) for n in GAMES]
    diffs = {n: paired(out, a, b) for n, (a, b) in zip(GAMES, pairs)}
    pool = pooled(out, pairs)
    h2h = {n: excess(out, [BY_NAME[f"h2h_p{n}"]]) for n in GAMES}
    h2h_pool = excess(out, [BY_NAME[f"h2h_p{n}"] for n in GAMES])
    h2h3k = {n: excess(out, [BY_NAME[f"h2h3k_p{n}"]]) for n in GAMES}
    # the rule reads the paired cells and the head to head against anchor-1k (not the one against anchor-3k)
    complete = all(cells[c.name].get("games") == c.games for c in CELLS if not c.name.startswith("h2h3k"))
    adopt = (complete and pool is not None and h2h_pool is not None and pool["low"] > 0 and h2h_pool["low"] > 0)
    # the rule needs both conditions: once the paired cells are all played and (1) fails, the head-to-head
    # cells cannot make the candidate the default, so the verdict is settled before they are played
    paired_complete = all(cells[c.name].get("games") == c.games for pair in pairs for c in pair)
    first_fails = paired_complete and pool is not None and pool["low"] <= 0
    return {"cells": cells, "paired": diffs, "pooled": pool, "h2h": h2h, "h2h_pooled": h2h_pool,
            "h2h3k": h2h3k, "complete": complete, "adopt": adopt, "first_fails": first_fails}
