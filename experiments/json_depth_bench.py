"""How long the JSON loader (thurn_ai.fileio.loads_json) takes to refuse or accept hostile texts, by size:
it must grow linearly (issue 26: a 1 MB hostile body refused in < 0.5 s).

    python experiments/json_depth_bench.py                  # sizes 20 kB .. 4 MB, best of 3, a table
    python experiments/json_depth_bench.py --old            # also the regex check before the fix (<= 20 kB)
    python experiments/json_depth_bench.py --out results/json_depth/bench.json

Times are wall-clock seconds of one loads_json() call (the best of `--repeat`), on whatever machine runs
it; the shapes are the ones that made the old check slow plus ordinary deep and wide JSON.
"""
from __future__ import annotations

import argparse
import json
import re
import sys
import time
from pathlib import Path

from thurn_ai.errors import ThurnError
from thurn_ai.fileio import MAX_JSON_DEPTH, atomic_write_text, loads_json

SIZES = (20_000, 80_000, 160_000, 1_000_000, 4_000_000)


def shapes(size: int) -> dict[str, str]:
    """Texts of about `size` characters."""
    return {
        "unterminated escaped quotes": "[" * 65 + '"' + '\\"' * (size // 2),   # the reproduction
        "many unterminated strings": '["' * (size // 2),
        "deep brackets": "[" * size,
        "wide flat list": "[" + "1," * (size // 2) + "1]",
        "many short strings": "[" + '"a",' * (size // 4) + '"a"]',
        "balanced pairs": "[" + "[]," * (size // 3) + "[]]",
    }


def old_check_depth(text: str) -> None:
    """The check before the fix (quadratic on an unterminated string of escaped quotes), for comparison."""
    string = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.S)
    if text.count("[") + text.count("{") <= MAX_JSON_DEPTH:
        return
    depth = 0
    for ch in re.sub(r"[^\[\]{}]+", "", string.sub("", text)):
        if ch in "[{":
            depth += 1
            if depth > MAX_JSON_DEPTH:
                return
        elif depth:
            depth -= 1


def best_time(fn, text: str, repeat: int) -> tuple[float, str]:
    best, outcome = float("inf"), ""
    for _ in range(repeat):
        t0 = time.perf_counter()
        try:
            fn(text)
            outcome = "accepted"
        except ThurnError:
            outcome = "refused"
        best = min(best, time.perf_counter() - t0)
    return best, outcome


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--old", action="store_true", help="also time the old check (texts up to 20 kB)")
    ap.add_argument("--out", type=Path, help="write the rows as JSON here")
    args = ap.parse_args(argv)
    rows = []
    print(f"{'shape':30} {'chars':>9} {'seconds':>9} {'outcome':>9}")
    for size in SIZES:
        for name, text in shapes(size).items():
            sec, outcome = best_time(lambda t: loads_json(t, "text"), text, args.repeat)
            row = {"shape": name, "chars": len(text), "seconds": round(sec, 4), "outcome": outcome}
            if args.old and size <= 20_000:
                row["old_check_seconds"] = round(best_time(old_check_depth, text, 1)[0], 4)
            rows.append(row)
            old = f"  (old check: {row['old_check_seconds']} s)" if "old_check_seconds" in row else ""
            print(f"{name:30} {len(text):>9} {sec:>9.4f} {outcome:>9}{old}")
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_text(args.out, json.dumps({"unit": "seconds, best of %d" % args.repeat, "rows": rows},
                                               indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
