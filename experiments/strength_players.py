"""ISMCTS against the rule-based `heuristic` bot at 2, 3 and 4 players. Reproduces results/strength/players/.

    python experiments/strength_players.py                      # every cell (what made results/strength/players/)
    python experiments/strength_players.py --only p3_it3000     # some cells
    python experiments/strength_players.py --games 20 --out /tmp/sp   # a quick run elsewhere

One `mcts` seat against `heuristic` in every other seat, seats rotated game by game by the tournament
(thurn_ai.play.tournament.run_tournament, seed SEED; every game has its own seed derived from it), both cores.
A cell's games are kept in OUT/runs/<cell>/ (results.csv; records.jsonl is not committed) and resume where
they stopped: run the script again to add games or finish a cell. summary.csv has one line per cell; the
README is written from it: mcts's win rate with its 95% Wilson interval, the fair share (1/players), mean
scores (mcts, and each heuristic seat label) with 95% normal intervals, and how often mcts outscored
each heuristic.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from thurn_ai.bots.search_options import SearchOptions
from thurn_ai.studies.markdown import table
from thurn_ai.studies.provenance import write_results_readme
from thurn_ai.studies.strength import FIELDS, pct, read_summary, run_cell, summarize_saved, write_summary

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "results" / "strength" / "players"
SEED = 2026

# (cell, players, mcts spec, games, board), in the order they are played
CELLS = [
    ("p3_it3000", 3, "mcts(iterations=3000)", 201, "south"),
    ("p4_it3000", 4, "mcts(iterations=3000)", 200, "south"),
    ("p2_it3000", 2, "mcts(iterations=3000)", 200, "south"),
    # budget curves, playouts to the end of the game, the North board, PIMC at equal time: smaller samples
    *[(f"p{p}_it{n}", p, f"mcts(iterations={n})", 30, "south")
      for p in (2, 3, 4) for n in (100, 300, 1000)],
    *[(f"p{p}_full1000", p, "mcts(iterations=1000,horizon=0)", 30, "south") for p in (2, 3, 4)],
    *[(f"north_p{p}_it1000", p, "mcts(iterations=1000)", 30, "north") for p in (2, 3, 4)],
    # ISMCTS and PIMC at equal time (0.1 s a decision), 200 games each; the 10,000-iteration end of the
    # budget curves as 30-game screens
    ("p3_t0.1", 3, "mcts(time=0.1)", 201, "south"),
    ("p4_t0.1", 4, "mcts(time=0.1)", 200, "south"),
    ("p2_t0.1", 2, "mcts(time=0.1)", 200, "south"),
    *[(f"p{p}_it10000", p, "mcts(iterations=10000)", 30, "south") for p in (2, 3, 4)],
    ("pimc_p3_t0.1", 3, "pimc(time=0.1)", 201, "south"),
    ("pimc_p4_t0.1", 4, "pimc(time=0.1)", 200, "south"),
    ("pimc_p2_t0.1", 2, "pimc(time=0.1)", 200, "south"),
]
def write_readme(out: Path, rows: dict[str, dict], argv: list[str]) -> None:
    d = SearchOptions()
    lines = [
        f"One `mcts` seat, `heuristic` in every other seat, seats rotated by the tournament; seed {SEED} "
        "(each game's seed derives from it and the game number). Win rate: the rules' winner (tie-break "
        "included), 95% Wilson interval; fair share = 1/players. Scores: mean, ± the 95% normal interval for "
        "mcts; the heuristic seats' means in seat-label order. *Outscored*: how often mcts scored more than "
        "each heuristic seat in the same game (ties half). Per-game rows: `runs/<cell>/results.csv`.",
        "",
        f"`mcts` defaults: select={d.select} with the planning policy's move as prior (prior={d.prior}), "
        f"c={d.c}, playout={d.playout} (eps={d.eps}), horizon={d.horizon} turns per player then the evaluation "
        f"({d.eval}), reward={d.reward}, scale={d.scale}, tiles={d.tiles}, one worker.",
        "",
    ]
    order = [c[0] for c in CELLS]
    lines += table(["cell", "board", "players", "bot", "games", "mcts wins", "win rate [95% CI]", "fair",
                    "mcts score", "heuristic scores", "outscored", "turns", "time (s)"],
                   ([name, r["board"], r["players"], f"`{r['mcts']}`", r["games"], r["wins"],
                     f"{pct(r['win_rate'])} [{pct(r['ci_low'])}, {pct(r['ci_high'])}]", pct(r["fair"]),
                     f"{r['mcts_score']} ± {r['mcts_score_ci']}", r["heuristic_scores"], r["outscored"],
                     r["mean_turns"], r["seconds"]]
                    for name, r in ((n, rows[n]) for n in sorted(rows, key=lambda n: order.index(n)
                                                                    if n in order else len(order)))),
                   right="llrlrrlrlllrr")
    lines += ["", "Time: wall-clock seconds on 2 cores (a shared machine) for the games played in the last run "
              "of the cell.", ""]
    write_results_readme(out, "ISMCTS against the heuristic bot at 2, 3 and 4 players",
                         "python experiments/strength_players.py" + (" " + " ".join(argv) if argv else ""), lines,
                         "2 worker processes, one core per game")


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--games", type=int, default=None, help="games per cell (default: each cell's own)")
    ap.add_argument("--only", nargs="*", default=None, help="cell names to run")
    ap.add_argument("--summarize", action="store_true",
                    help="play nothing: summarize the complete games every cell holds so far (an interrupted "
                         "cell is marked with its game count; run again without it to finish)")
    args = ap.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    summary_path = args.out / "summary.csv"
    rows = read_summary(summary_path, "cell")
    for cell, players, spec, games, board in CELLS:
        if args.only and cell not in args.only:
            continue
        n = args.games or games
        n = max(players, players * round(n / players))     # whole seat rotations
        if args.summarize:
            r = summarize_saved(cell, players, spec, board, args.out, rows.get(cell))
            if r is None:
                continue
        else:
            r = run_cell(cell, players, spec, n, board, args.out, args.jobs, SEED)
        rows[cell] = r
        print(f"{cell:16s} {spec}: {r['wins']}/{r['games']} = {pct(r['win_rate'])} "
              f"[{pct(r['ci_low'])}, {pct(r['ci_high'])}]  score {r['mcts_score']} vs {r['heuristic_scores']}  "
              f"{r['seconds']}s", flush=True)
        write_summary(summary_path, rows, FIELDS, [c[0] for c in CELLS])
        write_readme(args.out, rows, argv)


if __name__ == "__main__":
    main()
