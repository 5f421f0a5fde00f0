"""Refit the hint's win maps for the default search: reproduces results/calibration/ and the package's
thurn_ai/learned/win_map.json and win_map_heuristic.json.

    python experiments/calibrate.py                      # games (resumes), then the maps and the report
    python experiments/calibrate.py --part games         # only play the games (resumes)
    python experiments/calibrate.py --part fit           # the maps and the report from the saved games
    python experiments/calibrate.py --games 20 --iterations 200 --out /tmp/cal --maps /tmp/cal  # a small try

The search is thurn_ai.bots.default_search.DEFAULT_SEARCH (mcts's defaults at the hint's budget) unless
--search names another: whatever the default is when this runs, the maps are fitted for it, and name it.
Games (thurn_ai/studies/calibration/data.py): `--games` a player count in self-play and as many with one
seat of the search against `heuristic`, fresh seeds (--seed), written 5 games a file as they end, so an
interrupted run continues where it stopped. The maps' forms are chosen out of fold and measured out of fold
(slope, intercept with game-clustered intervals, ECE, reliability diagrams): results/calibration/report.md.

Cost, measured on one core at the hint's budget (2000 iterations): a 2-player self-play game about 6 CPU
seconds, 3 players about 10, 4 players about 15; a game against `heuristic` a third to a half of that. The
default run (200 games a count and population) is about 2.5 CPU hours: `--jobs 2` about 1.3 hours.

Why a script and not a `thurn-ai` command: it writes the package's own map files and a results folder of
the repository, from committed code (it refuses uncommitted changes unless --allow-dirty, which the outputs
then say), like every study here; an installed package has neither to write.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from thurn_ai.bots.default_search import DEFAULT_SEARCH
from thurn_ai.bots.spec import BotSpec
from thurn_ai.errors import ThurnError
from thurn_ai.studies.calibration import data as D
from thurn_ai.studies.calibration.report import refit, summary
from thurn_ai.studies.chunked import stopping_safely
from thurn_ai.studies.provenance import committed_code_or_exit, log_run

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "results" / "calibration"
MAPS = ROOT / "src" / "thurn_ai" / "learned"
SEED = 52
GAMES = 200


def search_of(args) -> BotSpec:
    """The search the maps are fitted for: --search, or the default search at --iterations."""
    spec = BotSpec.parse(args.search) if args.search else DEFAULT_SEARCH
    if args.iterations is not None:
        spec = spec.with_(iterations=args.iterations)
    return spec


def part_games(args, code: str, search: BotSpec) -> None:
    chunks = [c for population in D.POPULATIONS
              for c in D.plan(str(search), args.games, args.seed, args.players, population)]
    start = time.time()
    print(f"games: {search}, {args.games} a player count and population, seed {args.seed}", flush=True)
    with stopping_safely(args.out / "data"):
        done = D.generate(args.out / "data", chunks, jobs=args.jobs,
                          progress=lambda c: print(f"  {c.population} {c.name} ({time.time() - start:.0f} s)",
                                                   flush=True))
    log_run(args.out, "games", time.time() - start, code, chunks=done, games=args.games, seed=args.seed,
            search=str(search), players=list(args.players))


def part_fit(args, code: str, search: BotSpec) -> None:
    start = time.time()
    with stopping_safely(args.out / "data"):
        maps = refit(args.out, search, code, args.maps, args.players)
    for line in summary(maps):
        print(line)
    log_run(args.out, "fit", time.time() - start, code, search=str(search), maps=str(args.maps.name))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--part", choices=("all", "games", "fit"), default="all")
    ap.add_argument("--players", default="2,3,4", type=lambda s: tuple(int(x) for x in s.split(",")))
    ap.add_argument("--games", type=int, default=GAMES, help="games a player count and population")
    ap.add_argument("--seed", type=int, default=SEED)
    ap.add_argument("--search", help="the search to fit the maps for (default: the default search)")
    ap.add_argument("--iterations", type=int, help="its budget (default: the hint's)")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument("--maps", type=Path, default=MAPS, help="where the two maps are written (default: the package)")
    ap.add_argument("--allow-dirty", action="store_true")
    args = ap.parse_args(argv)
    code = committed_code_or_exit(ROOT, args.allow_dirty)
    try:
        search = search_of(args)
        if args.part in ("all", "games"):
            part_games(args, code, search)
        if args.part in ("all", "fit"):
            part_fit(args, code, search)
    except ThurnError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
