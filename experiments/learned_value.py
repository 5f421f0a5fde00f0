"""The learned evaluation from scratch: games -> positions and outcomes -> fitted model -> calibration report.

    python experiments/learned_value.py                  # everything (resumes an interrupted data run)
    python experiments/learned_value.py --part data      # only play the games (resumes)
    python experiments/learned_value.py --part fit       # fit the model to the saved data, write the weights
    python experiments/learned_value.py --part calibrate # the hint's searches on held-out games -> the win map
    python experiments/learned_value.py --part opponents # the second win map (--opponents heuristic), no games
    python experiments/learned_value.py --part report    # calibration of the shipped model on held-out games
    python experiments/learned_value.py --scheduler tcp://host:8786 --games 5000   # on a Dask cluster

Data: results/learned/data/ (one Parquet file per 10 games; thurn_ai/studies/learned/data.py says which games),
seed 1, 300 games per player count by default. Games whose number is a multiple of 5 are held out: the fit
never sees them, nor every North game whose number ends in 9; the calibration report is computed on
them only. The fit (thurn_ai/studies/learned/fit.py) is
cross-validated over the other games (5 folds by game) and writes the package's weights file,
thurn_ai/learned/value_model.json. `calibrate` runs the hint's search at every held-out position and fits
the map from its win share to a win chance (thurn_ai/learned/win_map.json, what `thurn-ai hint` shows).
`opponents` fits, from the same saved searches, the second map (thurn_ai/learned/win_map_heuristic.json,
`thurn-ai hint --opponents heuristic`): the first shifted for games against the heuristic bot, written only
if the data support it (the report says why or why not).
The report writes results/learned/calibration.csv, reliability.png and
report.md.

Results must come from committed code (the script refuses uncommitted changes to the package, the core,
the experiments or the build files, unless --allow-dirty, which the outputs then say).
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from thurn_ai.fileio import atomic_to_csv
from thurn_ai.studies.learned import data as D
from thurn_ai.studies.learned import report as report_learned
from thurn_ai.studies.learned.data import held_out
from thurn_ai.studies.chunked import stopping_safely
from thurn_ai.studies.pages import refresh
from thurn_ai.studies.provenance import committed_code_or_exit, log_run

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "results" / "learned"
SEED = 1
GAMES = 300


def part_data(args, code: str) -> None:
    chunks = D.plan_chunks(players=args.players, games=args.games, seed=args.seed, search=args.search,
                           strong=args.strong)
    client = None
    if args.scheduler:
        from thurn_ai.play.workers import connect
        client = connect(args.scheduler)
    folder = args.out / "data"
    total = len(chunks)
    missing = [c for c in chunks if not (folder / c.name).exists()]
    print(f"data: {total - len(missing)} of {total} chunks of {D.CHUNK} games already in {folder}; "
          f"playing {len(missing)}", flush=True)
    start = time.time()
    with stopping_safely(folder):       # Ctrl-C: "stopping..." at once; the chunks written are kept
        done = D.generate(folder, chunks, jobs=args.jobs, client=client,
                          progress=lambda c: print(f"  {c.name} ({time.time() - start:.0f} s)", flush=True))
    log_run(args.out, "data", time.time() - start, code, chunks=done, games=args.games, seed=args.seed,
            search=args.search, strong=args.strong, players=list(args.players))


def display_path(path: Path) -> str:
    """A folder as the repository names it (no machine's path in a committed file)."""
    p = Path(path).resolve()
    return str(p.relative_to(ROOT)) if p.is_relative_to(ROOT) else p.name


def part_fit(args, code: str) -> None:
    from thurn_ai.studies.learned.fit import fit_model
    from thurn_ai.learned.model import DEFAULT_PATH
    folders = [args.out / "data", *args.also]
    train = D.training_games(folders, args.players)
    start = time.time()
    model, cv = fit_model(train, meta={
        "data": [display_path(f) for f in folders], "seed": args.seed, "code": code,
        "games": {str(n): int(g["game"].nunique()) for n, g in train.groupby("players")},
        "positions": {str(n): int(len(g) // n) for n, g in train.groupby("players")},
        "assumes": f"the rest of the game played as in the data: {args.search} in every seat, and {args.strong} "
                   "against heuristic in every 4th game"})
    atomic_to_csv(cv, args.out / "cv.csv", index=False)
    path = args.model or DEFAULT_PATH
    model.save(path)
    print(cv.to_string(index=False))
    print(f"model written to {path}")
    log_run(args.out, "fit", time.time() - start, code, model=str(Path(path).name))


def part_calibrate(args, code: str) -> None:
    start = time.time()
    report_learned.calibrate(args.out, held_out, code, model_path=args.model, iterations=args.iterations,
                             players=args.players, path=args.win_map)
    log_run(args.out, "calibrate", time.time() - start, code, iterations=args.iterations,
            win_map=str(Path(args.win_map).name) if args.win_map else "win_map.json")


def part_opponents(args, code: str) -> None:
    start = time.time()
    report_learned.fit_opponents(args.out, held_out, code, model_path=args.model, iterations=args.iterations,
                                 players=args.players, path=args.opponents_map)
    log_run(args.out, "opponents", time.time() - start, code, iterations=args.iterations,
            win_map=str(Path(args.opponents_map).name) if args.opponents_map else "win_map_heuristic.json")


def part_report(args, code: str) -> None:
    report_learned.build(args.out, held_out, code, model_path=args.model, iterations=args.iterations,
                         players=args.players)
    refresh(args.out, code.split()[0])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--part", choices=("all", "data", "fit", "calibrate", "opponents", "report"), default="all")
    ap.add_argument("--players", default="2,3,4", type=lambda s: tuple(int(x) for x in s.split(",")))
    ap.add_argument("--games", type=int, default=GAMES, help="games per player count")
    ap.add_argument("--seed", type=int, default=SEED)
    ap.add_argument("--search", default=D.DEFAULT_SEARCH, help="the bot of the self-play games")
    ap.add_argument("--strong", default=D.DEFAULT_STRONG, help="the bot against heuristic in every 4th game")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--scheduler", help="a Dask scheduler's address (as `thurn-ai tournament --scheduler`)")
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument("--also", type=Path, nargs="+", default=[], metavar="DIR",
                    help="fit: more data folders (an earlier generation's) beside OUT/data")
    ap.add_argument("--model", type=Path, help="the weights file to write (fit) or read (report); default: "
                    "the package's")
    ap.add_argument("--iterations", type=int, default=2000, help="the hint's search budget (calibrate, report)")
    ap.add_argument("--win-map", type=Path, help="the win map to write (calibrate); default: the package's")
    ap.add_argument("--opponents-map", type=Path, help="the heuristic-opponents map to write (opponents); default: "
                    "the package's win_map_heuristic.json")
    ap.add_argument("--allow-dirty", action="store_true")
    args = ap.parse_args(argv)
    code = committed_code_or_exit(ROOT, args.allow_dirty)
    if args.part in ("all", "data"):
        part_data(args, code)
    if args.part in ("all", "fit"):
        part_fit(args, code)
    if args.part in ("all", "calibrate"):
        part_calibrate(args, code)
    if args.part in ("all", "opponents"):
        part_opponents(args, code)
    if args.part in ("all", "report"):
        part_report(args, code)
    return 0


if __name__ == "__main__":
    sys.exit(main())
