"""The officials study, its game records kept: every tournament the report uses, compressed, with its
settings, so a reader can replay any game and check it.

    >>> keep_records("results/officials/raw", "results/officials/records")   # after a run
    >>> check_records("results/officials/records", every=50)                 # (same, differ, notes)

A tournament folder <study>/<name>/ (tournament.json, records.jsonl) becomes records/<study>/<name>.json
(its settings) and records/<study>/<name>.jsonl.gz (one game record a line, sorted by game number; gzip
without a timestamp, so the same games give the same bytes). A game is replayed by playing it again from
its seeds with this code (thurn_ai.play.tournament: a game depends only on its number) and comparing
every move and the scores.
"""
from __future__ import annotations

import gzip
import json
from pathlib import Path

from ...fileio import atomic_open, atomic_write_text, load_json, path_text
from .plan import StudyError

__all__ = ["keep_records", "check_records", "record_files"]


def _tournaments(raw: Path):
    for meta in sorted(Path(raw).glob("*/*/tournament.json")):
        folder = meta.parent
        if (folder / "records.jsonl").exists():
            yield folder


def keep_records(raw, out) -> list[Path]:
    """Compress the records of every tournament under raw/<study>/ into out/<study>/ (see the module doc);
    returns the files written. Only complete lines are kept (a run still going may be writing one)."""
    from ...play.tournament import complete_lines

    written = []
    for folder in _tournaments(raw):
        dest = Path(out) / folder.parent.name
        dest.mkdir(parents=True, exist_ok=True)
        lines = [ln for ln in complete_lines(folder / "records.jsonl").splitlines() if ln.strip()]
        lines.sort(key=lambda ln: json.loads(ln).get("game", 0))
        data = gzip.compress(("\n".join(lines) + "\n").encode("utf-8"), mtime=0)
        with atomic_open(dest / f"{folder.name}.jsonl.gz", "wb") as f:
            f.write(data)
        atomic_write_text(dest / f"{folder.name}.json", (folder / "tournament.json").read_text(encoding="utf-8"))
        written += [dest / f"{folder.name}.json", dest / f"{folder.name}.jsonl.gz"]
    return written


def record_files(records) -> list[tuple[Path, Path]]:
    """(settings, records) file pairs under a records folder."""
    pairs = []
    for gz in sorted(Path(records).glob("*/*.jsonl.gz")):
        meta = gz.with_name(gz.name[:-len(".jsonl.gz")] + ".json")
        if not meta.exists():
            raise StudyError(f"{path_text(gz)} has no settings file {meta.name} beside it")
        pairs.append((meta, gz))
    return pairs


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
    same, differ, notes = 0, 0, []
    for meta_path, gz in pairs:
        meta = load_json(meta_path, "tournament settings", StudyError)
        plan = plan_tournament(meta["specs"], meta["players"], meta["games"], meta["seed"],
                               rules=Rules.from_dict(meta["rules"]))
        with gzip.open(gz, "rt", encoding="utf-8") as f:
            saved = [json.loads(line) for line in f if line.strip()]
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
