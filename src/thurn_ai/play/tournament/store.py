"""A tournament's output folder: results.csv and records.jsonl appended as each game ends, read back by a
resume (only whole games count), consolidated into results.parquet at the end; reading results back
(load_results). The files and the durability rules are described in thurn_ai/play/tournament/__init__.py."""
from __future__ import annotations

import contextlib
import csv
import functools
import io
import itertools
import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from ...errors import TournamentError
from ...extras import have, need
from ...fileio import (atomic_open, atomic_write_text, decode_text, load_json, loads_json, open_append, path_text,
                       read_bounded, read_lines, short_repr, temp_files)
from . import faults
from .seats import (AFTER_TILES, BOOL_COLUMNS, FLOAT_COLUMNS, ID_COLUMNS, RESULT_COLUMNS, TEXT_COLUMNS, USE_COLUMNS,
                    bot_labels, typed_frame)

META_FILE, CSV_FILE, RECORDS_FILE, PARQUET_FILE, LOCK_FILE = (
    "tournament.json", "results.csv", "records.jsonl", "results.parquet", ".lock")


#: The most bytes of a results file read whole (results.csv by `report` and the studies, results.parquet):
#: the largest tournament --games allows (MAX_GAMES games of 4 rows of about 150 bytes: 600 MB) fits, and
#: so does a machine of 2 GB. The file is streamed in chunks up to the bound (fileio.read_capped), so memory
#: follows the file's size, never the bound. The logs a run reads back are streamed line by line
#: (read_lines), with no bound on their size: a record of many games is never held whole.
MAX_LOG_BYTES = 2 ** 30
#: The longest line of a log: a record of a game at the rules' longest (32,767 turns) is a few MB; a longer
#: line is damaged (its game is played again).
MAX_LINE_BYTES = 64 * 2 ** 20


def complete_lines(path: Path) -> str:
    """A log file's text without a partly written last line (a run killed while writing); at most
    MAX_LOG_BYTES are read (fileio.read_bounded), so /dev/zero or a huge file is one TournamentError."""
    try:
        text = decode_text(read_bounded(path, "log file", TournamentError, MAX_LOG_BYTES),
                           f"log file {path_text(path)}", TournamentError)
    except FileNotFoundError as e:
        raise TournamentError(f"cannot read {path_text(path)}: {e.strerror}") from None
    return text if text.endswith("\n") else text[:text.rfind("\n") + 1]


def _complete_bytes(path: Path) -> bytes:
    """complete_lines as bytes, for a parser that decodes them itself (pandas): no copy as text."""
    try:
        data = read_bounded(path, "log file", TournamentError, MAX_LOG_BYTES)
    except FileNotFoundError as e:
        raise TournamentError(f"cannot read {path_text(path)}: {e.strerror}") from None
    end = data.rfind(b"\n") + 1
    return data if end == len(data) else data[:end]


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


def _write(f, data, point: str, halfway: bool) -> None:
    """Write a game's part of a rewritten log; the one half-way through is where the test hook `point` may
    stop the process (faults.write)."""
    if halfway:
        faults.write(f, data, point)
    else:
        f.write(data)


@dataclass
class SavedGame:
    rows: str                   # its lines of results.csv, by seat
    record_at: tuple[int, int]  # (offset, length) of its line in records.jsonl (without the newline)


@dataclass
class _GameRows:
    """A game's rows as read from results.csv: what its record is checked against, and the rows' text."""
    seed: str
    seats: list[tuple[str, str, int, int]]     # (spec, bot, score, players) by seat
    text: str


