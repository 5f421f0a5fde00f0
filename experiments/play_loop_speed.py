"""The Python play loop's cost a move, two checkouts interleaved in one run: games of random bots through
play_game, then their replay (CPU microseconds a move; the best of the rounds).

    python experiments/play_loop_speed.py OLD_CHECKOUT NEW_CHECKOUT [--games 40] [--rounds 5]

Each checkout must be built in place (python setup.py build_ext --inplace). The games are the same in
both (same seeds), which the script checks by their move count."""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

from thurn_ai.studies.provenance import code_state, package_root

WORKER = r'''
import sys, time
# this checkout's thurn_ai, not an installed (editable) one
sys.meta_path = [f for f in sys.meta_path if "editable" not in repr(f).lower()]
sys.path.insert(0, sys.argv[2])
import thurn_ai
assert thurn_ai.__file__.startswith(sys.argv[2]), thurn_ai.__file__
from thurn_ai import Rules
from thurn_ai.bots import make_bot
try:
    from thurn_ai.play.match import play_game, replay
except ImportError:                      # a checkout from before the folders (issue 23)
    from thurn_ai.match import play_game, replay
games = int(sys.argv[1])
moves, recs = 0, []
t0 = time.process_time()
for g in range(games):
    rec = play_game(Rules(players=3), [make_bot("random", seed=g * 10 + i) for i in range(3)], seed=g)
    recs.append(rec)
    moves += len(rec.moves)
t1 = time.process_time()
for rec in recs:
    replay(rec)
t2 = time.process_time()
print(1e6 * (t1 - t0) / moves, 1e6 * (t2 - t1) / moves, moves)
'''


def run(checkout: str, games: int) -> tuple[float, float, int]:
    out = subprocess.run([sys.executable, "-c", WORKER, str(games), os.path.abspath(package_root(checkout))],
                         capture_output=True, text=True, check=True, cwd=os.path.abspath(os.sep)).stdout.split()
    return float(out[0]), float(out[1]), int(out[2])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("--games", type=int, default=40)
    ap.add_argument("--rounds", type=int, default=5)
    a = ap.parse_args(argv)
    got = {"old": [], "new": []}
    for _ in range(a.rounds):
        for name, path in (("old", a.old), ("new", a.new)):
            got[name].append(run(path, a.games))
    if {r[2] for r in got["old"] + got["new"]} != {got["old"][0][2]}:
        print("error: the two checkouts played different games", file=sys.stderr)
        return 2
    paths = ("cext", "thurn_ai", "src")        # the package and the compiled sources, before and after the src layout
    print(f"old: {code_state(Path(a.old), paths)}, new: {code_state(Path(a.new), paths)}")
    for i, what in enumerate(("play_game", "replay")):
        old, new = min(r[i] for r in got["old"]), min(r[i] for r in got["new"])
        print(f"{what}: old {old:.2f} µs a move, new {new:.2f} µs a move, new / old {new / old:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
