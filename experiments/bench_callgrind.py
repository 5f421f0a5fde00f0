"""Engine and search speed before/after a change, in instructions (valgrind's callgrind): repeatable
whatever else the shared machine is doing, unlike seconds.

    python experiments/bench_callgrind.py OLD_CHECKOUT NEW_CHECKOUT [--out results/bench/FILE.json]

Each checkout must be built in place (python setup.py build_ext --inplace). For each, a Python process
under callgrind imports that checkout's thurn_ai (not the installed one), sets up a 3-player position (40
random moves) and the search benchmark's position (thurn_ai.play.bench), and then does nothing (the
baseline) or one of: 20,000 clones, 200 compiled random playouts (the same games in both, when the rules did
not change), 200,000 compiled legal-move generations, 2,000 complete position dicts (to_dict), or 2,000
iterations of the SearchOptions-defaults tree (one tree; the same search in both when its fingerprint did not
change), or 2,000 iterations of the default `mcts` bot's tree (learned prior) and of `mcts(policy=handset)`'s
from the search benchmark's position. Instructions per unit = (run - baseline) / count.
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path

from thurn_ai.fileio import atomic_write_text
from thurn_ai.play.bench import callgrind_instructions
from thurn_ai.studies.provenance import commit, package_root

CHILD = r'''
import sys
sys.meta_path = [f for f in sys.meta_path if "editable" not in repr(f).lower()]
sys.path.insert(0, sys.argv[1])
import thurn_ai
from thurn_ai import _core
assert thurn_ai.__file__.startswith(sys.argv[1]), thurn_ai.__file__
from thurn_ai import _search
try:
    from thurn_ai.play.bench import bench_position
except ImportError:                      # a checkout from before the folders (issue 23)
    from thurn_ai.bench_search import bench_position
from thurn_ai.bots.search_options import SearchOptions
g = thurn_ai.new_game(players=3, seed=4)
for _ in range(40):
    g.apply_random()
s = bench_position()
tree = _search.Tree(s.determinize(s.current_player, 99), 1, **SearchOptions().tree_args())
if sys.argv[2] == "clone":
    for _ in range(20000):
        g.clone()
elif sys.argv[2] == "playout":
    _core.bench_playouts(g, 200, 7)
elif sys.argv[2] == "legal_moves":
    _core.bench_legal_moves(g, 200000)
elif sys.argv[2] == "to_dict":
    for _ in range(2000):
        g.to_dict()
elif sys.argv[2] == "search_iteration":
    tree.run(2000)
elif sys.argv[2] in ("search_learned", "search_handset"):
    # the default mcts (learned prior and evaluation) and its hand-set-prior twin, as the bot builds its tree
    from thurn_ai.bots.spec import make_bot
    bot = make_bot("mcts" if sys.argv[2] == "search_learned" else "mcts(policy=handset)")
    bot._tree(s, 1, ismcts=True).run(2000)
'''
COUNTS = {"clone": 20000, "playout": 200, "legal_moves": 200000, "to_dict": 2000, "search_iteration": 2000,
          "search_learned": 2000, "search_handset": 2000}


def instructions(checkout: Path, what: str) -> int:
    return callgrind_instructions(CHILD, str(package_root(checkout)), what)


def measure(checkout: Path) -> dict:
    base = instructions(checkout, "baseline")
    return {what: (instructions(checkout, what) - base) / n for what, n in COUNTS.items()}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("old", type=Path)
    ap.add_argument("new", type=Path)
    ap.add_argument("--out", type=Path)
    args = ap.parse_args(argv)
    old, new = measure(args.old.resolve()), measure(args.new.resolve())
    report = {"old": {"commit": commit(args.old), **old},
              "new": {"commit": commit(args.new), **new},
              "ratio_new_over_old": {k: new[k] / old[k] for k in COUNTS}}
    text = json.dumps(report, indent=2)
    print(text)
    if args.out:
        atomic_write_text(args.out, text + "\n")


if __name__ == "__main__":
    main()
