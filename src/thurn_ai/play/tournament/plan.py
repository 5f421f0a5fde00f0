"""Planning and running a tournament: the games of a plan (game number -> seed and seating), one game as a
task a worker plays, and the run (in this process, a process pool or on Dask; see thurn_ai.play.workers)
with its results kept by the store."""
from __future__ import annotations

import json
import sys
from concurrent.futures.process import BrokenProcessPool
from contextlib import closing
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from ...bots import make_bot
from ...errors import TournamentError
from ...fileio import path_text, short_repr
from ...game.rules import Rules
from ..match import derive_seed, play_game, use_counts
from ..workers import connect, default_jobs, run_each
from .seats import bot_labels, check_players, result_columns, seatings, typed_frame
from .store import META_FILE, ResultStore, read_meta

DEFAULT_GAMES = 100  # rounded up to whole seating cycles when games is not given
MAX_GAMES = 1_000_000  # the command line's bound (commands/options.py GAMES), for every caller and a resume
FORMAT_VERSION = 1


# ---------------------------------------------------------------- one game (runs in a worker)

@dataclass(frozen=True)
class GameTask:
    """Everything a worker needs to play one game: plain data and the Rules (a frozen dataclass of plain
    values), so it pickles anywhere (bots are made in the worker from their specs)."""
    game: int
    seed: int
    specs: tuple[str, ...]      # per seat
    labels: tuple[str, ...]     # per seat
    rules: Rules


def play_task(task: GameTask) -> tuple[int, list[dict], str]:
    """Play one game: (game number, one result row per seat, the game record as a JSON line)."""
    rules = task.rules
    bots = [make_bot(s, derive_seed("bot", task.seed, seat)) for seat, s in enumerate(task.specs)]
    rec = play_game(rules, bots, task.seed)
    top = max(rec.scores)
    n_top = rec.scores.count(top)
    place = {seat: i + 1 for i, seat in enumerate(rec.ranking)}
    rows = []
    for seat in range(rules.players):
        row = {"game": task.game, "game_seed": task.seed, "seat": seat, "bot": task.labels[seat],
               "spec": task.specs[seat], "players": rules.players, "score": rec.scores[seat],
               "rank": place[seat], "win": int(seat == rec.winner),
               # ties on the top score are shared; `win` applies the rules' tie-break
               "win_share": 1.0 / n_top if rec.scores[seat] == top else 0.0,
               "turns": rec.turns, "truncated": rec.truncated}
        row.update({k: v for k, v in rec.details[seat].items() if k != "score"})
        row.update(use_counts(rec.official_uses[seat]))
        rows.append(row)
    record = json.loads(rec.to_json())
    record["game"] = task.game
    return task.game, rows, json.dumps(record, ensure_ascii=False)


def execute(tasks: Iterable[GameTask], jobs: int = 1, client=None):
    """Yield play_task results as games finish (see run_each)."""
    return run_each(play_task, tasks, jobs, client)



# ---------------------------------------------------------------- the tournament

@dataclass
class Plan:
    specs: list[str]
    labels: list[str]
    rules: Rules
    seed: int
    games: int
    cycle: list[tuple[int, ...]]

    def task(self, game: int) -> GameTask:
        seating = self.cycle[(game - 1) % len(self.cycle)]
        return GameTask(game=game, seed=derive_seed("tournament", self.seed, game),
                        specs=tuple(self.specs[b] for b in seating),
                        labels=tuple(self.labels[b] for b in seating), rules=self.rules)

    def planned(self, game: int) -> tuple[int, tuple[str, ...]]:
        """Game `game`'s seed and bot specs by seat (what a saved game must have been played with)."""
        task = self.task(game)
        return task.seed, task.specs

    def meta(self, columns) -> dict:
        return {"format": FORMAT_VERSION, "specs": self.specs, "players": self.rules.players,
                "seed": self.seed, "games": self.games, "rules": self.rules.to_dict(), "columns": columns,
                "cycle": len(self.cycle)}


def check_jobs(jobs) -> int:
    """The number of local worker processes (None: every core)."""
    if jobs is None:
        return default_jobs()
    if not isinstance(jobs, int) or isinstance(jobs, bool) or jobs < 1:
        raise TournamentError(f"jobs must be a positive integer, not {jobs!r}")
    return jobs


