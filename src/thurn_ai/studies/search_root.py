"""Candidates for the default search in play (issue 51): the cells, fixed before their games, and their summary.

Every cell plays `Cell.seed` = SEED's deals, which no earlier cell used; cells with the same player count
play the same deals in the same seats, so the candidate and the frozen default are compared game by game.
The adoption rule, committed with these cells before any of their games:

  `mcts(root=halving)` becomes the default `mcts` if (1) against `heuristic`, its win share minus
  anchor-1k's, paired by deal and pooled over 2 / 3 / 4 players, has a 95% t interval above zero, and (2) in
  the head to head against anchor-1k (the candidate in one seat, anchor-1k in every other), its win share
  minus the fair share 1/n, pooled over the three counts, has a 95% t interval above zero. Each count's
  difference is reported with its interval, Holm-corrected over the report's comparisons.

A second candidate, generation 3 of the move prior (results/expert_gen3/: the improved-policy target, which
passed its offline gate), added with its cells and rule on 2026-11-28, before any of its games:

  `GEN3` (the default `mcts` with generation 3's weights file) becomes the default if the same two
  conditions hold for it: (1) against `heuristic`, its win share minus anchor-1k's, paired by deal (the
  anchor's cells above: seed 2051's deals, used before only by the halving root's cells, and nothing of
  generation 3 was chosen on them), pooled over 2 / 3 / 4 players, has a 95% t interval above zero; (2) in
  the head to head against anchor-1k, its win share minus 1/n, pooled over the counts, has a 95% t interval
  above zero. Its paired cells are played first; once every paired cell is in and (1) fails, the verdict is
  settled without the head to head.

Generation 3 met (1) (+3.6 [+0.6, +6.6] points) and missed (2) (+2.6 [-0.1, +5.2]). A second replicate of
its head to head, added with its rule on 2026-11-29, before any of its games, on SEED_R2's deals (which no
cell used before):

  `GEN3` becomes the default if its head-to-head excess over the fair share against anchor-1k, pooled over
  both replicates (2,404 games, 2 / 3 / 4 players), has a 97.5% t interval above zero. This is a second look
  at condition (2), so its one-sided level is halved to 1.25%. Together with the first look's 2.5%, the two
  looks are at most 3.75% (Bonferroni). Condition (1) was settled by the first replicate. From the first
  replicate's spread (a standard deviation of 46 points a game), 2,404 games give 80% power for an excess of
  2.9 points at this level. The second replicate alone is reported beside the pooled result.

A third candidate, route-length tiles in the evaluation and in the playout's rule for when to close (issue 51:
the search gives up those tiles as its budget grows), added with its cells and rule on 2026-11-29, before any
of its games: `TILES` is the default `mcts` at 1000 iterations with the route-tiles refit of the evaluation
(results/value_route_tiles/: the 13th feature, which passed its offline gate) and `playout=heuristic-tiles`
(a close waits a card for a better route-length tile). Nothing of it was chosen on seed 2051's deals.

  `TILES` becomes the default if the halving root's two conditions hold for it: (1) against `heuristic`, its
  win share minus anchor-1k's, paired by deal (the anchor's cells on seed 2051's deals), pooled over
  2 / 3 / 4 players, has a 95% t interval above zero; (2) in the head to head against anchor-1k, its win
  share minus 1/n, pooled over the counts, has a 95% t interval above zero. Its paired cells are played
  first; once every paired cell is in and (1) fails, the verdict is settled without the head to head. From
  the earlier candidates' paired spread (the halving root's and generation 3's), 1,202 paired games give
  80% power for a pooled difference of 4.3-4.8 points, and the head to head for an excess of about 3.7.

The route-length tiles missed (1) (+0.3 [-3.0, +3.6] points pooled): not adopted, its head to head not played.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from ..stats import openskill_ratings
from .expert.measure import ROUTE_TILES, Cell, cell_summary, complete_games, paired, pooled, seat_rows, t_interval

SEED = 2051
SEED_R2 = 2052      # generation 3's second head-to-head replicate
CANDIDATE = "mcts(root=halving)"
GEN3 = "mcts(iterations=1000,pmodel=results/expert_gen3/prior_gen3.json)"   # run from the repository's root
TILES = ("mcts(iterations=1000,playout=heuristic-tiles,"
         "model=results/value_route_tiles/value_route_tiles.json)")                  # run from the repository's root
BASELINE = "anchor-1k"
GAMES = {2: 400, 3: 402, 4: 400}      # whole seat rotations; ~7-9 points detectable a count, ~4-5 pooled

#: the cells in the order they are played (the paired ones against heuristic first)
CELLS: list[Cell] = [
    *(c for n in GAMES for c in (Cell(f"base_p{n}", n, BASELINE, GAMES[n], seed=SEED),
                                 Cell(f"halving_p{n}", n, CANDIDATE, GAMES[n], seed=SEED))),
    *(Cell(f"h2h_p{n}", n, CANDIDATE, GAMES[n], others=BASELINE, seed=SEED) for n in GAMES),
    *(Cell(f"h2h3k_p{n}", n, CANDIDATE, GAMES[n], others="anchor-3k", seed=SEED) for n in GAMES),
    *(Cell(f"gen3_p{n}", n, GEN3, GAMES[n], seed=SEED) for n in GAMES),
    *(Cell(f"gen3_h2h_p{n}", n, GEN3, GAMES[n], others=BASELINE, seed=SEED) for n in GAMES),
    *(Cell(f"gen3_h2h_r2_p{n}", n, GEN3, GAMES[n], others=BASELINE, seed=SEED_R2) for n in GAMES),
    *(Cell(f"tiles_p{n}", n, TILES, GAMES[n], seed=SEED) for n in GAMES),
    *(Cell(f"tiles_h2h_p{n}", n, TILES, GAMES[n], others=BASELINE, seed=SEED) for n in GAMES),
]
#: the second look at generation 3's condition (2): a 97.5% interval (one-sided 1.25%)
R2_LEVEL = 0.975
BY_NAME = {c.name: c for c in CELLS}
#: the short names of the bots the cells seat (the population rating's keys)
LABELS = {"heuristic": "heuristic", BASELINE: "anchor-1k", CANDIDATE: "halving", GEN3: "gen3", TILES: "tiles"}

#: what the report prints beside wins: the searching seat's mean route-length tile points, its share of the
#: game-end tile, its unplaced houses
STRATEGY = {"route tiles": ROUTE_TILES, "game-end tile": ("tile_game_end",),
            "houses unplaced": ("houses_unplaced",)}
#: what a candidate's paired comparison with the anchor measures: wins, its score, the others' mean score and its
#: route-length tile points (what the tiles candidate was built to take)
PAIRED = ("win_share", "score", "others_score", "route_tiles")


def strategy(out: Path, cell: Cell) -> dict[str, float] | None:
    """The searching seat's mean route-length tile points, game-end tile points and unplaced houses."""
    rows = seat_rows(out, cell)
    if rows is None:
        return None
    return {name: float(rows[list(cols)].sum(axis=1).mean()) for name, cols in STRATEGY.items()}


