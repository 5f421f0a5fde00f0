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
again by --resume. Pool workers end with the tournament process (see workers.init_worker).

Test hook: the environment variable THURN_AI_FAULT=POINT[@N] makes this process kill itself (SIGKILL) the
N-th time (default: the first) it reaches the named point (see the _fault calls), so tests can stop a run
at exact moments, e.g. half-way through the final rewrite of records.jsonl ("finish-records-half").
"""
from __future__ import annotations

import csv
import functools
import io
import itertools
import json
import math
import os
import signal
import sys
import time
from concurrent.futures.process import BrokenProcessPool
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from ..bots import make_bot
from ..game.officials import OFFICIALS, PHASES
from ..errors import ThurnError
from ..fileio import atomic_open, atomic_write_text, load_json, loads_json, path_text, short_repr, temp_files
from .match import derive_seed, play_game
from ..game.rules import Rules
from .workers import NO_PDEATHSIG_ENV, init_worker  # noqa: F401  (tests name NO_PDEATHSIG_ENV here)

DEFAULT_GAMES = 100  # rounded up to whole seating cycles when games is not given
MAX_GAMES = 1_000_000  # the command line's bound (commands/options.py GAMES), for every caller and a resume
MAX_CYCLE = 100_000    # games of one seating cycle (see seatings): more bots than that allows are refused
FORMAT_VERSION = 1

META_FILE, CSV_FILE, RECORDS_FILE, PARQUET_FILE, LOCK_FILE = (
    "tournament.json", "results.csv", "records.jsonl", "results.parquet", ".lock")

# Columns that do not depend on the board (tile columns, one per tile stack, go between them).
ID_COLUMNS = ["game", "game_seed", "seat", "bot", "spec", "players"]
RESULT_COLUMNS = ["score", "rank", "win", "win_share", "turns", "truncated", "carriage", "carriage_size"]
AFTER_TILES = ["tiles", "houses_unplaced", "closes"]
USE_COLUMNS = [f"uses_{o}" for o in OFFICIALS] + [f"uses_{o}_{p}" for o in OFFICIALS for p in PHASES]
TEXT_COLUMNS = {"bot", "spec"}
FLOAT_COLUMNS = {"win_share"}
BOOL_COLUMNS = {"truncated"}


class TournamentError(ThurnError):
    """Impossible tournament settings, or an output folder that cannot be used or resumed."""


# ---------------------------------------------------------------- test hook

FAULT_ENV = "THURN_AI_FAULT"
_fault_counts: dict[str, int] = {}


def _fault_target() -> tuple[str, int] | None:
    spec = os.environ.get(FAULT_ENV, "").strip()
    if not spec:
        return None
    point, _, nth = spec.partition("@")
    return point, int(nth) if nth.isdigit() else 1


def _fault(point: str) -> None:
    """Test hook: SIGKILL this process when it reaches `point` for the N-th time, if THURN_AI_FAULT says so
    (a no-op otherwise)."""
    target = _fault_target()
    if target is None or target[0] != point:
        return
    _fault_counts[point] = _fault_counts.get(point, 0) + 1
    if _fault_counts[point] == target[1]:
        sys.stdout.flush()
        sys.stderr.flush()
        os.kill(os.getpid(), signal.SIGKILL)
        time.sleep(10)      # the signal is delivered at once; never go on


def _write(f, text: str, point: str) -> None:
    """f.write(text) in one write, or, when the test hook names `point`, in two halves with the hook between
    them (so a test can kill the process with half of the text on disk)."""
    target = _fault_target()
    if target is None or target[0] != point or len(text) < 2:
        f.write(text)
        return
    f.write(text[:len(text) // 2])
    f.flush()
    os.fsync(f.fileno())
    _fault(point)
    f.write(text[len(text) // 2:])


# ---------------------------------------------------------------- seats

def cycle_length(n_bots: int, players: int) -> int:
    """len(seatings(n_bots, players)), counted: each choice of the bots with one seat more, times the
    distinct arrangements of that mix."""
    base, extra = divmod(players, n_bots)
    same = math.factorial(base) ** (n_bots - extra) * math.factorial(base + 1) ** extra
    return math.comb(n_bots, extra) * (math.factorial(players) // same)


def seatings(n_bots: int, players: int) -> list[tuple[int, ...]]:
    """One cycle of seatings (a tuple of bot indices per seat) in which every bot plays every seat equally
    often and every bot plays equally many games.

    Each game has as even a mix of bots as the seat count allows: every bot gets players // n_bots seats
    and players % n_bots bots (each combination of them in turn) get one more. With more bots than seats,
    that is every combination of `players` bots. Every distinct arrangement of each mix is played once.
    Arrangements come in rotation groups (a seating and its rotations, which alone are seat-balanced) and the
    groups of the different mixes are interleaved, so that a tournament cut short of a whole cycle is
    still close to balanced. For 2 bots and 2 players: (0, 1), (1, 0).
    """
    if n_bots < 1:
        raise TournamentError("a tournament needs at least one bot")
    check_players(players)
    base, extra = divmod(players, n_bots)
    size = cycle_length(n_bots, players)
    if size > MAX_CYCLE:          # counted before it is built: 60 bots at 4 players would be 11.7 million
        raise TournamentError(f"{n_bots} bots at {players} players need {size:,} games for every bot to play "
                              f"every seat and mix equally often (at most {MAX_CYCLE:,}); use fewer bots")
    groups_by_mix = []
    for more in itertools.combinations(range(n_bots), extra):
        mix = [b for b in range(n_bots) for _ in range(base + (b in more))]
        arrangements = sorted(set(itertools.permutations(mix)))
        groups, used = [], set()
        for a in arrangements:
            if a in used:
                continue
            group = []
            for r in range(players):
                rotated = a[r:] + a[:r]
                if rotated not in used:
                    used.add(rotated)
                    group.append(rotated)
            groups.append(group)
        groups_by_mix.append(groups)
    cycle = []
    for round_ in itertools.zip_longest(*groups_by_mix):
        for group in round_:
            if group:
                cycle.extend(group)
    return cycle


def bot_labels(specs: list[str]) -> list[str]:
    """Names for the result table: the spec itself, or 'spec #i' when the same spec is entered twice."""
    repeated = {s for s in specs if specs.count(s) > 1}
    return [f"{s} #{i + 1}" if s in repeated else s for i, s in enumerate(specs)]


def result_columns(rules: Rules) -> list[str]:
    tiles = [f"tile_{t.id}" for t in rules.load_board().tiles]
    return ID_COLUMNS + RESULT_COLUMNS + tiles + AFTER_TILES + USE_COLUMNS


def typed_frame(rows, columns: list[str]) -> pd.DataFrame:
    """Results with fixed column types, sorted by game and seat (the same frame however it was made)."""
    df = pd.DataFrame(rows, columns=columns) if not isinstance(rows, pd.DataFrame) else rows[columns]
    types = {c: ("str" if c in TEXT_COLUMNS else "float64" if c in FLOAT_COLUMNS else
                 "bool" if c in BOOL_COLUMNS else "int64") for c in columns}
    return df.astype(types).sort_values(["game", "seat"], kind="stable").reset_index(drop=True)


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
        for official, by_phase in rec.official_uses[seat].items():
            row[f"uses_{official}"] = sum(by_phase.values())
            for phase in PHASES:
                row[f"uses_{official}_{phase}"] = by_phase[phase]
        rows.append(row)
    record = json.loads(rec.to_json())
    record["game"] = task.game
    return task.game, rows, json.dumps(record, ensure_ascii=False)


# ---------------------------------------------------------------- backends

def in_processes(fn, tasks, jobs: int):
    """Yield fn(task) for every task as they finish, in a pool of `jobs` worker processes that end with this
    process (Ctrl-C stops them; see workers.init_worker). `fn` must be picklable (a module-level function)."""
    from concurrent.futures import ProcessPoolExecutor, as_completed
    pool = ProcessPoolExecutor(max_workers=jobs, initializer=init_worker, initargs=(os.getpid(),))
    try:
        futures = [pool.submit(fn, t) for t in tasks]
        for f in as_completed(futures):
            yield f.result()
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def connect(address: str):
    """A Dask client for the scheduler at address (TournamentError if it cannot be reached)."""
    try:
        from distributed import Client
    except ImportError:
        raise TournamentError("--scheduler needs dask.distributed (pip install 'dask[distributed]')") from None
    if address.startswith("tls://"):
        import dask
        if not all(dask.config.get(f"distributed.comm.tls.{k}", None)
                   for k in ("ca-file", "client.cert", "client.key")):
            raise TournamentError(
                f"a tls:// scheduler ({address}) needs the CA file and this client's certificate and key: set "
                "DASK_DISTRIBUTED__COMM__TLS__CA_FILE, DASK_DISTRIBUTED__COMM__TLS__CLIENT__CERT and "
                "DASK_DISTRIBUTED__COMM__TLS__CLIENT__KEY (see docs/tournaments.md)")
    try:
        return Client(address, timeout="15s")
    except (OSError, TimeoutError, ValueError, TypeError) as e:
        raise TournamentError(f"cannot reach the Dask scheduler at {address}: {e}") from None


def _run_dask(fn, tasks, client):
    from distributed import as_completed
    futures = client.map(fn, tasks, pure=False)
    try:
        for f in as_completed(futures):
            yield f.result()
    finally:
        client.cancel(futures)


def run_each(fn, tasks: list, jobs: int = 1, client=None):
    """Yield fn(task) for every task as they finish: on a Dask cluster (a distributed.Client), in a local
    process pool (jobs > 1), or in this process. `fn` must be picklable (a module-level function)."""
    if client is not None:
        return _run_dask(fn, tasks, client)
    if jobs > 1 and len(tasks) > 1:
        return in_processes(fn, tasks, min(jobs, len(tasks)))
    return (fn(t) for t in tasks)


def execute(tasks: list[GameTask], jobs: int = 1, client=None):
    """Yield play_task results as games finish (see run_each)."""
    return run_each(play_task, tasks, jobs, client)


def default_jobs() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


# ---------------------------------------------------------------- output folder

def complete_lines(path: Path) -> str:
    """A log file's text without a partly written last line (a run killed while writing)."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise TournamentError(f"cannot read {path_text(path)}: {e}") from None
    return text if text.endswith("\n") else text[:text.rfind("\n") + 1]