def plan_tournament(specs, players: int = 2, games: int | None = None, seed: int = 0,
                    rules_kwargs: dict | None = None, rules: Rules | None = None) -> Plan:
    """Check the settings (bot specs, seat count, rules) and fix the games; TournamentError/BotSpecError/
    RulesError name any problem. The rules are `rules` itself (for `players` players) or, without it,
    Rules(players=players, **rules_kwargs)."""
    if isinstance(specs, str) or not specs or not all(isinstance(s, str) for s in specs):
        raise TournamentError("specs must be a non-empty list of bot spec strings")
    specs = [s.strip() for s in specs]
    check_players(players)
    if not isinstance(seed, int):
        raise TournamentError(f"the seed must be an integer, not {seed!r}")
    rules = _rules(players, rules_kwargs, rules)
    for s in specs:
        make_bot(s, 0)      # a bad spec fails here, once, not in every worker
    cycle = seatings(len(specs), players)
    if games is None:
        games = -(-DEFAULT_GAMES // len(cycle)) * len(cycle)
    if not _is_games(games):
        raise TournamentError(f"the number of games must be a whole number from 1 to {MAX_GAMES:,}, "
                              f"not {short_repr(games)}")
    return Plan(specs=specs, labels=bot_labels(specs), rules=rules, seed=seed, games=games, cycle=cycle)


def _rules(players: int, rules_kwargs: dict | None, rules: Rules | None) -> Rules:
    if rules is None:
        try:
            return Rules(players=players, **(rules_kwargs or {}))
        except TypeError as e:
            raise TournamentError(f"bad rules option: {e}") from None
    if not isinstance(rules, Rules):
        raise TournamentError(f"rules must be a Rules object, not {rules!r}")
    if rules_kwargs:
        raise TournamentError("give either rules or rules_kwargs, not both")
    if rules.players != players:
        raise TournamentError(f"the rules are for {rules.players} players, the tournament for {players}")
    return rules


def _saved_games(out_dir) -> int | None:
    """The number of games of the tournament saved in out_dir; None if there is none (a damaged
    tournament.json is a TournamentError, see read_meta)."""
    path = Path(out_dir) / META_FILE
    if not path.exists():
        return None
    meta = read_meta(path)
    games = meta.get("games")
    if not _is_games(games):       # damaged: refused, never replaced by the default (and rewritten so)
        raise TournamentError(f"tournament file {path_text(path)} is damaged: games is {short_repr(games)}, not a "
                              f"whole number from 1 to {MAX_GAMES:,}; give --games to say how many were meant")
    return games


def _is_games(games) -> bool:
    return isinstance(games, int) and not isinstance(games, bool) and 1 <= games <= MAX_GAMES


def run_tournament(specs: list[str], players: int = 2, games: int | None = None, seed: int = 0,
                   jobs: int | None = None, rules_kwargs: dict | None = None, out_dir=None,
                   resume: bool | str = False, scheduler: str | None = None, progress: bool = True,
                   rules: Rules | None = None) -> pd.DataFrame:
    """Play a tournament and return its results: one row per player per game, sorted by game and seat.

    specs: bot specs (each plays every seat equally often; see seatings()). games: default
    DEFAULT_GAMES rounded up to whole seating cycles (on resume: the saved number). jobs: local worker
    processes (default: every core). rules_kwargs: Rules options (board, variant, all_provinces_tile,
    ...); or rules: the Rules object itself (for `players` players), handed to the workers as it is.
    out_dir: folder to append results to as games end (see the module doc); without resume it must
    not exist or be empty. resume: True continues the tournament in out_dir (which must exist), playing
    only the games it lacks; "auto" continues it if out_dir exists and starts it otherwise (for scripts
    that are simply run again). scheduler: a Dask scheduler address
    ('tcp://host:8786'); its workers play the games and jobs is ignored. progress: a tqdm bar on stderr.

    Columns: game, game_seed, seat, bot (label), spec, players, score, rank (1 = winner, rules' tie-break),
    win (0/1), win_share (1/k when k players tie on the top score), turns, truncated, carriage,
    carriage_size, tile_<stack> per tile stack, tiles, houses_unplaced, closes, uses_<official> and
    uses_<official>_<early|middle|late> for postmaster, administrator, postal_carrier, cartwright.
    """
    _check_resume(resume)
    plan = plan_tournament(specs, players, games_to_play(games, out_dir, resume), seed, rules_kwargs, rules)
    return run_plan(plan, jobs, out_dir, resume, scheduler, progress)


def games_to_play(games: int | None, out_dir=None, resume: bool | str = False) -> int | None:
    """`games`, or, resuming without a number of games, the number the tournament in out_dir was
    started with (None when there is none yet: plan_tournament's default)."""
    if games is None and resume and out_dir is not None:
        return _saved_games(out_dir)
    return games


def _check_resume(resume) -> None:
    if resume not in (True, False, "auto"):
        raise TournamentError(f"resume must be True, False or 'auto', not {resume!r}")


def run_plan(plan: Plan, jobs: int | None = None, out_dir=None, resume: bool | str = False,
             scheduler: str | None = None, progress: bool = True) -> pd.DataFrame:
    """Play a tournament planned by plan_tournament (run_tournament without planning it again): for a
    caller that checks the settings before any output. The other arguments as for run_tournament."""
    _check_resume(resume)
    jobs = check_jobs(jobs)
    columns = result_columns(plan.rules)
    client = connect(scheduler) if scheduler else None   # before touching out_dir: a bad address changes nothing
    try:
        return _run(plan, jobs, client, columns, out_dir, resume, progress)
    finally:
        if client is not None:
            client.close()


def _run(plan: Plan, jobs: int, client, columns: list[str], out_dir, resume, progress: bool):
    if out_dir is None:
        return _play(plan, jobs, client, columns, None, {}, progress)
    store = ResultStore(out_dir, plan.meta(columns), columns, plan.planned)
    try:
        return _play(plan, jobs, client, columns, store, store.open(resume), progress)
    finally:
        store.close()


def _play(plan: Plan, jobs: int, client, columns, store: ResultStore | None, finished: dict, progress: bool):
    # lazily: a million-game run holds a few tasks at a time, not a million (workers.in_processes)
    todo = (plan.task(g) for g in range(1, plan.games + 1) if g not in finished)
    jobs = max(1, min(jobs, plan.games - len(finished)))
    rows = []
    from tqdm import tqdm
    with tqdm(total=plan.games, initial=len(finished), desc="games", unit="game", file=sys.stderr,
              disable=not progress, dynamic_ncols=True, smoothing=0.05) as bar:
        with closing(execute(todo, jobs, client)) as results:   # closing stops the workers on Ctrl-C
            try:
                for _game, game_rows, record in results:
                    if store:
                        store.append(game_rows, record)
                    else:
                        rows.extend(game_rows)
                    bar.update(1)
            except BrokenProcessPool:
                kept = (f"; the {len(store.read_saved())} games saved in {store.dir} are kept (continue with "
                        "--resume)") if store else ""
                raise TournamentError("a worker process died (killed, e.g. by the out-of-memory killer)"
                                      + kept) from None
    if store:
        return store.finish(plan.games)
    return typed_frame(rows, columns)
