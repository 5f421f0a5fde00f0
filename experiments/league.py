"""The league: the field (thurn_ai.bots.field) and the default `mcts` in round robins at 2, 3 and 4 players,
rated by a Plackett-Luce fit: reproduces results/league/.

    python experiments/league.py --part play     # the games (resumes where it stopped)
    python experiments/league.py --part report   # results/league/README.md, ratings.csv, ratings.png, findings.json

Design, fixed before the games: bots LEAGUE_SPECS (the field without anchor-3k, whose three-times search did
not fit the CPU this run had, plus the default `mcts`); seed SEED; GAMES per player count (2 players: two whole
seating cycles of 56 games, every ordered pair twice; 3 and 4 players: the first 84 games of the seating
cycle, 28 of the 56 mixes of 3 bots in their 3 rotations and 21 of the 70 mixes of 4 in their 4 rotations --
all the CPU of this run allowed, on 2 cores shared by several sessions; the issue asks for 200 games a table
type, and a resume with larger GAMES extends the same cycles). Ratings: the winner of each
game as a Luce choice among its table (the rules' tie-break, the primary convention), anchored at heuristic = 0,
95% intervals from GAME_BOOTSTRAP resamples of the games; the full placing order (Plackett-Luce) beside it.
Results must come from committed code: the script refuses uncommitted changes unless --allow-dirty.
"""
from __future__ import annotations

import argparse
import time
from pathlib import Path

from thurn_ai.bots.field import FIELD_ANCHOR, FIELD_SPECS
from thurn_ai.play.league import run_league
from thurn_ai.studies.provenance import committed_code_or_exit, log_run

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "results" / "league"
LEAGUE_SPECS = [s for s in FIELD_SPECS if s != "anchor-3k"] + ["mcts"]
SEED = 6800
GAMES = {2: 112, 3: 84, 4: 84}
GAME_BOOTSTRAP = 300


def part_play(args, code: str) -> None:
    for n in args.players:
        start = time.time()
        print(f"league p{n}: {GAMES[n]} games of {', '.join(LEAGUE_SPECS)}", flush=True)
        run_league(LEAGUE_SPECS, players=(n,), games={n: GAMES[n]}, seed=SEED, jobs=args.jobs,
                   out_dir=args.out / "games", resume="auto", progress=False)
        log_run(args.out, f"play p{n}", time.time() - start, code, games=GAMES[n], jobs=args.jobs)


def part_report(args, code: str) -> None:
    from thurn_ai.studies.league_report import write_report
    write_report(args.out, code, anchor=FIELD_ANCHOR, bootstrap=GAME_BOOTSTRAP, seed=SEED)


PARTS = {"play": part_play, "report": part_report}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--part", choices=list(PARTS), action="append")
    ap.add_argument("--players", type=int, nargs="*", default=[2, 3, 4])
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument("--allow-dirty", action="store_true")
    args = ap.parse_args(argv)
    code = committed_code_or_exit(ROOT, args.allow_dirty)
    for part in args.part or ["play", "report"]:
        PARTS[part](args, code)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
