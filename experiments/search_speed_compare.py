"""Search speed of two checkouts, and proof that they search alike: for a change meant to be faster only.

    python experiments/search_speed_compare.py OLD_CHECKOUT NEW_CHECKOUT [--rounds 3] [--out results/bench/FILE.json]

Each checkout must be built in place (python setup.py build_ext --inplace). Two measurements, each in a fresh
Python process that imports that checkout's thurn_ai (not the installed one):

* time: CPU seconds of the default (strongest) `mcts` tree, 3000 iterations, from 20 positions per player count
  (South board, 2 / 3 / 4 players, seeds 5-8, after 5 / 20 / 35 / 50 / 65 turns of the heuristic policy). The
  checkouts take turns, round after round, and each keeps its best round: the machine is shared, so only the
  ratio measured in one run means much.
* fingerprint: the root statistics (visits and values of every child), tree size and playout length of 640
  small searches over 2-4 players, both boards, the horses variant, every playout / evaluation kind and a
  forbidden official, hashed. Equal hashes: the two checkouts make the same decisions in the same positions.

Exit status 1 if the fingerprints differ.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
from datetime import datetime, timezone
from pathlib import Path

from thurn_ai.fileio import atomic_write_text
from thurn_ai.studies.provenance import code_state, package_root

CHILD = r'''
import hashlib, json, sys, time
sys.meta_path = [f for f in sys.meta_path if "editable" not in repr(f).lower()]
sys.path.insert(0, sys.argv[1])
import thurn_ai
assert thurn_ai.__file__.startswith(sys.argv[1]), thurn_ai.__file__
from thurn_ai import _search
from thurn_ai.bots.search_options import SearchOptions
from thurn_ai.game.state import new_game
from thurn_ai.game.rules import Rules


def positions(players, board="south", variant="classic", seeds=(5, 6, 7, 8), stops=(5, 20, 35, 50, 65)):
    for seed in seeds:
        g = new_game(rules=Rules(players=players, board=board, variant=variant), seed=seed)
        i = 0
        for stop in stops:
            while g.turn < stop and not g.is_terminal():
                g.apply(_search.policy_choice(g, seed * 1000003 + i, 0, 0.05))
                i += 1
            if g.is_terminal():
                break
            yield seed, stop, g.clone()


def tree(g, seed, **over):
    args = SearchOptions().tree_args()
    args.update(over)
    return _search.Tree(g.state if hasattr(g, "state") else g, seed, **args)


if sys.argv[2] == "time":
    out = {}
    for players in (2, 3, 4):
        todo = list(positions(players))
        t0 = time.process_time()
        for k, (_seed, _stop, g) in enumerate(todo):
            tree(g, k).run(3000)
        out[players] = {"seconds": time.process_time() - t0, "positions": len(todo)}
    print(json.dumps(out))
else:
    lines = []
    for players in (2, 3, 4):
        for board, variant in (("south", "classic"), ("north", "classic"), ("north", "horses")):
            for seed, stop, g in positions(players, board, variant, seeds=(0, 1, 2), stops=(3, 15, 30, 45, 60, 80)):
                for over in ({}, {"playout": 2}, {"evaluation": 1, "horizon": 2}, {"forbid": 5, "reward": 1}):
                    t = tree(g, seed + stop, **over)
                    t.run(400)
                    lines.append(f"{players} {board} {variant} {seed} {stop} {over} {t.playout_moves} "
                                 f"{t.n_nodes} {t.root_children()!r}")
    print(json.dumps({"cases": len(lines), "sha256": hashlib.sha256("\n".join(lines).encode()).hexdigest()}))
'''


def child(checkout: Path, what: str) -> dict:
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")
    run = subprocess.run([sys.executable, "-c", CHILD, str(package_root(checkout)), what], capture_output=True,
                         text=True, env=env)
    if run.returncode:
        raise SystemExit(f"error: {checkout} ({what}) failed:\n{run.stderr.strip()[-2000:]}")
    return json.loads(run.stdout.strip().splitlines()[-1])


def commit(checkout: Path) -> str:
    """The checkout's commit, and any uncommitted changes to its package or compiled sources."""
    return code_state(checkout, ("cext", "thurn_ai", "src"))


def compare(old: Path, new: Path, rounds: int) -> dict:
    best = {"old": {}, "new": {}}
    for _ in range(rounds):
        for name, checkout in (("old", old), ("new", new)):
            for players, r in child(checkout, "time").items():
                prev = best[name].get(players)
                if prev is None or r["seconds"] < prev["seconds"]:
                    best[name][players] = r
    prints = {name: child(checkout, "fingerprint") for name, checkout in (("old", old), ("new", new))}
    return {
        "what": "CPU seconds of the default mcts tree, 3000 iterations, from the same positions (best round)",
        "old": {"commit": commit(old)},
        "new": {"commit": commit(new)},
        "rounds": rounds,
        "players": {p: {"old_seconds": best["old"][p]["seconds"], "new_seconds": best["new"][p]["seconds"],
                        "positions": best["new"][p]["positions"],
                        "speedup": best["old"][p]["seconds"] / best["new"][p]["seconds"]}
                    for p in best["new"]},
        "fingerprint": {**prints, "same": prints["old"] == prints["new"]},
        "machine": {"cpus": os.cpu_count(), "machine": platform.machine(), "processor": platform.processor(),
                    "python": platform.python_version(), "load_average": os.getloadavg()},
        "date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
    }


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("old", type=Path)
    ap.add_argument("new", type=Path)
    ap.add_argument("--rounds", type=int, default=3, help="timing rounds, taking turns (default 3)")
    ap.add_argument("--out", type=Path, default=None, help="write the numbers to this JSON file")
    a = ap.parse_args(argv)
    if a.rounds < 1:
        ap.error("--rounds must be at least 1")
    for checkout in (a.old, a.new):
        if not (package_root(checkout) / "thurn_ai").is_dir():
            ap.error(f"{checkout}: not a thurn-ai checkout (no thurn_ai or src/thurn_ai folder)")
    res = compare(a.old.resolve(), a.new.resolve(), a.rounds)
    for p, r in res["players"].items():
        print(f"{p} players: {r['old_seconds']:.3f} s -> {r['new_seconds']:.3f} s  ({r['speedup']:.2f}x)")
    same = res["fingerprint"]["same"]
    print(f"fingerprints ({res['fingerprint']['new']['cases']} searches): {'identical' if same else 'DIFFERENT'}")
    if a.out:
        atomic_write_text(a.out, json.dumps(res, indent=1) + "\n")
        print(f"wrote {a.out}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