def excess(out: Path, cells: list[Cell], level: float = 0.95) -> dict | None:
    """The candidate seat's win share minus the fair share 1/n, per game, pooled over `cells` (head to
    head): mean, t interval at `level`, p-value, games."""
    d = []
    for cell in cells:
        rows = seat_rows(out, cell)
        if rows is not None:
            d.append(rows["win_share"].to_numpy(float) - 1 / cell.players)
    x = np.concatenate(d) if d else np.zeros(0)
    if len(x) < 2:
        return None
    return {"games": len(x), "excess": float(x.mean()), **t_interval(x, level)}


def ratings(out: Path) -> dict[int, pd.DataFrame]:
    """A population rating per player count beside the wins: OpenSkill (Plackett-Luce, places from the
    scores; stats.openskill_ratings) over every complete game of the count's played cells pooled, where
    `heuristic`, anchor-1k and the candidates meet (each candidate against heuristic and against anchor-1k).
    {players: a frame indexed by bot (mu, sigma, rating = mu - 3 sigma, games)}; a count with no game left out.
    A description of the games, not a test: the adoption rules are the paired cells'."""
    rated = {}
    for n in GAMES:
        frames = []
        for i, cell in enumerate(c for c in CELLS if c.players == n):
            df = complete_games(out, cell)
            if df is not None:
                # games numbered apart by cell; a bot by its spec (a second seat's label says '#2')
                frames.append(df.assign(game=df["game"] + 1_000_000 * i, bot=df["spec"]))
        if frames:
            df = pd.concat(frames, ignore_index=True)
            bots = sorted(df["bot"].unique())
            table = openskill_ratings(df, bots)
            rated[n] = table.assign(games=df.groupby("bot")["game"].nunique().reindex(table.index))
    return rated


