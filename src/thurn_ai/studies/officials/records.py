"""The officials study's game records kept: every tournament the report uses, compressed with its settings
(records/<study>/<name>.jsonl.gz, gzip without a timestamp, and <name>.json), so a reader can replay any game and
check it (replay, replay_tournament: experiments/officials_replay.py); and a run's raw folder saved and restored
(save_raw, restore_raw) to carry a long run from one machine to the next."""
from __future__ import annotations

import gzip
import io
import json
import zlib
from pathlib import Path

from ...fileio import atomic_write_bytes, load_json, path_text, read_bounded
from .plan import StudyError

__all__ = ["keep_records", "check_records", "record_files", "read_kept", "kept_games", "save_raw", "restore_raw",
           "replay", "replay_tournament"]


def _tournaments(raw: Path):
    for meta in sorted(Path(raw).glob("*/*/tournament.json")):
        folder = meta.parent
        if (folder / "records.jsonl").exists():
            yield folder


def keep_records(raw, out) -> list[Path]:
    """Compress the records of every tournament under raw/<study>/ into out/<study>/ (see the module doc);
    returns the files written. Only complete lines are kept (a run still going may be writing one)."""
    written = []
    for folder in _tournaments(raw):
        dest = Path(out) / folder.parent.name
        dest.mkdir(parents=True, exist_ok=True)
        atomic_write_bytes(dest / f"{folder.name}.jsonl.gz", _compressed_records(folder / "records.jsonl"))
        atomic_write_bytes(dest / f"{folder.name}.json", _raw_bytes(folder / "tournament.json"))
        written += [dest / f"{folder.name}.json", dest / f"{folder.name}.jsonl.gz"]
    return written


#: The most bytes one restored file may hold: the largest records.jsonl of the committed study is 24 MB,
#: so this is ten times that; a .gz that expands further (a "zip bomb", a wrong file) is refused before
#: anything is written.
MAX_RESTORED_BYTES = 256 * 2 ** 20


def _raw_bytes(path: Path) -> bytes:
    """A raw file's bytes, at most the tournament store's log bound (fileio.read_bounded): a file linked
    to /dev/zero or grown huge is one StudyError."""
    from ...play.tournament.store import MAX_LOG_BYTES
    try:
        return read_bounded(path, "raw file", StudyError, MAX_LOG_BYTES)
    except FileNotFoundError as e:
        raise StudyError(f"cannot read {path_text(path)}: {e.strerror}") from None


def _complete(data: bytes) -> bytes:
    """A log's complete lines (a run may be writing the last one)."""
    return data[:data.rfind(b"\n") + 1]


def _game_of(line: bytes):
    """The game number of a records.jsonl line, or None for a line a tournament resume drops (not UTF-8,
    not JSON, not an object, no whole-number game): such a game is played again, so its line is not kept."""
    try:
        game = json.loads(line.decode("utf-8")).get("game")
    except (UnicodeDecodeError, ValueError, AttributeError, RecursionError):
        return None
    return game if isinstance(game, int) and not isinstance(game, bool) else None


def _compressed_records(path: Path) -> bytes:
    """A records.jsonl's complete lines sorted by game number, gzipped without a timestamp; a damaged line
    (one a tournament resume drops and plays again) is left out."""
    lines = []
    for line in _complete(_raw_bytes(path)).split(b"\n"):
        game = _game_of(line) if line.strip() else None
        if game is not None:
            lines.append((game, line))
    lines.sort(key=lambda x: x[0])
    return gzip.compress(b"\n".join(line for _, line in lines) + b"\n", mtime=0)


def _saved_bytes(path: Path) -> bytes:
    if path.name == "records.jsonl" and (path.parent / "tournament.json").exists():
        return _compressed_records(path)
    if path.suffix in (".jsonl", ".csv"):
        return gzip.compress(_complete(_raw_bytes(path)), mtime=0)
    return gzip.compress(_raw_bytes(path), mtime=0)


def _decompressed(gz: Path) -> bytes:
    """A saved file's bytes: the .gz read bounded, decompressed to at most MAX_RESTORED_BYTES."""
    try:
        compressed = read_bounded(gz, "saved file", StudyError)
    except FileNotFoundError as e:
        raise StudyError(f"cannot read {path_text(gz)}: {e.strerror}") from None
    try:
        with gzip.GzipFile(fileobj=io.BytesIO(compressed)) as f:
            data = f.read(MAX_RESTORED_BYTES + 1)
    except (OSError, EOFError, zlib.error) as e:
        raise StudyError(f"{path_text(gz)} is not a gzip file: {e}") from None
    if len(data) > MAX_RESTORED_BYTES:
        raise StudyError(f"{path_text(gz)} expands to more than {MAX_RESTORED_BYTES // 2 ** 20} MB, more "
                         "than a saved study file holds; it is not restored")
    return data


