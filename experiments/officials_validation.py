"""The officials' rating validated cell by cell (issue 40): per official, a dose step with a compute-matched
control, and the 3- and 4-player controls. Reproduces results/officials/validation_cells*.

    python experiments/officials_validation.py                 # play the design's cells (resumes), report
    python experiments/officials_validation.py --part report   # the report from the saved games
    python experiments/officials_validation.py --cost          # the design and its cost, then stop

The library does the work (thurn_ai.studies.officials.validation_cells: the design, fixed before any game,
and the paired comparisons); this script runs it. Games are kept under results/tmp_validation_cells/ as they
are played (ignored by git; an interrupted run resumes there) and saved to
results/officials/validation_cells_games.parquet after each cell. The study's own cells
(results/officials/validation_games.parquet) give the 3- and 4-player ratings' games and the 2-player x1
reference, on the same first deals.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import pandas as pd

from thurn_ai.fileio import atomic_to_csv, atomic_write_text
from thurn_ai.studies import provenance
from thurn_ai.studies.officials import validation_cells as vc
from thurn_ai.studies.officials.cost import format_costs, measure, part_costs

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "results" / "officials"
RAW = ROOT / "results" / "tmp_validation_cells"
GAMES = "validation_cells_games.parquet"
STUDY_GAMES = OUT / "validation_games.parquet"
COMMAND = "python experiments/officials_validation.py"


def study_rows(design=vc.DESIGN) -> pd.DataFrame:
    """The study's validation games on the deals the design's cells play at each count (its first games)."""
    if not STUDY_GAMES.exists():
        return pd.DataFrame()
    rows = pd.read_parquet(STUDY_GAMES)
    most = {}
    for p in design:
        most[p.players] = max(most.get(p.players, 0), p.games)
    return rows[rows.players.map(most).fillna(0).to_numpy() >= rows.game.to_numpy()]


def played_table(rows: pd.DataFrame, design=vc.DESIGN) -> pd.DataFrame:
    counts = rows[rows.rated].groupby(["players", "rating"]).game.nunique() if len(rows) else {}
    return pd.DataFrame([{"players": p.players, "cell": p.cell, "planned": p.games,
                          "games": int(counts.get((p.players, p.cell), 0)) if len(rows) else 0} for p in design])


def report(out: Path, runs: list) -> None:
    path = out / GAMES
    new = pd.read_parquet(path) if path.exists() else pd.DataFrame(columns=["players", "rating", "rated", "game"])
    rows = pd.concat([study_rows(), new], ignore_index=True)
    table = vc.comparison_table(rows)
    atomic_to_csv(table, out / "validation_cells.csv", index=False)
    estimators = vc.estimator_table(rows)           # the primary comparisons counted both ways (a sensitivity)
    atomic_to_csv(estimators, out / "validation_cells_estimators.csv", index=False)
    md = vc.cells_report(table, played_table(new), provenance.commit(ROOT), COMMAND, runs, estimators)
    atomic_write_text(out / "validation_cells.md", md)
    print(f"wrote {out / 'validation_cells.md'} ({len(table)} comparisons)")


@provenance.script_main
def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--part", choices=("play", "report", "all"), default="all")
    ap.add_argument("--jobs", type=int, default=None, help="worker processes (default: every core)")
    ap.add_argument("--cost", action="store_true", help="print the design and what it will cost, then stop")
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument("--allow-dirty", action="store_true",
                    help="run with uncommitted code changes (the report then names a commit that is not the code)")
    args = ap.parse_args(argv)
    provenance.check_clean(ROOT, args.allow_dirty or args.part == "report")
    if args.cost:
        timings = {n: measure(n, vc.standard_spec(n)) for n in sorted({p.players for p in vc.DESIGN})}
        rows = []
        for p in vc.DESIGN:
            rows += part_costs(timings, validation_games={p.players: p.games}, ratings={p.players: (p.cell,)})
        print(format_costs(rows, timings))
        return 0
    runs_file = args.out / "validation_cells_runs.json"
    if args.part in ("play", "all"):
        code = provenance.code_state(ROOT)
        t0 = time.time()
        vc.play_cells(RAW, jobs=args.jobs, log=lambda m: print(m, flush=True),
                      done=lambda rows: vc.save_rows(rows, args.out / GAMES))
        provenance.log_run(args.out, "validation_cells", time.time() - t0, code, runs_file=runs_file.name,
                           cells=len(vc.DESIGN))
    runs = json.loads(runs_file.read_text()) if runs_file.exists() else []
    report(args.out, runs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
