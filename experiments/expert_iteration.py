"""Expert iteration: teacher data from deep searches -> a learned move prior -> its strength. Reproduces
results/expert/.

    python experiments/expert_iteration.py --part data      # teacher data (resumes an interrupted run)
    python experiments/expert_iteration.py --part fit       # fit the prior to the data, write its weights
    python experiments/expert_iteration.py --part offline   # agreement with the teacher on held-out decisions
    python experiments/expert_iteration.py --part strength  # paired cells against heuristic, head to head
    python experiments/expert_iteration.py --scheduler tcp://host:8786 --games 400   # on a Dask cluster

Teacher data: results/expert/data/ (thurn_ai/studies/expert/teacher.py says which games and decisions),
seed 1. Results must come from committed code: the script refuses uncommitted changes to the package, the
core, the experiments or the build files, unless --allow-dirty, which the outputs then say.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from thurn_ai.fileio import atomic_write_text
from thurn_ai.game.rules import PLAYER_COUNTS
from thurn_ai.studies.expert import teacher as T
from thurn_ai.studies.provenance import DirtyTree, check_clean, code_state

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "results" / "expert"
SEED = 1


def log_run(out: Path, part: str, seconds: float, code: str, **info) -> None:
    """out/runs.json: each part's runs (the code they ran, the wall time, settings)."""
    path = out / "runs.json"
    runs = json.loads(path.read_text()) if path.exists() else []
    runs.append({"part": part, "code": code, "seconds": round(seconds, 1), **info})
    atomic_write_text(path, json.dumps(runs, indent=1) + "\n")


def part_data(args, code: str) -> None:
    chunks = T.plan_chunks(players=args.players, games=args.games, seed=args.seed, teacher=args.teacher,
                           sample=args.sample)
    client = None
    if args.scheduler:
        from thurn_ai.play.workers import connect
        client = connect(args.scheduler)
    folder = args.out / "data"
    print(f"teacher data: {len(chunks)} chunks of up to {T.CHUNK} games in {folder} (complete ones are kept)",
          flush=True)
    start = time.time()
    done = T.generate(folder, chunks, jobs=args.jobs, client=client,
                      progress=lambda c: print(f"  {c.name} ({time.time() - start:.0f} s)", flush=True))
    log_run(args.out, "data", time.time() - start, code, chunks=done, games=args.games, seed=args.seed,
            teacher=args.teacher, sample=args.sample, players=list(args.players))


PARTS = {"data": part_data}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--part", choices=list(PARTS), action="append")
    ap.add_argument("--games", type=int, default=100, help="games per player count (teacher data)")
    ap.add_argument("--players", type=lambda s: [int(x) for x in s.split(",")], default=list(PLAYER_COUNTS))
    ap.add_argument("--seed", type=int, default=SEED)
    ap.add_argument("--teacher", default=T.DEFAULT_TEACHER)
    ap.add_argument("--sample", type=float, default=T.DEFAULT_SAMPLE)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--scheduler")
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument("--allow-dirty", action="store_true")
    args = ap.parse_args(argv)
    try:
        check_clean(ROOT, args.allow_dirty)
    except DirtyTree as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    code = code_state(ROOT)
    for part in args.part or list(PARTS):
        PARTS[part](args, code)
    return 0


if __name__ == "__main__":
    sys.exit(main())