def save_raw(raw, dest) -> list[Path]:
    """Save every file under `raw` as dest/<its path>.gz (see the module doc); returns the files that
    changed. A file already saved with the same bytes is left as it is."""
    raw, dest = Path(raw), Path(dest)
    if not raw.is_dir():
        raise StudyError(f"{path_text(raw)} is not a folder")
    changed = []
    for path in sorted(p for p in raw.rglob("*") if p.is_file()):
        if path.name.startswith("."):           # .lock, and the temporary files of atomic writes
            continue
        target = dest / path.relative_to(raw).parent / (path.name + ".gz")
        data = _saved_bytes(path)
        if target.exists() and read_bounded(target, "saved file", StudyError) == data:
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_bytes(target, data)
        changed.append(target)
    return changed


def restore_raw(saved, raw) -> list[Path]:
    """Write every dest/<path>.gz that save_raw made back to raw/<path>; returns the files written."""
    saved, raw = Path(saved), Path(raw)
    if not saved.is_dir():
        raise StudyError(f"{path_text(saved)} is not a folder")
    todo = []
    for gz in sorted(saved.rglob("*.gz")):
        target = raw / gz.relative_to(saved).parent / gz.name[:-len(".gz")]
        data = _decompressed(gz)
        if target.exists():
            if _raw_bytes(target) != data:
                raise StudyError(f"{path_text(target)} exists and differs from its save {path_text(gz)}: "
                                 f"restore into an empty folder")
            continue
        todo.append((target, data))
    for target, data in todo:
        target.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_bytes(target, data)
    return [t for t, _ in todo]


#: how a kept tournament's records end: records/<study>/<name>.jsonl.gz (and its settings <name>.json)
KEPT = ".jsonl.gz"


def is_kept(path) -> bool:
    """Whether `path` names a kept copy of a tournament's records (rather than a records.jsonl)."""
    return str(path).endswith(KEPT)


def tournament_name(records) -> str:
    """The tournament a records file belongs to: 2p_none for DIR/2p_none/records.jsonl and for a kept copy
    records/<study>/2p_none.jsonl.gz."""
    path = Path(records)
    return path.name[:-len(KEPT)] if is_kept(path) else path.parent.name


def record_files(records) -> list[tuple[Path, Path]]:
    """(settings, records) file pairs under a records folder."""
    pairs = []
    for gz in sorted(Path(records).glob(f"*/*{KEPT}")):
        meta = gz.with_name(tournament_name(gz) + ".json")
        if not meta.exists():
            raise StudyError(f"{path_text(gz)} has no settings file {meta.name} beside it")
        pairs.append((meta, gz))
    return pairs


def kept_games(rows, records):
    """Each game of `rows` (columns source, game, game_seed: positions of kept games) with its record: (where,
    record, the game's rows), a game a time in order, from records/<source>.jsonl.gz under `records`;
    StudyError for a missing file or game, or a record of another seed."""
    for source, of_source in rows.groupby("source", sort=True):
        gz = Path(records) / f"{source}{KEPT}"
        if not gz.is_file():
            raise StudyError(f"{path_text(gz)}: no kept records of {source} (the rows' games)")
        kept = read_kept(gz)
        for game, of_game in of_source.groupby("game", sort=True):
            if game not in kept:
                raise StudyError(f"{path_text(gz)} holds no game {game}")
            if int(of_game["game_seed"].iloc[0]) != kept[game].seed:
                raise StudyError(f"{source} game {game}: the rows' game seed {of_game['game_seed'].iloc[0]} is not "
                                 f"the record's {kept[game].seed}")
            yield f"{source} game {game}", kept[game], of_game


def read_kept(gz) -> dict:
    """{game number: GameRecord} of one kept tournament (records/<study>/<name>.jsonl.gz), decompressed
    bounded as restore_raw reads it; StudyError for a file that is not one."""
    from ...errors import ThurnError
    from ...play.match import GameRecord

    try:
        lines = [line for line in _decompressed(Path(gz)).decode("utf-8").splitlines() if line.strip()]
    except UnicodeDecodeError as e:
        raise StudyError(f"{path_text(gz)} is not a file of game records: {e}") from None
    out = {}
    for k, line in enumerate(lines, 1):
        game = _game_of(line.encode("utf-8"))
        if game is None:
            raise StudyError(f"{path_text(gz)} line {k} is not a numbered game record")
        try:
            out[game] = GameRecord.from_json(line)
        except ThurnError as e:
            raise StudyError(f"{path_text(gz)} line {k}: {e}") from None
    return out