class ResultStore:
    """The output folder: appends each finished game, reads back what a resume keeps, consolidates.

    What counts as saved: a game whose rows (one per seat, every value well-formed) are in results.csv and
    whose record (same game number and seed) is in records.jsonl. Everything else -- a cut last line in
    either file, a game with some of its rows, rows without a record, a record without rows -- is dropped
    when a run opens the folder, and the game is played again. The only errors are a folder that is not a
    tournament of these settings (tournament.json missing, unreadable or different, results.csv with
    other columns) or one that holds more games than asked for."""

    def __init__(self, out_dir, meta: dict, columns: list[str], planned=None):
        """planned(game) -> (seed, bot specs by seat) of a game as the tournament plans it (Plan.planned): a
        resume refuses a folder whose saved games were played otherwise (its tournament.json was edited)."""
        self.planned = planned
        self._unplanned: tuple[int, str] | None = None     # the first saved game played otherwise, and how
        self.dir = Path(out_dir)
        self.shown = path_text(self.dir)     # the folder as messages name it (one line)
        self.meta = meta
        self.columns = columns
        self._lock: io.TextIOWrapper | None = None      # the open lock file while this run holds it

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
        faults.fault("open-start")
        self._check_folder(resume)        # again, under the lock
        for name in OWN_FILES:           # temporary files of writes a kill interrupted
            for tmp in temp_files(self.dir, name):
                tmp.unlink(missing_ok=True)
        finished: dict[int, SavedGame] = {}
        if self.path(META_FILE).exists():
            self._check_meta()
            if resume is True:
                self._check_records_kept()
            finished = self.read_saved()
            if self._unplanned is not None:
                game, how = self._unplanned
                raise TournamentError(
                    f"{META_FILE} in {self.shown} disagrees with the games saved there: game {game} was played "
                    f"{how}; was {META_FILE} edited? Restore it, or start a new tournament in another --out folder")
            if finished and max(finished) > self.meta["games"]:
                raise TournamentError(f"{self.shown} already holds {max(finished)} games, more than the "
                                      f"{self.meta['games']} asked for")
            self.path(PARQUET_FILE).unlink(missing_ok=True)   # stale until the run completes again
            faults.fault("open-parquet-removed")
            self._write_meta()
            self._rewrite(finished, "open")
        else:
            self._write_meta()               # first: from now on the folder is a tournament to resume
            faults.fault("open-meta-written")
            self._rewrite({}, "open")
        faults.fault("open-done")
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
        try:      # not through a link (opening one "w" would empty the file it points to)
            self._lock = open_append(self.path(LOCK_FILE), "lock file", TournamentError)
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
        for key in ("format", "specs", "players", "seed", "rules", "columns", "cycle"):
            if old.get(key) != self.meta[key]:
                raise TournamentError(f"{self.shown} holds a different tournament ({key}: {old.get(key)!r}, "
                                      f"now {self.meta[key]!r}); resume it with the same settings")

    def _check_records_kept(self):
        """A TournamentError where results.csv holds finished games but records.jsonl is gone. Our writes put a
        game's record on disk before its rows, so no kill leaves this: the records were deleted, or the folder
        was copied (committed) without them. An explicit resume would drop every game and play them all again;
        resume="auto" (the experiments' reruns of committed cells, whose records are not committed) does that."""
        if self.path(RECORDS_FILE).exists():
            return
        games = len(self._read_rows())
        if games:
            raise TournamentError(
                f"{self.shown} holds {games} finished games in {CSV_FILE} but no {RECORDS_FILE}; a game counts "
                f"only with its record, so a resume would play all of them again: restore {RECORDS_FILE}, or "
                f"move {CSV_FILE} away to start over")

    def read_saved(self) -> dict[int, SavedGame]:
        """The saved games (see the class doc); everything else in the two logs is ignored. The logs are
        streamed: what is kept of a game is its rows' text and where its record is."""
        rows = self._read_rows()
        records = self._read_records(rows)
        return {g: SavedGame(rows[g].text, records[g]) for g in sorted(rows) if g in records}

    def _rows_agree(self, rows: _GameRows, record: dict) -> bool:
        """Whether a game's rows say what its record says: each seat's bot (label and spec, as the
        tournament names them) and score. A row damaged in a way its types do not show (a bot label
        changed) would otherwise be kept, and a phantom bot appear in the results."""
        try:
            bots, scores = record["bots"], record["scores"]
            named = set(zip(self.meta["specs"], bot_labels(self.meta["specs"])))
            return all(spec == bots[seat] and (spec, bot) in named and score == scores[seat]
                       and players == self.meta["players"]
                       for seat, (spec, bot, score, players) in enumerate(rows.seats))
        except (ValueError, TypeError, KeyError, IndexError, AttributeError):
            return False

    def _read_rows(self) -> dict[int, _GameRows]:
        """Games with a complete, well-formed set of rows in results.csv."""
        lines = self._lines(CSV_FILE)
        header = next(lines, None)
        if header is None:
            return {}
        reader = csv.DictReader(itertools.chain([header], lines))
        if reader.fieldnames != self.columns:
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
        return {g: self._game_rows(game_rows) for g, game_rows in by_game.items()
                if g >= 1 and g not in bad and self._complete(game_rows)}

    def _complete(self, game_rows: list[dict]) -> bool:
        return (sorted(int(r["seat"]) for r in game_rows) == list(range(self.meta["players"]))
                and len({r["game_seed"] for r in game_rows}) == 1)

    def _game_rows(self, game_rows: list[dict]) -> _GameRows:
        game_rows = sorted(game_rows, key=lambda r: int(r["seat"]))
        buf = io.StringIO()
        csv.DictWriter(buf, self.columns, lineterminator="\n").writerows(game_rows)
        return _GameRows(seed=game_rows[0]["game_seed"], text=buf.getvalue(),
                         seats=[(r["spec"], r["bot"], int(r["score"]), int(r["players"])) for r in game_rows])

    def _read_records(self, rows: dict[int, _GameRows]) -> dict[int, tuple[int, int]]:
        """Where the record of each of these games is in records.jsonl: the first line that parses, has the
        game's seed and agrees with its rows."""
        records: dict[int, tuple[int, int]] = {}
        path = self.path(RECORDS_FILE)
        try:
            for offset, raw in read_lines(path, "log file", TournamentError, MAX_LINE_BYTES):
                try:
                    rec = loads_json(raw.decode("utf-8"), f"a line of {path}", TournamentError)
                    game, seed = rec["game"], rec["seed"]
                except (TournamentError, UnicodeDecodeError, TypeError, KeyError):
                    continue                # a damaged line: that game is played again
                if not (isinstance(game, int) and game in rows and game not in records
                        and str(seed) == rows[game].seed):
                    continue
                if not self._as_planned(game, rec):
                    continue
                if self._rows_agree(rows[game], rec):
                    records[game] = (offset, len(raw))
        except FileNotFoundError:
            pass
        return records

    def _as_planned(self, game: int, record: dict) -> bool:
        """Whether a saved game was played with the rules of the settings and the seed and seating the plan
        gives it (noted if not): an edited rule (max_turns, the tile's reading) never mixes two rule sets in
        one folder."""
        rules = self.meta.get("rules")
        how: str | None
        if isinstance(rules, dict) and record.get("rules") != rules:
            how = f"under the rules {short_repr(record.get('rules'), 200)}, not {short_repr(rules, 200)}"
        else:
            how = self._unplanned_how(game, record)
        if how is None:
            return True
        if self._unplanned is None:
            self._unplanned = (game, how)
        return False

    def _unplanned_how(self, game: int, record: dict) -> str | None:
        """How a saved game was played otherwise than the plan's seed and seating (None: as planned)."""
        if self.planned is None:
            return None
        seed, specs = self.planned(game)
        if record.get("seed") != seed:
            how = f"with seed {short_repr(record.get('seed'))}, not the {seed} its settings derive"
        elif record.get("bots") != list(specs):
            how = f"by {short_repr(record.get('bots'))}, not {list(specs)} as its settings seat them"
        else:
            return None
        return how

    def _lines(self, name: str):
        """The complete lines of a log file as text, streamed (none if there is none): a partly written
        last line, and any line that is not valid UTF-8, left out."""
        try:
            for _, raw in read_lines(self.path(name), "log file", TournamentError, MAX_LINE_BYTES):
                try:
                    yield raw.decode("utf-8") + "\n"
                except UnicodeDecodeError:
                    continue
        except FileNotFoundError:
            return

    @_writes
    def _rewrite(self, games: dict[int, SavedGame], stage: str):
        """records.jsonl and results.csv holding exactly these games, sorted; each replaced atomically, the
        records first (so results.csv never names a game whose record the folder lacks). The records are
        copied from the old records.jsonl one at a time, never all held."""
        order = sorted(games)
        with atomic_open(self.path(RECORDS_FILE), "wb") as f, self._old_records(order) as old:
            for k, g in enumerate(order):
                offset, length = games[g].record_at
                old.seek(offset)
                line = old.read(length) + b"\n"
                if len(line) != length + 1:
                    raise TournamentError(f"{self.path(RECORDS_FILE)} changed while it was rewritten")
                _write(f, line, f"{stage}-records-half", k == len(order) // 2)
        faults.fault(f"{stage}-records-written")
        with atomic_open(self.path(CSV_FILE), "w", newline="") as f:
            header = io.StringIO()
            csv.DictWriter(header, self.columns, lineterminator="\n").writeheader()
            _write(f, header.getvalue(), f"{stage}-csv-half", not order)
            for k, g in enumerate(order):
                _write(f, games[g].rows, f"{stage}-csv-half", k == len(order) // 2)
        faults.fault(f"{stage}-csv-written")

    def _old_records(self, order):
        """The records.jsonl the games are copied from (an empty stream when there are none)."""
        return open(self.path(RECORDS_FILE), "rb") if order else contextlib.nullcontext(io.BytesIO())

    @_writes
    def _write_meta(self):
        atomic_write_text(self.path(META_FILE), json.dumps(self.meta, indent=2, ensure_ascii=False) + "\n")

    @_writes
    def append(self, rows: list[dict], record_line: str):
        """One finished game: its record first, then its rows (each in one write), so a game counts as
        finished only when both are on disk."""
        with open_append(self.path(RECORDS_FILE), "log file", TournamentError) as f:
            faults.write(f, record_line + "\n", "append-record-half")
        faults.fault("append-record")
        buf = io.StringIO()
        csv.DictWriter(buf, self.columns, lineterminator="\n").writerows(rows)
        with open_append(self.path(CSV_FILE), "log file", TournamentError) as f:
            faults.write(f, buf.getvalue(), "append-rows-half")
        faults.fault("append-rows")

    def missing(self, games: int) -> list[int]:
        """The game numbers up to `games` that are not saved."""
        saved = self.read_saved()
        return [g for g in range(1, games + 1) if g not in saved]

    def finish(self, games: int) -> pd.DataFrame:
        """Sort the logs, write results.parquet, return the results."""
        faults.fault("finish-start")
        saved = self.read_saved()
        missing = [g for g in range(1, games + 1) if g not in saved]
        if missing:
            raise TournamentError(f"games {missing[:10]} are missing from {self.shown}; --resume plays them again")
        self._rewrite({g: saved[g] for g in range(1, games + 1)}, "finish")
        df = typed_frame(pd.read_csv(self.path(CSV_FILE), keep_default_na=False), self.columns)
        self._write_parquet(df)
        faults.fault("finish-done")
        return df

    @_writes
    def _write_parquet(self, df: pd.DataFrame):
        if not have("parquet"):         # a copy of results.csv; needs the extra `parquet` (pyarrow)
            return
        with atomic_open(self.path(PARQUET_FILE), "wb") as f:
            df.to_parquet(f, index=False)
            faults.fault("finish-parquet-unrenamed")


def load_results(path, note=None) -> pd.DataFrame:
    """The results saved in a tournament folder (results.parquet, or results.csv of an unfinished run or
    when results.parquet is damaged), or a results file itself. note(text) is told when results.csv stands
    in for a damaged results.parquet (default: a line 'note: ...' on stderr)."""
    p = Path(path)
    if p.is_dir():
        parquet, csv_path = p / PARQUET_FILE, p / CSV_FILE
        if parquet.exists() and (have("parquet") or not csv_path.exists()):
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
    if p.suffix == ".parquet":
        need("parquet", f"reading {path_text(p)}", TournamentError)
    try:
        if p.suffix == ".parquet":     # bounded, a regular file only, as the logs
            df = pd.read_parquet(io.BytesIO(read_bounded(p, "results file", TournamentError, MAX_LOG_BYTES)))
        else:
            df = pd.read_csv(io.BytesIO(_complete_bytes(p)), keep_default_na=False, encoding="utf-8")
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


def read_meta(path) -> dict:
    """A tournament folder's tournament.json; one TournamentError naming the file if it cannot be read,
    is not JSON (see fileio.load_json) or is not a JSON object."""
    meta = load_json(path, "tournament file", TournamentError)
    if not isinstance(meta, dict):
        raise TournamentError(f"tournament file {path_text(path)} is not a JSON object")
    return meta
