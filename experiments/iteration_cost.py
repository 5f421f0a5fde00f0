"""The cost of one search iteration (issue 69, cheaper iterations): this code's default search against a baseline
commit's, built from a clean export of that commit in a scratch folder; reproduces results/iteration_cost/.

    python experiments/iteration_cost.py --baseline 1fa9f41

For 2, 3 and 4 players, the frozen default search (`anchor-1k`'s tree) runs ITERATIONS iterations from each of
three fixed positions (South board, reached by the seeded heuristic policy from fixed deals: the start, a card to
play, a later decision), a fixed seed each. Both builds must give the same root statistics (the run stops if not:
the speed-up is exact). Measured, in one run:
  - instructions an iteration: valgrind's callgrind, counted inside the compiled Tree.run only (PYTHONHASHSEED=0);
  - iterations per CPU second: the searches' thread CPU time (time.thread_time around Tree.run), ROUNDS rounds
    alternating the two builds (one fresh process each), the totals of all rounds;
  - the profile of results/search_budget (where an iteration's instructions go, inclusive, on the search
    benchmark's position) for both builds.
Writes results.json and report.md (the tables) into --out, and the folder's front page (README.md, findings.json;
`--report` rewrites only these from results.json). Refuses uncommitted code unless --allow-dirty.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from thurn_ai.fileio import atomic_write_text
from thurn_ai.play.bench import PROFILE_CHILD, PROFILE_PARTS, profile_parts
from thurn_ai.studies.pages import refresh
from thurn_ai.studies.provenance import committed_code_or_exit, log_run


ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "results" / "iteration_cost"
SPEC = "anchor-1k"
ITERATIONS = 2000
ROUNDS = 8
PROFILE_ITERATIONS = 3000
#: players -> [(deal, phase wanted, heuristic moves to play first at least)] (as tests/core/test_search_exact.py)
POSITIONS = {2: [(101, "draw", 0), (102, "play", 30), (104, "after_play", 150)],
             3: [(201, "draw", 0), (202, "play", 40), (203, "cartwright", 90)],
             4: [(301, "draw", 0), (302, "play", 50), (303, "after_play", 120)]}

CHILD = r"""
import hashlib, json, sys, time
import thurn_ai
from thurn_ai import _search
from thurn_ai.bots import make_bot
spec, iterations, positions = sys.argv[1], int(sys.argv[2]), json.loads(sys.argv[3])
out = {"module": _search.__file__}
for players, rows in positions.items():
    searched = cpu = 0.0
    digest = hashlib.sha256()
    for deal, phase, moves in rows:
        g = thurn_ai.new_game(players=int(players), seed=deal)
        k = 0
        while k < moves or g.phase != phase:
            g.apply(_search.policy_choice(g, deal * 1000 + k, 0, 0.05))
            k += 1
        tree = make_bot(spec)._tree(g, deal + 7, ismcts=True)
        start = time.thread_time()
        searched += tree.run(iterations)
        cpu += time.thread_time() - start
        digest.update(repr(sorted(tree.root_children())).encode())
    out[players] = {"iterations": searched, "cpu": cpu, "root": digest.hexdigest()}
print(json.dumps(out))
"""


def build_baseline(commit: str, where: Path) -> Path:
    """A clean export of `commit` with its compiled modules built in place; returns its src folder."""
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", commit], capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(where)], input=archive, check=True)
    subprocess.run([sys.executable, "setup.py", "build_ext", "--inplace"], cwd=where, capture_output=True, check=True)
    return where / "src"


def env_for(src: Path) -> dict:
    return dict(os.environ, PYTHONPATH=str(src), PYTHONHASHSEED="0")


def child(src: Path, players: list[int]) -> dict:
    positions = json.dumps({p: POSITIONS[p] for p in players})
    run = subprocess.run([sys.executable, "-c", CHILD, SPEC, str(ITERATIONS), positions], env=env_for(src),
                         capture_output=True, text=True, check=True)
    data = json.loads(run.stdout.splitlines()[-1])
    if not data.pop("module").startswith(str(src)):
        raise SystemExit(f"error: the child did not import the build under {src}")
    return data


def instructions(src: Path, code: str, *args: str, out_file: str = "/dev/null") -> str:
    run = subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out_file}",
                          "--toggle-collect=*_search_4Tree_*run", sys.executable, "-c", code, *args],
                         env=env_for(src), capture_output=True, text=True, check=True)
    return run.stderr


def count(src: Path, players: int) -> float:
    """Instructions an iteration of the searches at `players` (callgrind, inside Tree.run)."""
    positions = json.dumps({players: POSITIONS[players]})
    stderr = instructions(src, CHILD, SPEC, str(ITERATIONS), positions)
    found = re.search(r"Collected : (\d+)", stderr)
    if found is None:
        raise RuntimeError(f"callgrind reported no count:\n{stderr[-2000:]}")
    return int(found.group(1)) / (ITERATIONS * len(POSITIONS[players]))


def profile(src: Path) -> dict:
    """results/search_budget's profile (inclusive instructions an iteration by part) for the build at src."""
    with tempfile.TemporaryDirectory() as tmp:
        out_file = str(Path(tmp) / "callgrind.out")
        instructions(src, PROFILE_CHILD, SPEC, str(PROFILE_ITERATIONS), out_file=out_file)
        text = subprocess.run(["callgrind_annotate", "--inclusive=yes", "--threshold=100", out_file],
                              capture_output=True, text=True, check=True).stdout
    return profile_parts(text, PROFILE_ITERATIONS)


def machine() -> dict:
    model = next((line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                  if line.startswith("model name")), platform.processor())
    return {"cpu": model, "cores": os.cpu_count(), "python": platform.python_version(), "system": platform.platform()}