def check_records(records, every: int = 50) -> tuple[int, int, list[str]]:
    """Replay game 1, 1 + every, ... of every kept tournament with this code and compare each move and
    the scores: (same, different, the first few differences)."""
    from ...game.rules import Rules
    from ...play.tournament import plan_tournament, play_task

    if every < 1:
        raise StudyError("every must be at least 1")
    pairs = record_files(records)
    if not pairs:
        raise StudyError(f"{path_text(records)} holds no kept records (<study>/<name>.jsonl.gz)")
    same, differ = 0, 0
    notes: list[str] = []
    for meta_path, gz in pairs:
        meta = load_json(meta_path, "tournament settings", StudyError)
        plan = plan_tournament(meta["specs"], meta["players"], meta["games"], meta["seed"],
                               rules=Rules.from_dict(meta["rules"]))
        try:      # decompressed bounded (MAX_RESTORED_BYTES), as restore_raw reads them
            saved = [json.loads(line) for line in _decompressed(gz).decode("utf-8").splitlines() if line.strip()]
        except (UnicodeDecodeError, ValueError) as e:
            raise StudyError(f"{path_text(gz)} is not a file of game records: {e}") from None
        for was in saved:
            if (was["game"] - 1) % every:
                continue
            now = json.loads(play_task(plan.task(was["game"]))[2])
            if now["moves"] == was["moves"] and now.get("scores") == was.get("scores"):
                same += 1
            else:
                differ += 1
                if len(notes) < 5:
                    notes.append(f"{gz.parent.name}/{gz.name}: game {was['game']} differs")
    return same, differ, notes


def replay(games, every: int):
    """Replay game 1, 1 + every, ... of each tournament of a heuristic study's games (a study frame: the heuristic bot
    does not search, so its games are the same given the seeds) with this code."""
    from ...bots import make_bot
    from ...game.rules import Rules
    from ...play.match import play_game

    same, differ = 0, 0
    notes: list[str] = []
    for (n, official, game), g in games.groupby(["players", "official", "game"]):
        if (game - 1) % every:
            continue
        g = g.sort_values("seat")
        specs = [f"heuristic(forbid={official})" if r.restricted else "heuristic" for r in g.itertuples()]
        rec = play_game(Rules(players=int(n)), [make_bot(s, seed=0) for s in specs], seed=int(g.seed.iloc[0]))
        if list(rec.scores) == [int(x) for x in g.score] and rec.turns == int(g.turns.iloc[0]):
            same += 1
        else:
            differ += 1
            if len(notes) < 5:
                notes.append(f"{n} players, {official}, game {game}: now {list(rec.scores)} in {rec.turns} turns, "
                             f"recorded {[int(x) for x in g.score]} in {int(g.turns.iloc[0])}")
    return same, differ, notes


def replay_tournament(folder, every: int):
    """(same, different) counts over game 1, 1 + every, ... of the games saved in a tournament folder, each
    played again with this checkout's code and compared move by move, and the first few differences."""
    from ...game.rules import Rules
    from ...play.tournament import plan_tournament, play_task, read_meta

    folder = Path(folder)
    meta = read_meta(folder / "tournament.json")
    plan = plan_tournament(meta["specs"], meta["players"], meta["games"], meta["seed"],
                           rules=Rules.from_dict(meta["rules"]))
    same, differ = 0, 0
    notes: list[str] = []
    with open(folder / "records.jsonl", encoding="utf-8") as f:
        saved = {r["game"]: r for r in map(json.loads, f) if "game" in r}
    for game in sorted(saved):
        if (game - 1) % every:
            continue
        now = json.loads(play_task(plan.task(game))[2])
        was = saved[game]
        if now["moves"] == was["moves"] and now.get("scores") == was.get("scores"):
            same += 1
            continue
        differ += 1
        if len(notes) < 5:
            k = next((i for i, (a, b) in enumerate(zip(now["moves"], was["moves"])) if a != b),
                     min(len(now["moves"]), len(was["moves"])))
            notes.append(f"{folder.name}, game {game}: first differs at move {k + 1} "
                         f"(now {now['moves'][k:k + 1]}, saved {was['moves'][k:k + 1]})")
    return same, differ, notes
