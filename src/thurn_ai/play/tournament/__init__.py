"""Tournaments: many games between bots with balanced seats, results kept as each game ends, resumable.

    >>> from thurn_ai.play.tournament import run_tournament
    >>> df = run_tournament(["mcts(iterations=300)", "greedy"], games=20, seed=1, out_dir="t1")

Game number g (1, 2, ...) is played with seed derive_seed("tournament", seed, g) by the seating
seatings(len(specs), players)[(g - 1) % cycle]; the bot in seat s gets seed derive_seed("bot", game_seed, s)
(the same derivation `thurn-ai play` uses). A game therefore depends only on its number, never on the
worker that played it or the order games finished in, so any backend (in-process, process pool, Dask)
and any resume give the same results.

An output folder holds:
    tournament.json   the settings; --resume checks that they match
    results.csv       one row per player per game, appended as each game ends (the log a resume reads)
    records.jsonl     one game record per line, appended likewise ("game" holds the game number)
    results.parquet   the consolidated results sorted by game and seat, written when the run completes
                      (results.csv and records.jsonl are then rewritten sorted, so line N of
                      records.jsonl is game N: `thurn-ai replay OUT/records.jsonl --game N`)

Durability: a finished game is appended (its record, then its rows); every file that is rewritten is
written to a temporary file in the folder and renamed into place (thurn_ai.fileio), so a kill at any moment
leaves each file either old or new. A game counts as saved only when all its rows and its record are on
disk; anything less (a cut last line, a game's rows without its record) is dropped and the game is played
again by --resume. Pool workers end with the tournament process (see thurn_ai.play.workers).

Test hook: the environment variable THURN_AI_FAULT=POINT[@N] makes this process kill itself (SIGKILL) the
N-th time (default: the first) it reaches the named point (see the _fault calls), so tests can stop a run
at exact moments, e.g. half-way through the final rewrite of records.jsonl ("finish-records-half").

The tournament is split by job:
    plan      planning (plan_tournament: specs, seats, games) and running (run_tournament, run_plan)
    seats     the seating cycle and the results frame (columns and their types)
    store     the output folder: appending, resuming, consolidating; load_results
    faults    the test hook THURN_AI_FAULT
The worker backends (process pool, Dask) are thurn_ai.play.workers: the learned evaluation's data and the
officials study play their games there too.
"""
from ...errors import TournamentError
from ..workers import NO_PDEATHSIG_ENV, connect, default_jobs, in_processes, run_each
from .faults import FAULT_ENV
from .plan import (DEFAULT_GAMES, MAX_GAMES, GameTask, Plan, check_jobs, games_to_play, plan_tournament, play_task,
                   run_plan, run_tournament)
from .seats import USE_COLUMNS, bot_labels, check_players, cycle_length, result_columns, seatings, typed_frame
from .store import META_FILE, ResultStore, check_out_folder, complete_lines, load_results, read_meta

__all__ = ["TournamentError", "run_tournament", "plan_tournament", "run_plan", "Plan", "GameTask", "play_task",
           "check_jobs", "check_players", "games_to_play", "seatings", "cycle_length", "bot_labels",
           "result_columns", "typed_frame", "USE_COLUMNS", "ResultStore", "load_results", "read_meta",
           "check_out_folder", "complete_lines", "META_FILE", "FAULT_ENV", "NO_PDEATHSIG_ENV", "DEFAULT_GAMES",
           "MAX_GAMES", "connect", "default_jobs", "in_processes", "run_each"]
