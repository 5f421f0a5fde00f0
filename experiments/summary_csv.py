"""The summary.csv that the strength scripts keep (one row per matchup or cell), read and written
atomically; shared by experiments/strength.py and experiments/strength_players.py."""
from __future__ import annotations

import csv
from pathlib import Path

from thurn_ai.fileio import atomic_open, atomic_write_text


def read_summary(path: Path, key: str) -> dict[str, dict]:
    """{row[key]: row} of a summary file; empty if there is none yet."""
    if not path.exists():
        return {}
    with open(path, newline="", encoding="utf-8") as f:
        return {r[key]: r for r in csv.DictReader(f)}


def write_summary(path: Path, rows: dict[str, dict], fields: list[str], order: list[str]) -> None:
    """The rows in `order` (names not in it last), only `fields`, written atomically."""
    rank = {name: i for i, name in enumerate(order)}
    with atomic_open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields)
        w.writeheader()
        for name in sorted(rows, key=lambda n: rank.get(n, len(order))):
            w.writerow({k: rows[name][k] for k in fields})


def pct(x) -> str:
    return f"{100 * float(x):.1f}%"


def write_readme(out: Path, lines: list[str]) -> None:
    """OUT/README.md from these lines, with OUT/NOTES.md (hand-written notes) appended, atomically."""
    notes = out / "NOTES.md"
    if notes.exists():
        lines = lines + [notes.read_text(encoding="utf-8").rstrip(), ""]
    atomic_write_text(out / "README.md", "\n".join(lines))
