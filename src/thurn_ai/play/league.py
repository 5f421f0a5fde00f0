"""A league: round robins of a field of bots at each player count, mixed tables at 3 and 4 players.

    >>> from thurn_ai.play.league import run_league
    >>> results = run_league(["heuristic", "racer", "greedy"], players=(2, 3), games={2: 12, 3: 12},
    ...                      seed=1, out_dir="league1")          # {2: DataFrame, 3: DataFrame}

Each player count is one tournament (thurn_ai.play.tournament) in OUT/p<n>/, with the tournament seed
league_seed(seed, n): every bot plays every seat equally often, and with more bots than seats every table is a
mix of `n` different bots, each mix in every rotation (the tournament's seating cycle interleaves the mixes,
so a league cut short of a whole cycle is still close to balanced). Resumable and parallel as tournaments
are (jobs, a Dask scheduler); the same seed plays the same games. The ratings are thurn_ai.stats.rating.
"""
from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from ..errors import TournamentError
from .match import derive_seed
from .tournament import check_players, cycle_length, load_results, run_tournament


def league_seed(seed: int, players: int) -> int:
    """The tournament seed of a league's games at `players` players."""
    return derive_seed("league", seed, players)


def table_folder(out_dir, players: int) -> Path:
    return Path(out_dir) / f"p{players}"


def league_games(n_bots: int, players: int, cycles: float = 1.0) -> int:
    """Games for `cycles` seating cycles (every mix of bots in every seating)."""
    return max(1, round(cycle_length(n_bots, players) * cycles))


def run_league(specs: Sequence[str], players: Sequence[int] = (2, 3, 4), games: dict[int, int] | int | None = None,
               seed: int = 0, jobs: int | None = 1, out_dir=None, resume: bool | str = False,
               scheduler: str | None = None, progress: bool = True, rules_kwargs: dict | None = None
               ) -> dict[int, pd.DataFrame]:
    """Play the league: {players: results} (the tournament's frame, one row per seat per game).

    games: per player count ({2: 600, 3: 400}) or one number for all; None: one whole seating cycle.
    out_dir: the league folder (OUT/p<n>/ per player count); resume as run_tournament's."""
    specs = list(specs)
    if len(specs) < 2:
        raise TournamentError("a league needs at least two bots")
    players = list(players)
    for n in players:
        check_players(n)
    out = {}
    for n in players:
        count = games.get(n) if isinstance(games, dict) else games
        if count is None:
            count = league_games(len(specs), n)
        folder = table_folder(out_dir, n) if out_dir is not None else None
        out[n] = run_tournament(specs, players=n, games=count, seed=league_seed(seed, n), jobs=jobs,
                                rules_kwargs=rules_kwargs, out_dir=folder, resume=resume, scheduler=scheduler,
                                progress=progress)
    return out


def load_league(out_dir) -> dict[int, pd.DataFrame]:
    """The saved results of a league folder, by player count (the games saved so far, finished or not)."""
    out = {}
    for folder in sorted(Path(out_dir).glob("p[234]")):
        if (folder / "results.csv").exists() or (folder / "results.parquet").exists():
            out[int(folder.name[1:])] = load_results(folder)
    if not out:
        raise TournamentError(f"{out_dir} holds no league (no p2/, p3/ or p4/ with results)")
    return out
