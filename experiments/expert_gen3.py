"""Generation 3 of the move prior: fitted to the improved policy of the teacher's values, gated offline against
equal-budget re-searches. Reproduces results/expert_gen3/; no game is played.

    python experiments/expert_gen3.py --part fit       # prior_gen3.json: the improved target, gens 1 + 2's data
    python experiments/expert_gen3.py --part labels    # equal-budget labels of held-out decisions (resumes)
    python experiments/expert_gen3.py --part report    # the gate: report.md, summary.json, findings.json, README

**Fit.** The conditional logit of generations 1 and 2 (thurn_ai/studies/expert/fit.py: same 27 features,
phases, penalties, 5-fold cross-validation by game, held-out games never fitted) on the training games of
generation 1's and 2's committed teacher data (results/expert/data, results/expert/gen2/data), with one
change: the target is the improved policy softmax(log prior + sigma(completed Q)) of each decision's teacher
(thurn_ai/studies/expert/improved.py), not its visit shares.

**Labels** (thurn_ai/studies/expert/equal_budget.py). At every held-out decision of both folders (the study's
held_out split) in a learned phase, the candidates are the favourites of generation 1 (results/expert/
prior_gen1.json, the shipped prior: visit shares + value softmax), generation 2 (prior_gen2.json, the same
target on generation 3's data), generation 3 and the planner. Where they differ and the mover moves again
after each, every candidate's child is searched 3000 iterations by `mcts(eval=learned,policy=handset)` in
the same 3 worlds (common random numbers); the label is the candidate of the highest mean value. Seeded,
resumable by game, interleaved over the counts and folders; --budget / --worlds / --limit-minutes size it.

**The rule, fixed before the fit (this file, committed first).** Generation 3 goes on to a played cell
(`mcts(...,pmodel=results/expert_gen3/prior_gen3.json)` against the default's cells) only if, pooled over
2-4 players and both folders, the share of labelled held-out decisions where its favourite is the label
exceeds generation 1's, with the 95% interval of the paired difference (per decision; standard errors
clustered by game) above 0. Otherwise generation 1 stays the prior and no cell is played for generation 3.
The planner and generation 2 are reported beside them, not gated.
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
from thurn_ai.studies.expert import equal_budget as E
from thurn_ai.studies.expert import fit as F
from thurn_ai.studies.markdown import table
from thurn_ai.studies.pages import refresh
from thurn_ai.studies.provenance import committed_code_or_exit, log_run

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "results" / "expert"
FOLDERS = {"gen1": DATA / "data", "gen2": DATA / "gen2" / "data"}
OUT = ROOT / "results" / "expert_gen3"
PLAYERS = (2, 3, 4)
SEED = 51
COMPARED = ("gen1", "gen2", "gen3", "planner")


def priors(out: Path) -> dict:
    return {"gen1": prior_from(DATA / "prior_gen1.json"), "gen2": prior_from(DATA / "prior_gen2.json"),
            "gen3": prior_from(out / "prior_gen3.json")}


def part_fit(args, code: str) -> None:
    start = time.process_time()
    train, _held = F.load_groups(list(FOLDERS.values()), PLAYERS, target="improved")
    decisions = {f"{n}p": int(sum(len(d) for (m, _), d in train.items() if m == n)) for n in PLAYERS}
    model, cv = F.fit_prior(train, meta={"data": ["results/expert/data", "results/expert/gen2/data"],
                                         "generation": 3, "code": code, "min_visits": F.MIN_VISITS,
                                         "decisions": decisions})
    args.out.mkdir(parents=True, exist_ok=True)
    model.save(args.out / "prior_gen3.json")
    atomic_to_csv(cv, args.out / "cv.csv", index=False)
    print(cv.to_string(index=False))
    log_run(args.out, "fit gen3", time.process_time() - start, code, cpu_seconds=True, target="improved")


def part_labels(args, code: str) -> None:
    E.labels_part(args.out, FOLDERS, PLAYERS, SEED, priors(args.out), args.budget, args.worlds, args.limit_minutes,
                  code)


def part_report(args, code: str) -> None:
    labels, made = E.load_set(args.out / "labels")          # the labels and their budget
    done = labels[labels.labelled]
    pairs = [("gen1", b) for b in ("gen3", "gen2", "planner")]
    rows, diffs, phases = E.gate_tables(labels, COMPARED, pairs, PLAYERS)
    phases = [r for r in phases if r["versus"] == "gen3"]
    pooled = next(r for r in diffs if r["players"] == "pooled" and r["versus"] == "gen3"
                  and r["measure"] == "agreement")
    summary = {"code": code, "held_out_decisions": len(labels), "labelled": len(done),
               "games": int(labels.groupby(["folder", "players", "game"]).ngroups),
               "budget": made["budget"], "worlds": made["worlds"],
               "gen3_minus_gen1": pooled, "gen3_to_a_played_cell": bool(pooled["low"] > 0)}
    atomic_write_text(args.out / "summary.json", json.dumps(summary, indent=1) + "\n")
    atomic_to_csv(pd.DataFrame(rows), args.out / "agreement.csv", index=False)
    atomic_to_csv(pd.DataFrame(diffs), args.out / "paired.csv", index=False)
    atomic_to_csv(pd.DataFrame(phases), args.out / "phases.csv", index=False)
    write_report(args.out, code, summary, rows, diffs, phases)


def write_report(out: Path, code: str, s: dict, rows: list[dict], diffs: list[dict], phases: list[dict]) -> None:
    body = [[r["players"], f"{r['held_out']:,}", f"{r['decisions']:,}", str(r["games"]),
             *[f"{100 * r[k]:.1f}%" for k in COMPARED]] for r in rows]

    def cell(r):
        scale, digits = (100, 1) if r["measure"] == "agreement" else (1, 4)
        return f"{scale * r['diff']:+.{digits}f} [{scale * r['low']:+.{digits}f}, {scale * r['high']:+.{digits}f}]"
    paired = [[r["players"], f"{r['versus']} − gen1", cell(r),
               cell(next(v for v in diffs if v["players"] == r["players"] and v["versus"] == r["versus"]
                         and v["measure"] == "value"))]
              for r in diffs if r["measure"] == "agreement"]
    lines = ["# Generation 3 of the move prior: the improved-policy target, gated offline", "",
             f"Computed at {code} by `python experiments/expert_gen3.py`; the rule and the method are in that "
             "script's docstring. No game was played.", "",
             f"Held-out decisions in a learned phase: {s['held_out_decisions']:,} ({s['games']} games); labelled "
             f"(the favourites differ, the mover moves again after each, no tie): {s['labelled']:,}. Each "
             f"candidate's child searched {s['budget']} iterations in the same {s['worlds']} worlds. The share "
             "of labelled decisions where the favourite is the equal-budget label:", "",
             *table(["players", "held-out", "labelled", "games", *COMPARED], body, right="lrrrrrrr"), "",
             "Paired differences against generation 1 on the labelled decisions (95% intervals, standard errors "
             "clustered by game): agreement with the label in points, and the equal-budget child value of the "
             "favourite (the mover's mean reward):", "",
             *table(["players", "difference", "agreement, points", "child value"], paired, right="llrr"), "",
             "By phase, pooled over the counts (not gated): gen3 − gen1, agreement in points:", "",
             *table(["phase", "labelled", "gen3 − gen1"], [[r["phase"], str(r["decisions"]), cell(
                 {**r, "measure": "agreement"})] for r in phases], right="lrr"), "",
             "By the rule: " + ("**generation 3 goes on to a played cell**." if s["gen3_to_a_played_cell"] else
                                "**generation 3 does not go on**: generation 1 stays the prior."), ""]
    atomic_write_text(out / "report.md", "\n".join(lines))
    refresh(out)


PARTS = {"fit": part_fit, "labels": part_labels, "report": part_report}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--part", choices=list(PARTS), action="append")
    ap.add_argument("--budget", type=int, default=3000, help="iterations of each candidate's child search")
    ap.add_argument("--worlds", type=int, default=3, help="determinizations each candidate is searched in")
    ap.add_argument("--limit-minutes", type=float, default=None, help="labels: stop after the game in progress "
                    "once this many minutes have passed (the same command resumes)")
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument("--allow-dirty", action="store_true")
    args = ap.parse_args(argv)
    code = committed_code_or_exit(ROOT, args.allow_dirty)
    os.chdir(ROOT)     # the teacher specs name weights files relative to the repository's root
    for part in args.part or list(PARTS):
        PARTS[part](args, code)
    return 0


if __name__ == "__main__":
    sys.exit(main())