def report(data: dict) -> str:
    """report.md: the measurements' tables (the front page, README.md, lists the findings read off results.json)."""
    b, c = data["baseline"], data["code"]
    lines = ["# The cost of a search iteration: this code against the baseline", "",
             f"`python experiments/iteration_cost.py --baseline {b}` at commit {c} (baseline {b}: a clean export "
             "of that commit built in a scratch folder). The default search (`anchor-1k`'s tree: learned prior mixed "
             f"half and half with the hand-set one, learned evaluation, PUCT), {data['iterations']} iterations from "
             "each of three fixed positions a player count (South board, a fixed seed each). The two builds gave the "
             "same root statistics at every player count (checked in the run; tests/core/test_search_exact.py pins "
             f"them bit for bit). Machine: {data['machine']['cpu']}, {data['machine']['cores']} cores, shared with "
             f"other work (load average {data['load'][0]:.2f} at the start, {data['load'][1]:.2f} at the end; the "
             "run niced).", "",
             "| players | instructions an iteration: baseline | this code | ratio | iterations per CPU second: "
             "baseline | this code | ratio |", "|---|---:|---:|---:|---:|---:|---:|"]
    for p, row in data["players"].items():
        lines.append(f"| {p} | {row['instructions'][b]:,.0f} | {row['instructions'][c]:,.0f} | "
                     f"{row['instructions_ratio']:.3f} | {row['per_cpu_second'][b]:,.0f} | "
                     f"{row['per_cpu_second'][c]:,.0f} | {row['speed_ratio']:.3f} |")
    lines += ["", "Instructions: callgrind, counted inside the compiled `Tree.run` only (one process a count). "
              f"Iterations per CPU second: the searches' thread CPU time, {data['rounds']} rounds alternating the two "
              "builds (a fresh process each), all rounds' iterations over all rounds' CPU seconds. Ratios: this "
              "code's over the baseline's.", "",
              "## Where an iteration goes", "",
              f"The profile of `results/search_budget` (callgrind, {PROFILE_ITERATIONS} iterations from the search "
              "benchmark's position, inclusive instructions an iteration: a part counts what it calls):", "",
              f"| part | baseline {b} | this code {c} |", "|---|---:|---:|"]
    for name in PROFILE_PARTS:
        lines.append(f"| {name} | {data['profile'][b][name]:,.0f} | {data['profile'][c][name]:,.0f} |")
    lines += ["", "What changed, every change exact: docs/search-budget.md, \"Cheaper iterations\".", ""]
    return "\n".join(lines)


def write_pages(out: Path) -> None:
    """report.md from results.json, and the folder's front page (README.md, findings.json)."""
    atomic_write_text(out / "report.md", report(json.loads((out / "results.json").read_text(encoding="utf-8"))))
    refresh(out)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--baseline", help="the commit to compare against (main before the change)")
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument("--allow-dirty", action="store_true")
    ap.add_argument("--report", action="store_true", help="only report.md and the front page, from results.json")
    args = ap.parse_args(argv)
    if args.report:
        write_pages(args.out)
        return 0
    if args.baseline is None:
        ap.error("give --baseline (or --report)")
    code = committed_code_or_exit(ROOT, args.allow_dirty)
    baseline = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", args.baseline], capture_output=True,
                              text=True, check=True).stdout.strip()
    started = time.time()
    load = [os.getloadavg()[0]]
    with tempfile.TemporaryDirectory() as tmp:
        print(f"building {baseline} in a scratch folder", flush=True)
        builds = {baseline: build_baseline(baseline, Path(tmp)), code: ROOT / "src"}
        players = list(POSITIONS)
        cpu = {name: {p: [0.0, 0.0] for p in players} for name in builds}
        roots = {name: {} for name in builds}
        for r in range(ROUNDS):
            for name in (list(builds) if r % 2 == 0 else list(builds)[::-1]):
                got = child(builds[name], players)
                for p in players:
                    cpu[name][p][0] += got[str(p)]["iterations"]
                    cpu[name][p][1] += got[str(p)]["cpu"]
                    roots[name].setdefault(p, got[str(p)]["root"])
            print(f"round {r + 1}/{ROUNDS}", flush=True)
        rows = {}
        for p in players:
            same = roots[baseline][p] == roots[code][p]
            if not same:
                raise SystemExit(f"error: the two builds' root statistics differ at {p} players")
            counted = {name: count(src, p) for name, src in builds.items()}
            speed = {name: cpu[name][p][0] / cpu[name][p][1] for name in builds}
            rows[p] = {"instructions": counted, "instructions_ratio": counted[code] / counted[baseline],
                       "per_cpu_second": speed, "speed_ratio": speed[code] / speed[baseline],
                       "iterations": {name: cpu[name][p][0] for name in builds},
                       "cpu_seconds": {name: cpu[name][p][1] for name in builds}, "same_root": same}
            print(f"{p} players: {counted[baseline]:,.0f} -> {counted[code]:,.0f} instructions an iteration, "
                  f"{speed[baseline]:,.0f} -> {speed[code]:,.0f} iterations per CPU second", flush=True)
        profiles = {name: profile(src) for name, src in builds.items()}
    load.append(os.getloadavg()[0])
    data = {"code": code, "baseline": baseline, "spec": SPEC, "iterations": ITERATIONS, "rounds": ROUNDS,
            "positions": POSITIONS, "machine": machine(), "load": load, "players": rows, "profile": profiles}
    args.out.mkdir(parents=True, exist_ok=True)
    atomic_write_text(args.out / "results.json", json.dumps(data, indent=1) + "\n")
    log_run(args.out, "iteration_cost", time.time() - started, code, baseline=baseline)
    write_pages(args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
