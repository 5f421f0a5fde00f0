"""Generation 4 of the move prior: the improved-policy target on rows from the teacher's well-visited internal
nodes as well as its root, with the two features a strong player uses (route-tile step, denial of an
opponent's long route); gated offline against equal-budget re-searches. Reproduces results/expert_gen4/; no
game is played.

    python experiments/expert_gen4.py --part internal --jobs 2   # internal-node rows of the teacher data (resumes)
    python experiments/expert_gen4.py --part fit        # prior_gen4.json and its ablation prior_gen4_root.json
    python experiments/expert_gen4.py --part labels     # equal-budget labels of held-out decisions (resumes)
    python experiments/expert_gen4.py --part report     # the gate: report.md, summary.json, findings.json, README

**Internal rows** (thurn_ai/studies/expert/internal.py). Every training decision (not a held-out game, not the
draw phase) of generation 1's and 2's committed teacher data (results/expert/data, results/expert/gen2/data)
is searched again by its folder's own teacher (10,000 iterations) with a fresh seed, and every node below the
root where the same player decides again in the same turn, reached without a draw and visited at least 500
times, gives one decision: its moves' visits and values. Seed 54.

**Fit.** As generation 3 (thurn_ai/studies/expert/fit.py: the improved policy softmax(log prior + sigma(
completed Q)) of each decision's teacher, conditional logit per count and phase, penalties by 5-fold
cross-validation by game, held-out games never fitted), with the compiled prior's 29 features (generation 3
had the first 27) and on the root rows and the internal rows together: `gen4`. The ablation `gen4_root` is
the same fit on the root rows alone (the features' share of any change; gen4 − gen4_root is the rows').

**Labels** (thurn_ai/studies/expert/equal_budget.py) as generation 3's, over the favourites of generation 1
(the shipped prior), generation 3, gen4, gen4_root and the planner: where they differ and the mover moves
again after each, every candidate's child is searched 3000 iterations by `mcts(eval=learned,policy=handset)`
in the same 3 worlds; the label is the candidate of the highest mean value. Seed 54.

**The rule, fixed before the fit (this file, committed first).** gen4 goes on to played cells only if, pooled
over 2-4 players and both folders, (a) its favourite is the label more often than generation 1's, with the 95%
interval of the paired difference (per decision; standard errors clustered by game) above 0, and (b) its
pooled agreement is at least generation 3's (the prior that passed this gate and then did not pass in play).
Otherwise no cell is played for it. gen4 − gen3, gen4 − gen4_root and gen4_root − gen3 are reported beside it,
not gated and not corrected for their number: they say where a change came from, not whether to play.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import pandas as pd

from thurn_ai.fileio import atomic_to_csv, atomic_write_text
from thurn_ai.learned.prior import prior_from
from thurn_ai.studies.chunked import stopping_safely
from thurn_ai.studies.expert import equal_budget as E
from thurn_ai.studies.expert import fit as F
from thurn_ai.studies.expert import internal as N
from thurn_ai.studies.markdown import table
from thurn_ai.studies.pages import refresh
from thurn_ai.studies.provenance import committed_code_or_exit, cpu_clock, log_run

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "results" / "expert"
FOLDERS = {"gen1": DATA / "data", "gen2": DATA / "gen2" / "data"}
GEN3 = ROOT / "results" / "expert_gen3" / "prior_gen3.json"
OUT = ROOT / "results" / "expert_gen4"
PLAYERS = (2, 3, 4)
SEED = 54
COMPARED = ("gen1", "gen3", "gen4", "gen4_root", "planner")
#: (a, b): b minus a. The first is the gate's; the others say where a change came from
PAIRS = (("gen1", "gen4"), ("gen3", "gen4"), ("gen4_root", "gen4"), ("gen3", "gen4_root"))
FITS = {"gen4": True, "gen4_root": False}          # prior name: with the internal rows


def internal_folder(out: Path, tag: str) -> Path:
    return out / "internal" / tag


def priors(out: Path) -> dict:
    return {"gen1": prior_from(DATA / "prior_gen1.json"), "gen3": prior_from(GEN3),
            **{name: prior_from(out / f"prior_{name}.json") for name in FITS}}


def part_internal(args, code: str) -> None:
    # no time limit here: Ctrl-C (or SIGTERM) stops it, and the same command resumes at the missing chunks
    start, wall = cpu_clock(), time.time()
    for tag, folder in FOLDERS.items():
        out = internal_folder(args.out, tag)
        with stopping_safely(out):
            N.generate(out, N.plan_chunks(folder, SEED, PLAYERS), args.jobs,
                       progress=lambda c, tag=tag: print(f"{tag}/{c.name} ({time.time() - wall:.0f} s)", flush=True))
    log_run(args.out, "internal", cpu_clock() - start, code, cpu_seconds=True, jobs=args.jobs,
            wall_seconds=round(time.time() - wall, 1))


def part_fit(args, code: str) -> None:
    start = time.process_time()
    nodes = [internal_folder(args.out, tag) for tag in FOLDERS]
    for name, with_rows in FITS.items():
        train, _held = F.load_groups(list(FOLDERS.values()), PLAYERS, target="improved",
                                     internal=nodes if with_rows else None)
        decisions = {f"{n}p": int(sum(len(d) for (m, _), d in train.items() if m == n)) for n in PLAYERS}
        data = [str(p.relative_to(ROOT)) for p in FOLDERS.values()]
        model, cv = F.fit_prior(train, meta={
            "data": data + ([str(p.relative_to(ROOT)) for p in nodes] if with_rows else []),
            "generation": 4, "code": code, "min_visits": F.MIN_VISITS, "decisions": decisions,
            "internal_rows": with_rows})
        args.out.mkdir(parents=True, exist_ok=True)
        model.save(args.out / f"prior_{name}.json")
        atomic_to_csv(cv.assign(prior=name), args.out / f"cv_{name}.csv", index=False)
        print(name, decisions, flush=True)
    log_run(args.out, "fit", time.process_time() - start, code, cpu_seconds=True, target="improved")


def part_labels(args, code: str) -> None:
    E.labels_part(args.out, FOLDERS, PLAYERS, SEED, priors(args.out), args.budget, args.worlds, args.limit_minutes,
                  code)


def part_report(args, code: str) -> None:
    labels, made = E.load_set(args.out / "labels")          # the labels and their budget
    rows, diffs, phases = E.gate_tables(labels, COMPARED, PAIRS, PLAYERS)
    pooled = {r["players"]: r for r in rows}["pooled"]
    gate = next(r for r in diffs if r["players"] == "pooled" and (r["base"], r["versus"]) == PAIRS[0]
                and r["measure"] == "agreement")
    passed = bool(gate["low"] > 0 and pooled["gen4"] >= pooled["gen3"])
    fitted = {name: json.loads((args.out / f"prior_{name}.json").read_text(encoding="utf-8")).get("meta", {})
              for name in FITS}
    summary = {"code": code, "held_out_decisions": len(labels), "labelled": int(labels.labelled.sum()),
               "games": int(labels.groupby(["folder", "players", "game"]).ngroups),
               "budget": made["budget"], "worlds": made["worlds"],
               "training_decisions": {name: m.get("decisions") for name, m in fitted.items()},
               "gen4_minus_gen1": gate, "gen4_agreement": pooled["gen4"], "gen3_agreement": pooled["gen3"],
               "gen4_to_played_cells": passed}
    atomic_write_text(args.out / "summary.json", json.dumps(summary, indent=1) + "\n")
    atomic_to_csv(pd.DataFrame(rows), args.out / "agreement.csv", index=False)
    atomic_to_csv(pd.DataFrame(diffs), args.out / "paired.csv", index=False)
    atomic_to_csv(pd.DataFrame(phases), args.out / "phases.csv", index=False)
    write_report(args.out, code, summary, rows, diffs, phases)


def _interval(r) -> str:
    scale, digits = (100, 1) if r["measure"] == "agreement" else (1, 4)
    return f"{scale * r['diff']:+.{digits}f} [{scale * r['low']:+.{digits}f}, {scale * r['high']:+.{digits}f}]"


def write_report(out: Path, code: str, s: dict, rows: list, diffs: list, phases: list) -> None:
    body = [[r["players"], f"{r['held_out']:,}", f"{r['decisions']:,}", str(r["games"]),
             *[f"{100 * r[k]:.1f}%" for k in COMPARED]] for r in rows]
    value = {(r["players"], r["base"], r["versus"]): r for r in diffs if r["measure"] == "value"}
    paired = [[r["players"], f"{r['versus']} − {r['base']}", _interval(r),
               _interval(value[(r["players"], r["base"], r["versus"])])]
              for r in diffs if r["measure"] == "agreement"]
    fitted = "; ".join(f"{name}: " + ", ".join(f"{k} {v:,}" for k, v in (d or {}).items())
                       for name, d in s["training_decisions"].items())
    lines = ["# Generation 4 of the move prior: internal-node rows and two new features, gated offline", "",
             f"Computed at {code} by `python experiments/expert_gen4.py`; the rule and the method are in that "
             "script's docstring. No game was played.", "",
             f"Training decisions by count ({fitted}).", "",
             f"Held-out decisions in a learned phase: {s['held_out_decisions']:,} ({s['games']} games); labelled "
             f"(the favourites differ, the mover moves again after each, no tie): {s['labelled']:,}. Each "
             f"candidate's child searched {s['budget']} iterations in the same {s['worlds']} worlds. The share "
             "of labelled decisions where the favourite is the equal-budget label:", "",
             *table(["players", "held-out", "labelled", "games", *COMPARED], body, right="lrrr" + "r" * len(COMPARED)),
             "", "Paired differences on the labelled decisions (95% intervals, standard errors clustered by game): "
             "agreement with the label in points, and the equal-budget child value of the favourite (the mover's "
             "mean reward). The first pair is the gate's; the others are not gated:", "",
             *table(["players", "difference", "agreement, points", "child value"], paired, right="llrr"), "",
             "By phase, pooled over the counts (not gated), agreement in points:", "",
             *table(["phase", "difference", "labelled", "points"],
                    [[r["phase"], f"{r['versus']} − {r['base']}", str(r["decisions"]),
                      _interval({**r, "measure": "agreement"})] for r in phases], right="llrr"), "",
             "By the rule: " + ("**gen4 goes on to played cells**." if s["gen4_to_played_cells"] else
                                "**gen4 does not go on**: no cell is played for it."), ""]
    atomic_write_text(out / "report.md", "\n".join(lines))
    refresh(out)


PARTS = {"internal": part_internal, "fit": part_fit, "labels": part_labels, "report": part_report}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--part", choices=list(PARTS), action="append")
    ap.add_argument("--jobs", type=int, default=1, help="internal: worker processes")
    ap.add_argument("--budget", type=int, default=3000, help="iterations of each candidate's child search")
    ap.add_argument("--worlds", type=int, default=3, help="determinizations each candidate is searched in")
    ap.add_argument("--limit-minutes", type=float, default=None, help="labels: stop after the game in progress "
                    "once this many minutes have passed (the same command resumes)")
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument("--allow-dirty", action="store_true")
    args = ap.parse_args(argv)
    if args.jobs < 1 or args.budget < 1 or args.worlds < 1:
        print("error: --jobs, --budget and --worlds take a positive number", file=sys.stderr)
        return 2
    code = committed_code_or_exit(ROOT, args.allow_dirty)
    os.chdir(ROOT)     # the teacher specs name weights files relative to the repository's root
    for part in args.part or list(PARTS):
        PARTS[part](args, code)
    return 0


if __name__ == "__main__":
    sys.exit(main())
