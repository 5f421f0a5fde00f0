"""Named searches side by side, from the same positions: instructions and CPU seconds per iteration.

    python experiments/bench_searches.py [--specs SPEC ...] [--positions 3] [--iterations 1000] [--rounds 3]
                                         [--players 2 3 4] [--out results/bench/searches-COMMIT.json]

By default the searches are thurn_ai.play.bench.COMPARED_SEARCHES: the default `mcts` (learned prior), the same
search with the hand-set prior (`mcts(policy=handset)`) and the frozen November 2026 default (`anchor-1k`).
Each searches `--iterations` from each of `--positions` positions per player count
(thurn_ai.play.bench.search_positions), with the tree its bot builds (make_bot(spec)._tree).
Two measurements, each in fresh Python processes that import this checkout's thurn_ai:

* instructions (valgrind's callgrind, hash seed 0) inside the compiled search's Tree.run (not the import, the
  positions, the trees built), divided by the iterations: the same count on a loaded machine as on an idle one.
* CPU seconds: the search thread's CPU time of the searches (and the wall time beside it), all of them in one
  process per round, taking turns position by position; each keeps its best round. The machine is shared, so
  the ratios measured in one run are what the seconds are good for, and the instructions are the measurement
  that holds.

The ratios to the first spec (the default `mcts`) are in "ratio_to_first"; the learned prior's cost over the
hand-set one is mcts / mcts(policy=handset).
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import subprocess
from datetime import datetime, timezone
from pathlib import Path

from thurn_ai.errors import BotSpecError
from thurn_ai.fileio import atomic_write_text
from thurn_ai.play.bench import COMPARED_SEARCHES, TREE_RUN, callgrind_instructions
from thurn_ai.studies.provenance import code_state, machine_info, package_root

ROOT = Path(__file__).resolve().parent.parent

CHILD = r'''
import json, sys, time
sys.meta_path = [f for f in sys.meta_path if "editable" not in repr(f).lower()]
sys.path.insert(0, sys.argv[1])
import thurn_ai
assert thurn_ai.__file__.startswith(sys.argv[1]), thurn_ai.__file__
from thurn_ai.play.bench import search_positions, search_trees
specs, count, iterations = json.loads(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
shift = int(sys.argv[6])
out = {spec: {} for spec in specs}
for players in map(int, sys.argv[5].split(",")):
    positions = search_positions(players, count)
    trees = {spec: search_trees(spec, positions) for spec in specs}
    for spec in specs:
        out[spec][players] = {"cpu_seconds": 0.0, "wall_seconds": 0.0, "iterations": 0, "playout_moves": 0}
    for k in range(count if iterations else 0):
        # the searches take turns position by position, each position starting with another one
        for j in range(len(specs)):
            spec = specs[(j + k + shift) % len(specs)]
            tree, r = trees[spec][k], out[spec][players]
            t0, w0 = time.thread_time(), time.perf_counter()
            r["iterations"] += tree.run(iterations)
            r["cpu_seconds"] += time.thread_time() - t0
            r["wall_seconds"] += time.perf_counter() - w0
            r["playout_moves"] += tree.playout_moves
print(json.dumps(out))
'''


def timed(root: Path, specs: list[str], count: int, iterations: int, players: list[int], shift: int = 0) -> dict:
    """{spec: {players: seconds, iterations, playout moves}} of one process searching with every spec, the
    searches taking turns position by position (the first at position k: specs[(k + shift) % len])."""
    # numpy's BLAS threads (the weights are read with numpy) would spin beside the search and slow it
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")
    run = subprocess.run([sys.executable, "-c", CHILD, str(root), json.dumps(specs), str(count), str(iterations),
                          ",".join(map(str, players)), str(shift)], capture_output=True, text=True, env=env)
    if run.returncode:
        raise SystemExit(f"error: {', '.join(specs)} failed:\n{run.stderr.strip()[-2000:]}")
    return {spec: {int(p): r for p, r in rows.items()}
            for spec, rows in json.loads(run.stdout.strip().splitlines()[-1]).items()}


def instructions(root: Path, spec: str, count: int, iterations: int, players: int) -> int:
    """Instructions of the searches of one player count: those inside the compiled Tree.run."""
    return callgrind_instructions(CHILD, str(root), json.dumps([spec]), str(count), str(iterations), str(players),
                                  "0", inside=TREE_RUN)


def measure(specs: list[str], count: int, iterations: int, rounds: int, players: list[int]) -> dict:
    root = package_root(ROOT)
    best: dict[str, dict[int, dict]] = {spec: {} for spec in specs}
    for k in range(rounds):
        # all searches in one process, taking turns position by position: the load of the shared machine moves
        # within seconds (a first run at 42e19a2, one process a search, timed identical searches, mcts and
        # anchor-1k, 1.3-1.5x apart)
        for spec, by_players in timed(root, specs, count, iterations, players, k).items():
            for p, r in by_players.items():
                if p not in best[spec] or r["cpu_seconds"] < best[spec][p]["cpu_seconds"]:
                    best[spec][p] = r
    rows: dict[str, dict[int, dict]] = {}
    for spec in specs:
        rows[spec] = {}
        for p in players:
            r = best[spec][p]
            n = r["iterations"]
            rows[spec][p] = {"iterations": n, "playout_moves_per_iteration": r["playout_moves"] / n,
                             "instructions_per_iteration": instructions(root, spec, count, iterations, p) / n,
                             "cpu_us_per_iteration": 1e6 * r["cpu_seconds"] / n,
                             "wall_us_per_iteration": 1e6 * r["wall_seconds"] / n,
                             "iterations_per_cpu_second": n / r["cpu_seconds"]}
            print(f"{spec:28s} {p}p  {rows[spec][p]['instructions_per_iteration']:>10,.0f} instructions/it  "
                  f"{rows[spec][p]['cpu_us_per_iteration']:7.1f} CPU µs/it", flush=True)
    first = specs[0]
    ratios = {spec: {p: {k: rows[spec][p][k] / rows[first][p][k]
                         for k in ("instructions_per_iteration", "cpu_us_per_iteration")} for p in players}
              for spec in specs}
    return {"what": (f"instructions and CPU seconds per iteration of each search, {iterations} iterations from "
                     f"each of {count} positions per player count (best of {rounds} rounds, the searches "
                     "taking turns position by position in one process a round)"),
            "commit": code_state(ROOT, ("cext", "src")), "specs": specs, "positions": count,
            "iterations": iterations, "rounds": rounds, "searches": rows, "ratio_to_first": ratios,
            "machine": {**machine_info(), "load_average": list(os.getloadavg())},
            "date": datetime.now(timezone.utc).isoformat(timespec="seconds")}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--specs", nargs="+", default=list(COMPARED_SEARCHES), help="search bot specs (first: the "
                    "one the others are compared with)")
    ap.add_argument("--positions", type=int, default=3, help="positions per player count (default 3)")
    ap.add_argument("--iterations", type=int, default=1000, help="iterations a search (default 1000)")
    ap.add_argument("--rounds", type=int, default=4, help="timing rounds, the searches taking turns (default 4)")
    ap.add_argument("--players", type=int, nargs="+", default=[2, 3, 4], choices=[2, 3, 4])
    ap.add_argument("--out", type=Path, help="the JSON file (default results/bench/searches-COMMIT.json)")
    a = ap.parse_args(argv)
    for name in ("positions", "iterations", "rounds"):
        if getattr(a, name) < 1:
            ap.error(f"--{name} must be at least 1")
    from thurn_ai.bots.spec import make_bot
    for spec in a.specs:
        try:
            bot = make_bot(spec)
        except BotSpecError as e:
            ap.error(str(e))
        if not hasattr(bot, "_tree"):
            ap.error(f"{spec}: not a tree search (mcts, pimc or an anchor)")
    res = measure(a.specs, a.positions, a.iterations, a.rounds, a.players)
    out = a.out or ROOT / "results" / "bench" / f"searches-{res['commit'].split()[0]}.json"
    atomic_write_text(out, json.dumps(res, indent=1) + "\n")
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
