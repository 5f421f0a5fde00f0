"""The halving root (Sequential Halving with common random numbers, chosen by value) against the frozen
default: reproduces results/search_root/.

    python experiments/search_root.py --part strength    # the cells (resumes; --cells to pick some)
    python experiments/search_root.py --part report      # results/search_root/report.md (+ README.md, findings.json)

The cells and the adoption rule are in thurn_ai/studies/search_root.py, committed before their games.
Results must come from committed code: the script refuses uncommitted changes unless --allow-dirty.
"""
from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from thurn_ai.fileio import atomic_write_text
from thurn_ai.studies import search_root as S
from thurn_ai.studies.expert.measure import games_played, run_cell
from thurn_ai.studies.pages import refresh
from thurn_ai.studies.provenance import committed_code_or_exit, log_run

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "results" / "search_root"


def part_strength(args, code: str) -> None:
    for cell in [c for c in S.CELLS if not args.cells or c.name in args.cells]:
        start = time.time()
        print(f"{cell.name}: {cell.games} games, {cell.players} players, {cell.spec} against {cell.others}",
              flush=True)
        before = games_played(args.out / "runs", cell)
        run_cell(cell, args.out / "runs", jobs=args.jobs)
        # a resumed cell's seconds are this stretch's only: `played` says how many of its games they cover
        log_run(args.out, f"strength {cell.name}", time.time() - start, code, games=cell.games,
                played=games_played(args.out / "runs", cell) - before)
        part_report(args, code)


def part_report(args, code: str) -> None:
    from thurn_ai.studies.search_root_report import report
    data = S.summary(args.out / "runs")
    atomic_write_text(args.out / "summary.json", json.dumps(data, indent=1, default=float) + "\n")
    atomic_write_text(args.out / "report.md", report(data, code))
    refresh(args.out)


PARTS = {"strength": part_strength, "report": part_report}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--part", choices=list(PARTS), action="append")
    ap.add_argument("--cells", nargs="*", help="strength: only these cells (default: all, in order)")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument("--allow-dirty", action="store_true")
    args = ap.parse_args(argv)
    code = committed_code_or_exit(ROOT, args.allow_dirty)
    for part in args.part or ["strength", "report"]:
        PARTS[part](args, code)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