def verdict_of(out: Path, cells: dict, pairs: list[tuple[Cell, Cell]], h2h_cells: list[Cell]) -> dict:
    """One candidate's comparisons against anchor-1k: paired per count and pooled, the head-to-head excess
    per count and pooled, and the rule's verdict (`adopt`; `first_fails`: every paired cell played and (1)
    fails, which settles it)."""
    pool = pooled(out, pairs)
    h2h_pool = excess(out, h2h_cells)
    played = [c for pair in pairs for c in pair] + h2h_cells
    complete = all(cells[c.name].get("games") == c.games for c in played)
    paired_complete = all(cells[c.name].get("games") == c.games for pair in pairs for c in pair)
    return {"paired": {a.players: paired(out, a, b, PAIRED) for a, b in pairs}, "pooled": pool,
            "h2h": {c.players: excess(out, [c]) for c in h2h_cells}, "h2h_pooled": h2h_pool,
            "complete": complete,
            "adopt": complete and pool is not None and h2h_pool is not None and pool["low"] > 0 and h2h_pool["low"] > 0,
            "first_fails": paired_complete and pool is not None and pool["low"] <= 0}


def replicate(out: Path, cells: dict) -> dict:
    """Generation 3's second head-to-head replicate: its excess per count and pooled (95%), the excess pooled
    over both replicates at R2_LEVEL, and the second look's verdict (`adopt`: every cell of both replicates
    played and that interval above zero)."""
    first = [BY_NAME[f"gen3_h2h_p{n}"] for n in GAMES]
    second = [BY_NAME[f"gen3_h2h_r2_p{n}"] for n in GAMES]
    both = excess(out, first + second, R2_LEVEL)
    complete = all(cells[c.name].get("games") == c.games for c in first + second)
    return {"h2h": {c.players: excess(out, [c]) for c in second}, "h2h_pooled": excess(out, second),
            "both": both, "level": R2_LEVEL, "complete": complete,
            "adopt": complete and both is not None and both["low"] > 0}


def summary(out: Path) -> dict:
    """Everything the report prints, as data: each cell's summary and strategy; for the halving root (the
    top-level keys), generation 3 (under "gen3") and the route-length tiles (under "tiles") the paired
    differences per count and pooled, the head-to-head excess per count and pooled, and the adoption rule's
    verdict."""
    cells = {c.name: {**(cell_summary(out, c) or {}), **(strategy(out, c) or {})} for c in CELLS}
    base = {n: BY_NAME[f"base_p{n}"] for n in GAMES}
    halving = verdict_of(out, cells, [(BY_NAME[f"halving_p{n}"], base[n]) for n in GAMES],
                         [BY_NAME[f"h2h_p{n}"] for n in GAMES])
    gen3 = verdict_of(out, cells, [(BY_NAME[f"gen3_p{n}"], base[n]) for n in GAMES],
                      [BY_NAME[f"gen3_h2h_p{n}"] for n in GAMES])
    h2h3k = {n: excess(out, [BY_NAME[f"h2h3k_p{n}"]]) for n in GAMES}
    gen3["replicate"] = replicate(out, cells)
    tiles = verdict_of(out, cells, [(BY_NAME[f"tiles_p{n}"], base[n]) for n in GAMES],
                       [BY_NAME[f"tiles_h2h_p{n}"] for n in GAMES])
    rated = {n: {LABELS.get(bot, bot): {"mu": float(r.mu), "sigma": float(r.sigma), "games": int(r.games)}
                 for bot, r in table.iterrows()} for n, table in ratings(out).items()}
    return {"cells": cells, **halving, "h2h3k": h2h3k, "gen3": gen3, "tiles": tiles, "ratings": rated}