OWN_FILES = (META_FILE, CSV_FILE, RECORDS_FILE, PARQUET_FILE)

# The folder locks this process holds. A forked child (a pool worker) must not keep one: an flock belongs
# to the open file, which a child shares, so a worker still ending after the tournament process was killed
# would refuse the resume that follows at once.
_held_locks: set = set()


def _drop_locks_in_child():
    for f in list(_held_locks):
        try:
            os.close(f.fileno())
        except (OSError, ValueError):
            pass
    _held_locks.clear()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_drop_locks_in_child)


def _leftover(name: str) -> bool:
    """A file a killed run of ours may leave in a folder before it holds tournament.json: the lock, or a
    temporary file of an atomic write."""
    return name == LOCK_FILE or (name.endswith(".tmp") and any(name.startswith(f".{n}.") for n in OWN_FILES))


def check_out_folder(folder, resume) -> None:
    """One TournamentError unless `folder` can take this run: new (not with --resume), or holding a
    tournament (only with --resume), or empty but for what a killed run of ours leaves; nothing else is
    overwritten. The run checks again under its lock; the command checks first, before any output."""
    folder = Path(folder)
    if not folder.exists():
        if resume is True:
            raise TournamentError(f"{path_text(folder)} does not exist, so there is no tournament to resume "
                                  "(leave out --resume to start one)")
        return
    if not folder.is_dir():
        raise TournamentError(f"{path_text(folder)} is a file, not a folder")
    if (folder / META_FILE).exists():
        if not resume:
            raise TournamentError(f"{path_text(folder)} already holds a tournament; continue it with --resume "
                                  "or choose another --out folder")
        return
    try:
        foreign = sorted(path_text(p.name) for p in folder.iterdir() if not _leftover(p.name))
    except OSError as e:
        raise TournamentError(f"cannot read {path_text(folder)}: {e.strerror}") from None
    if foreign:
        shown = ", ".join(foreign[:3]) + (", ..." if len(foreign) > 3 else "")
        what = ("there is no tournament to resume there; check the --out folder" if resume else
                "it is not used for a new tournament (nothing is overwritten); choose a new or empty "
                "--out folder")
        raise TournamentError(f"{path_text(folder)} holds files ({shown}) but no {META_FILE}, so {what}")


