"""Parallel speed-up of tournaments: the same tournament with --jobs 1 and --jobs 2 (and more, if the machine
has more cores), timed, and checked to give identical results.

    python experiments/speedup.py                       # both workloads below -> results/speedup/
    python experiments/speedup.py --workload cheap      # one of them

Workloads: 'search' = mcts (1000 iterations) against greedy (seconds per game: the work dominates) and
'cheap' = random against random (hundredths of a second per game: process start-up and moving each
game's result and record between processes weigh most). Speed is measured here, never in tests.

Wall-clock speed-up needs an otherwise idle machine: Linux (autogroup) shares the CPUs fairly between
sessions, not processes, so on a busy machine two workers get no more CPU than one. The 1-minute load
average is recorded with each run, and the CPU seconds (this process and its workers) show the overhead
of parallel play independently of the load.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import time
from pathlib import Path

import pandas as pd

from thurn_ai.studies.provenance import machine_info
from thurn_ai.fileio import atomic_write_text
from thurn_ai.play.tournament import run_tournament
from thurn_ai.play.workers import default_jobs

WORKLOADS = {
    "search": {"specs": ["mcts", "greedy"], "games": 24},
    "cheap": {"specs": ["random", "random"], "games": 200},
}


def cpu_seconds() -> float:
    """CPU time of this process and its finished children (the pool's workers are joined at its end)."""
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def measure(specs, games, jobs_list, seed=1):
    rows, first = [], None
    for jobs in jobs_list:
        t, cpu = time.perf_counter(), cpu_seconds()
        df = run_tournament(specs, games=games, seed=seed, jobs=jobs, progress=False)
        seconds, cpu = time.perf_counter() - t, cpu_seconds() - cpu
        if first is None:
            first = df
        identical = bool(df.equals(first))
        pd.testing.assert_frame_equal(df, first)      # the point of the seeding scheme
        rows.append({"jobs": jobs, "seconds": round(seconds, 2), "cpu_seconds": round(cpu, 2),
                     "games_per_s": round(games / seconds, 3),
                     "identical_to_jobs_1": identical, "load_average_1min_after": round(os.getloadavg()[0], 2)})
        print(f"  jobs={jobs}: {seconds:7.1f} s  ({games / seconds:.2f} games/s, {cpu:.1f} CPU s, "
              f"load {os.getloadavg()[0]:.1f})", flush=True)
    base = rows[0]["seconds"]
    for r in rows:
        r["speedup"] = round(base / r["seconds"], 2)
        r["efficiency"] = round(base / r["seconds"] / r["jobs"], 2)
    return rows


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--workload", choices=sorted(WORKLOADS), action="append")
    ap.add_argument("--out", default="results/speedup")
    args = ap.parse_args(argv)
    cores = default_jobs()
    jobs_list = sorted({1, 2, cores})
    info = machine_info()
    # other programs' load distorts wall-clock speed-ups: it is recorded with every run
    report = {"machine": info, "cores": cores, "load_average_1min_before": round(os.getloadavg()[0], 2),
              "command": " ".join(["python", sys.argv[0]] + (argv or sys.argv[1:])), "workloads": {}}
    for name in args.workload or list(WORKLOADS):
        w = WORKLOADS[name]
        print(f"{name}: {', '.join(w['specs'])}, {w['games']} games", flush=True)
        report["workloads"][name] = {**w, "runs": measure(w["specs"], w["games"], jobs_list)}
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"speedup-{info['commit'] or 'unknown'}.json"
    atomic_write_text(path, json.dumps(report, indent=2) + "\n")
    print(f"written {path}")


if __name__ == "__main__":
    main()
