"""The hint's cost on the README's example position, before and after the default search changed.

    python experiments/bench_hint.py [--position examples/position.json] [--rounds 5]
                                     [--specs SPEC ...] [--out results/bench/hint-COMMIT.json]

`thurn-ai hint POSITION` searches with thurn_ai.bots.default_search.DEFAULT_SEARCH at the hint's budget (2000
iterations). By default this times it against the hint's search before the learned prior became the default
(the same search with `policy=handset`), both through `analyse()` as the hint calls it, on the same position
with the same seed. Two measurements, each in fresh Python processes that import this checkout's thurn_ai:

* CPU seconds of the whole `analyse()` call (the search, the ranking and the win map), the searches taking
  turns in one process a round, each keeping its best round: on a shared machine the ratio measured in one
  run is what the seconds are good for;
* instructions (valgrind's callgrind) inside the compiled search's Tree.run: the same count on a loaded
  machine as on an idle one;
* CPU seconds of the whole `thurn-ai hint POSITION` command (start-up, imports and the weights files
  included), a fresh process a run, the searches taking turns, each keeping its best run: what a user waits.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
from datetime import datetime, timezone
from pathlib import Path

from thurn_ai.fileio import atomic_write_text
from thurn_ai.play.bench import TREE_RUN, callgrind_instructions
from thurn_ai.studies.provenance import code_state, machine_info, package_root

ROOT = Path(__file__).resolve().parent.parent
BEFORE = "mcts(policy=handset,iterations=2000)"     # the hint's search before the learned prior (same budget)

CHILD = r'''
import json, sys, time
sys.meta_path = [f for f in sys.meta_path if "editable" not in repr(f).lower()]
sys.path.insert(0, sys.argv[1])
import thurn_ai
assert thurn_ai.__file__.startswith(sys.argv[1]), thurn_ai.__file__
from thurn_ai.bots.default_search import DEFAULT_SEARCH
from thurn_ai.bots.spec import BotSpec
from thurn_ai.play.analysis import analyse
from thurn_ai.position import load_position
specs, position, rounds = json.loads(sys.argv[2]), sys.argv[3], int(sys.argv[4])
state, _ = load_position(position, seed=0)           # as `thurn-ai hint` reads it (--seed 0)
bots = [DEFAULT_SEARCH if s == "default" else BotSpec.parse(s) for s in specs]
best = {s: None for s in specs}
for k in range(rounds):
    for j in range(len(specs)):           # each round starts with another search
        i = (j + k) % len(specs)
        t0 = time.thread_time()
        a = analyse(state, bot=bots[i], seed=0)
        cpu = time.thread_time() - t0
        if best[specs[i]] is None or cpu < best[specs[i]]["cpu_seconds"]:
            best[specs[i]] = {"cpu_seconds": cpu, "spec": str(bots[i]), "best": a.best.notation}
print(json.dumps(best))
'''


COMMAND = r'''
import sys
sys.meta_path = [f for f in sys.meta_path if "editable" not in repr(f).lower()]
sys.path.insert(0, sys.argv[1])
from thurn_ai.cli import main
sys.argv = ["thurn-ai", "hint", sys.argv[2], *sys.argv[3:]]
main()
'''


def command_cpu(root: Path, spec: str, position: Path, env: dict) -> float:
    """CPU seconds (user + system) of one whole `thurn-ai hint` process searching with `spec`."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    bot = [] if spec == "default" else ["--bot", spec]
    run = subprocess.run([sys.executable, "-c", COMMAND, str(root), str(position), *bot], capture_output=True,
                         text=True, env=env)
    if run.returncode:
        raise SystemExit(f"error: thurn-ai hint with {spec} failed:\n{run.stderr.strip()[-2000:]}")
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def measure(specs: list[str], position: Path, rounds: int) -> dict:
    root = package_root(ROOT)
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")
    run = subprocess.run([sys.executable, "-c", CHILD, str(root), json.dumps(specs), str(position), str(rounds)],
                         capture_output=True, text=True, env=env)
    if run.returncode:
        raise SystemExit(f"error: the timed hints failed:\n{run.stderr.strip()[-2000:]}")
    rows = json.loads(run.stdout.strip().splitlines()[-1])
    for k in range(rounds):
        for j in range(len(specs)):
            spec = specs[(j + k) % len(specs)]
            cpu = command_cpu(root, spec, position, env)
            rows[spec]["command_cpu_seconds"] = min(cpu, rows[spec].get("command_cpu_seconds", cpu))
    for spec in specs:
        rows[spec]["instructions_in_search"] = callgrind_instructions(
            CHILD, str(root), json.dumps([spec]), str(position), "1", inside=TREE_RUN)
        print(f"{rows[spec]['spec']}: {rows[spec]['cpu_seconds']:.3f} CPU s in analyse(), "
              f"{rows[spec]['command_cpu_seconds']:.2f} CPU s the whole command, "
              f"{rows[spec]['instructions_in_search']:,} instructions in the search", flush=True)
    first = rows[specs[0]]
    ratios = {s: {k: rows[s][k] / first[k] for k in ("cpu_seconds", "command_cpu_seconds", "instructions_in_search")}
              for s in specs}
    return {"what": (f"CPU seconds of analyse() on {position.name} at each search's budget (best of {rounds} "
                     "rounds, the searches taking turns in one process), of the whole thurn-ai hint command "
                     "(best of as many fresh processes) and callgrind instructions inside the compiled search"),
            "commit": code_state(ROOT, ("cext", "src")), "position": str(position.relative_to(ROOT)),
            "specs": specs, "rounds": rounds, "hints": rows, "ratio_to_first": ratios,
            "machine": {**machine_info(), "load_average": list(os.getloadavg())},
            "date": datetime.now(timezone.utc).isoformat(timespec="seconds")}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--position", type=Path, default=ROOT / "examples" / "position.json")
    ap.add_argument("--specs", nargs="+", default=["default", BEFORE],
                    help="the searches ('default': the hint's own; first: the one the others are compared with)")
    ap.add_argument("--rounds", type=int, default=5, help="timing rounds, the searches taking turns (default 5)")
    ap.add_argument("--out", type=Path, help="the JSON file (default results/bench/hint-COMMIT.json)")
    a = ap.parse_args(argv)
    if a.rounds < 1:
        ap.error("--rounds must be at least 1")
    if not a.position.is_file():
        ap.error(f"--position {a.position}: no such file")
    res = measure(a.specs, a.position.resolve(), a.rounds)
    out = a.out or ROOT / "results" / "bench" / f"hint-{res['commit'].split()[0]}.json"
    atomic_write_text(out, json.dumps(res, indent=1) + "\n")
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
