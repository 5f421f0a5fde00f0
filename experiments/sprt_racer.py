"""A real sequential test on new deals, cheap enough for this machine: does the racer beat heuristic in the same
seat? Reproduces results/sprt/racer/ (then `python experiments/ledger.py` adds its rows to the ledger).

    python experiments/sprt_racer.py        # resumes where it stopped

Declared before the games: candidate `racer`, baseline `heuristic`, opponents `heuristic` (3-4 players), the test
SPRT(elo0=0, elo1=5 points, alpha=0.05, beta=0.05, batch=8 deals, max_deals=400) at 2, 3 and 4 players, seed SEED;
primary convention `win` (the rules' tie-break). Results must come from committed code (--allow-dirty to skip).
"""
from __future__ import annotations

import argparse
import time
from pathlib import Path

from thurn_ai.stats.sprt import SPRT
from thurn_ai.studies.provenance import committed_code_or_exit, log_run
from thurn_ai.studies.sprt import run_sprt

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "results" / "sprt" / "racer"
TEST = SPRT(elo0=0.0, elo1=5.0, alpha=0.05, beta=0.05, batch=8, max_deals=400)
SEED = 6802


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument("--players", type=int, nargs="*", default=[2, 3, 4])
    ap.add_argument("--allow-dirty", action="store_true")
    args = ap.parse_args(argv)
    code = committed_code_or_exit(ROOT, args.allow_dirty)
    for n in args.players:
        start = time.time()
        result = run_sprt("racer", "heuristic", players=n, test=TEST, seed=SEED, opponents="heuristic",
                          out_dir=args.out / f"p{n}", resume="auto")
        print(f"{n} players: {result.line}", flush=True)
        log_run(args.out, f"sprt p{n}", time.time() - start, code, deals=result.deals, verdict=result.verdict)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