def _parse_row(row: dict, columns: list[str]) -> bool:
    """Whether a results.csv row holds a value of the right type in every column."""
    try:
        for c in columns:
            v = row[c]
            if c in TEXT_COLUMNS:
                if v is None:
                    return False
            elif c in FLOAT_COLUMNS:
                float(v)
            elif c in BOOL_COLUMNS:
                if v not in ("True", "False"):
                    return False
            else:
                int(v)
    except (KeyError, TypeError, ValueError):
        return False
    return None not in row        # no extra fields


def _writes(method):
    """A failed write (a full disk, a read-only folder) is one TournamentError; the atomic writes and the
    append order leave the folder resumable."""
    @functools.wraps(method)
    def wrapper(self, *args, **kwargs):
        try:
            return method(self, *args, **kwargs)
        except OSError as e:
            raise TournamentError(f"cannot write to {self.shown}: {e.strerror or e}; the games saved so far are "
                                  "kept (continue with --resume)") from None
    return wrapper


@dataclass
class SavedGame:
    rows: list[dict]      # as read from results.csv (text values), by seat
    record: str           # its line of records.jsonl (without the newline)


class ResultStore:
    """The output folder: appends each finished game, reads back what a resume keeps, consolidates.

    What counts as saved: a game whose rows (one per seat, every value well-formed) are in results.csv and
    whose record (same game number and seed) is in records.jsonl. Everything else -- a cut last line in
    either file, a game with some of its rows, rows without a record, a record without rows -- is dropped
    when a run opens the folder, and the game is played again. The only errors are a folder that is not a
    tournament of these settings (tournament.json missing, unreadable or different, results.csv with
    other columns) or one that holds more games than asked for."""

    def __init__(self, out_dir, meta: dict, columns: list[str]):
        self.dir = Path(out_dir)
        self.shown = path_text(self.dir)     # the folder as messages name it (one line)
        self.meta = meta
        self.columns = columns
        self._lock = None

    def path(self, name: str) -> Path:
        return self.dir / name

    def open(self, resume) -> dict[int, SavedGame]:
        """Prepare the folder; returns the finished games a resume keeps.

        resume=False: a new tournament, in a folder that does not exist or is empty (files a killed run of
        ours left before it wrote tournament.json do not count). resume=True: continue the tournament in an
        existing folder (one that holds only such leftovers starts it). resume="auto": continue it if the
        folder exists, else start it."""
        self._check_folder(resume)
        try:
            self.dir.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise TournamentError(f"cannot create {self.shown}: {e.strerror}") from None
        self._take_lock()
        _fault("open-start")
        self._check_folder(resume)        # again, under the lock
        for name in OWN_FILES:           # temporary files of writes a kill interrupted
            for tmp in temp_files(self.dir, name):
                tmp.unlink(missing_ok=True)
        finished: dict[int, SavedGame] = {}
        if self.path(META_FILE).exists():
            self._check_meta()
            finished = self.read_saved()
            if finished and max(finished) > self.meta["games"]:
                raise TournamentError(f"{self.shown} already holds {max(finished)} games, more than the "
                                      f"{self.meta['games']} asked for")
            self.path(PARQUET_FILE).unlink(missing_ok=True)   # stale until the run completes again
            _fault("open-parquet-removed")
            self._write_meta()
            self._rewrite(finished, "open")
        else:
            self._write_meta()               # first: from now on the folder is a tournament to resume
            _fault("open-meta-written")
            self._rewrite({}, "open")
        _fault("open-done")
        return finished

    def _check_folder(self, resume):
        check_out_folder(self.dir, resume)

    def _take_lock(self):
        """Two runs appending to one folder would corrupt it: the second is refused. The lock is an OS
        file lock, so it goes away with the process that held it (even if killed)."""
        try:
            import fcntl
        except ImportError:       # not on POSIX: no lock
            return
        try:
            self._lock = open(self.path(LOCK_FILE), "w")
        except OSError as e:
            raise TournamentError(f"cannot write to {self.shown}: {e.strerror}") from None
        try:
            fcntl.flock(self._lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            self._lock.close()
            self._lock = None
            raise TournamentError(f"another run is writing to {self.shown}; wait for it or stop it first") from None
        _held_locks.add(self._lock)

    def close(self):
        if self._lock is not None:
            _held_locks.discard(self._lock)
            self._lock.close()     # releases the lock
            self._lock = None

    def _check_meta(self):
        old = read_meta(self.path(META_FILE))
        for key in ("specs", "players", "seed", "rules", "columns"):
            if old.get(key) != self.meta[key]:
                raise TournamentError(f"{self.shown} holds a different tournament ({key}: {old.get(key)!r}, "
                                      f"now {self.meta[key]!r}); resume it with the same settings")

    def read_saved(self) -> dict[int, SavedGame]:
        """The saved games (see the class doc); everything else in the two logs is ignored."""
        rows = self._read_rows()
        records = self._read_records(rows)
        return {g: SavedGame(rows[g], records[g]) for g in sorted(rows) if g in records}

    def _read_rows(self) -> dict[int, list[dict]]:
        """Games with a complete, well-formed set of rows in results.csv (by seat)."""
        lines = self._lines(CSV_FILE)
        if lines is None:
            return {}
        text = "".join(lines)
        reader = csv.DictReader(io.StringIO(text))
        if text and reader.fieldnames != self.columns:
            raise TournamentError(f"{self.path(CSV_FILE)} does not have the expected columns")
        by_game: dict[int, list[dict]] = {}
        bad: set[int] = set()
        try:
            for row in reader:
                if _parse_row(row, self.columns):
                    by_game.setdefault(int(row["game"]), []).append(row)
                else:
                    with_number = row.get("game")
                    if isinstance(with_number, str) and with_number.isdigit():
                        bad.add(int(with_number))
        except csv.Error:
            pass      # a garbled line: the games after it are played again
        players = self.meta["players"]
        complete = {}
        for g, game_rows in by_game.items():
            seats = sorted(int(r["seat"]) for r in game_rows)
            if g >= 1 and g not in bad and seats == list(range(players)) \
                    and len({r["game_seed"] for r in game_rows}) == 1:
                complete[g] = sorted(game_rows, key=lambda r: int(r["seat"]))
        return complete

    def _read_records(self, rows: dict[int, list[dict]]) -> dict[int, str]:
        """The record line of each of these games (the first one that parses and has the game's seed)."""
        records = {}
        for line in self._lines(RECORDS_FILE) or []:
            try:
                rec = loads_json(line, f"a line of {self.path(RECORDS_FILE)}", TournamentError)
                game, seed = rec["game"], rec["seed"]
            except (TournamentError, TypeError, KeyError):
                continue                # a damaged line: that game is played again
            if (isinstance(game, int) and game in rows and game not in records
                    and str(seed) == rows[game][0]["game_seed"]):
                records[game] = line.rstrip("\n")
        return records

    def _lines(self, name: str) -> list[str] | None:
        """The complete lines of a log file (None if there is none): a partly written last line, and any
        line that is not valid UTF-8, left out."""
        try:
            data = self.path(name).read_bytes()
        except FileNotFoundError:
            return None
        except OSError as e:
            raise TournamentError(f"cannot read {self.path(name)}: {e.strerror}") from None
        lines = []
        for raw in data.split(b"\n")[:-1]:        # what follows the last newline is a partly written line
            try:
                lines.append(raw.decode("utf-8") + "\n")
            except UnicodeDecodeError:
                continue
        return lines

    @_writes
    def _rewrite(self, games: dict[int, SavedGame], stage: str):
        """records.jsonl and results.csv holding exactly these games, sorted; each replaced atomically, the
        records first (so results.csv never names a game whose record the folder lacks)."""
        order = sorted(games)
        with atomic_open(self.path(RECORDS_FILE), "w", newline="") as f:
            _write(f, "".join(games[g].record + "\n" for g in order), f"{stage}-records-half")
        _fault(f"{stage}-records-written")
        buf = io.StringIO()
        writer = csv.DictWriter(buf, self.columns, lineterminator="\n")
        writer.writeheader()
        for g in order:
            writer.writerows(games[g].rows)
        with atomic_open(self.path(CSV_FILE), "w", newline="") as f:
            _write(f, buf.getvalue(), f"{stage}-csv-half")
        _fault(f"{stage}-csv-written")

    @_writes
    def _write_meta(self):
        atomic_write_text(self.path(META_FILE), json.dumps(self.meta, indent=2, ensure_ascii=False) + "\n")

    @_writes
    def append(self, rows: list[dict], record_line: str):
        """One finished game: its record first, then its rows (each in one write), so a game counts as
        finished only when both are on disk."""
        with open(self.path(RECORDS_FILE), "a", encoding="utf-8", newline="") as f:
            _write(f, record_line + "\n", "append-record-half")
        _fault("append-record")
        buf = io.StringIO()
        csv.DictWriter(buf, self.columns, lineterminator="\n").writerows(rows)
        with open(self.path(CSV_FILE), "a", encoding="utf-8", newline="") as f:
            _write(f, buf.getvalue(), "append-rows-half")
        _fault("append-rows")

    def missing(self, games: int) -> list[int]:
        """The game numbers up to `games` that are not saved."""
        saved = self.read_saved()
        return [g for g in range(1, games + 1) if g not in saved]

    def finish(self, games: int) -> pd.DataFrame:
        """Sort the logs, write results.parquet, return the results."""
        _fault("finish-start")
        saved = self.read_saved()
        missing = [g for g in range(1, games + 1) if g not in saved]
        if missing:
            raise TournamentError(f"games {missing[:10]} are missing from {self.shown}; --resume plays them again")
        self._rewrite({g: saved[g] for g in range(1, games + 1)}, "finish")
        df = typed_frame(pd.read_csv(self.path(CSV_FILE), keep_default_na=False), self.columns)
        self._write_parquet(df)
        _fault("finish-done")
        return df

    @_writes
    def _write_parquet(self, df: pd.DataFrame):
        with atomic_open(self.path(PARQUET_FILE), "wb") as f:
            df.to_parquet(f, index=False)
            _fault("finish-parquet-unrenamed")


def load_results(path, note=None) -> pd.DataFrame:
    """The results saved in a tournament folder (results.parquet, or results.csv of an unfinished run or
    when results.parquet is damaged), or a results file itself. note(text) is told when results.csv stands
    in for a damaged results.parquet (default: a line 'note: ...' on stderr)."""
    p = Path(path)
    if p.is_dir():
        parquet, csv_path = p / PARQUET_FILE, p / CSV_FILE
        if parquet.exists():
            try:
                return _load_file(parquet)
            except TournamentError as e:
                if not csv_path.exists():
                    raise
                (note or _note)(f"{e}; reading {csv_path} instead")
        if csv_path.exists():
            return _load_file(csv_path)
        raise TournamentError(f"{path_text(path)} holds no tournament results ({PARQUET_FILE} or {CSV_FILE})")
    if not p.exists():
        raise TournamentError(f"{path_text(path)} does not exist")
    return _load_file(p)


def _note(text: str) -> None:
    print(f"note: {text}", file=sys.stderr, flush=True)


def _load_file(p: Path) -> pd.DataFrame:
    try:
        if p.suffix == ".parquet":
            df = pd.read_parquet(p)
        else:
            df = pd.read_csv(io.StringIO(complete_lines(p)), keep_default_na=False)
    except Exception as e:   # pyarrow and the CSV parser raise many kinds; all mean "unreadable"
        raise TournamentError(f"cannot read tournament results from {path_text(p)}: {e}") from None
    needed = set(ID_COLUMNS + RESULT_COLUMNS + AFTER_TILES + USE_COLUMNS)
    lacking = sorted(needed - set(df.columns))
    if lacking:
        raise TournamentError(f"{path_text(p)} is not a tournament result file (no column {', '.join(lacking[:5])})")
    if p.suffix != ".parquet" and len(df):
        df = _whole_games(df, p)
    columns = [c for c in df.columns if c in needed or c.startswith("tile_")]
    try:
        return typed_frame(df, columns)
    except (ValueError, TypeError) as e:
        raise TournamentError(f"{path_text(p)} holds malformed values: {e}") from None


def _whole_games(df: pd.DataFrame, p: Path) -> pd.DataFrame:
    """The rows of whole games: a partly written last game (an interrupted run) is dropped; a game whose
    rows disagree with their `players` anywhere else is a damaged file, refused rather than dropped
    silently (a report would count fewer games than were played)."""
    players = pd.to_numeric(df["players"], errors="coerce")
    rows = df.groupby("game")["seat"].transform("count")
    whole = rows == players
    last = df["game"].iloc[-1]
    damaged = ~whole & ~((df["game"] == last) & (rows < players))
    if damaged.any():
        k = damaged.to_numpy().argmax()
        raise TournamentError(f"{path_text(p)}: game {df['game'].iloc[k]} has {rows.iloc[k]} rows but players is "
                              f"{short_repr(df['players'].iloc[k])}; the file is damaged (a tournament run "
                              "again with --resume into its folder repairs it)")
    return df[whole]


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


def check_players(players) -> None:
    if not isinstance(players, int) or isinstance(players, bool) or not 2 <= players <= 4:
        raise TournamentError(f"a game has 2, 3 or 4 players, not {players!r}")


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


def read_meta(path) -> dict:
    """A tournament folder's tournament.json; one TournamentError naming the file if it cannot be read,
    is not JSON (see fileio.load_json) or is not a JSON object."""
    meta = load_json(path, "tournament file", TournamentError)
    if not isinstance(meta, dict):
        raise TournamentError(f"tournament file {path_text(path)} is not a JSON object")
    return meta


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
    store = ResultStore(out_dir, plan.meta(columns), columns)
    try:
        return _play(plan, jobs, client, columns, store, store.open(resume), progress)
    finally:
        store.close()


def _play(plan: Plan, jobs: int, client, columns, store: ResultStore | None, finished: dict, progress: bool):
    todo = [plan.task(g) for g in range(1, plan.games + 1) if g not in finished]
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
