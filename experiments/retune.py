"""Re-tune the search's exploration constant, its prior's weight and mix against the field with SPSA
(nevergrad's, as chess engines tune with SPSA); reproduces results/retune/.

    python experiments/retune.py --part tune          # the SPSA run (resumes; trials.csv as it goes)
    python experiments/retune.py --part report        # findings.json, README.md

Each evaluation is one 3-player game on a fresh deal (seed FIRST + k): the tuned `mcts` in seat k mod 3, two
bots of the field in the other seats (a pair from OPPONENTS, in turn). SPSA evaluates its two perturbed points
on the same deal and seats (common random numbers). The loss is minus the search's own reward for the game:
half its win (the rules' tie-break), half tanh(margin / 10) with margin its score minus the best other score.
The parameters live in nevergrad's standardized space with the bounds below (c on a log scale); SPSA's gain
`a` and perturbation `c` are set here (nevergrad's defaults, 1e-5 and 0.1, barely move with losses of
order 1). The recommendation (SPSA's running mean of its iterates) is then decided by a sequential test
against anchor-1k (experiments/search_compute.py, declared in results/search_compute/design.md).
Results must come from committed code: the script refuses uncommitted changes unless --allow-dirty.
"""
from __future__ import annotations

import argparse
import math
import time
from pathlib import Path

import numpy as np
import pandas as pd

from thurn_ai.bots import make_bot
from thurn_ai.fileio import atomic_to_csv
from thurn_ai.game.rules import Rules
from thurn_ai.play.match import Table, derive_seed
from thurn_ai.studies.findings import Findings, Number, front_page
from thurn_ai.studies.provenance import committed_code_or_exit, log_run, read_runs

STATUS = ("benchmark. A short SPSA run over three of the search's constants; its recommendation is an option "
          "until a sequential test decides it (results/search_compute/).")

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "results" / "retune"
PLAYERS = 3
FIRST = 71000                 # deals not used by any committed study
BUDGET = 240                  # evaluations (games): 120 SPSA steps
SEED = 6909                   # SPSA's random directions
GAIN, PERTURBATION = 0.4, 0.3  # SPSA's a and c (standardized space)
ITERATIONS = 1000             # the tuned search's budget: anchor-1k's
OPPONENTS = (("anchor-1k", "heuristic"), ("anchor-1k", "racer"), ("heuristic", "racer"))
#: the tuned constants: (name, low, high, default, log scale)
PARAMETERS = (("c", 0.25, 4.0, 1.0, True), ("prior", 0.3, 0.95, 0.8, False), ("mix", 0.0, 1.0, 0.5, False))


def parametrization(ng):
    out = {}
    for name, lo, hi, default, log in PARAMETERS:
        out[name] = (ng.p.Log(init=default, lower=lo, upper=hi) if log
                     else ng.p.Scalar(init=default, lower=lo, upper=hi))
    p = ng.p.Dict(**out)
    p.random_state = np.random.RandomState(SEED)
    return p


def spec_of(values: dict) -> str:
    return "mcts(" + ",".join(f"{k}={values[k]:.3f}" for k, *_ in PARAMETERS) + f",iterations={ITERATIONS})"


def game_loss(spec: str, k: int) -> tuple[float, int, float]:
    """Play evaluation k's game; (loss, win, margin) of the tuned seat."""
    tested = k % PLAYERS
    others = list(OPPONENTS[(k // 2) % len(OPPONENTS)])
    seats = others[:tested] + [spec] + others[tested:]
    seed = FIRST + k // 2              # the two points of one SPSA step share the deal
    bots = [make_bot(s, derive_seed("bot", seed, i)) for i, s in enumerate(seats)]
    table = Table.new(Rules(players=PLAYERS), seed, seats)
    rec = table.play(bots)
    scores = rec.scores
    margin = scores[tested] - max(s for i, s in enumerate(scores) if i != tested)
    win = int(rec.winner == tested)
    return -(0.5 * win + 0.5 * math.tanh(margin / 10)), win, float(margin)


def part_tune(out: Path, code: str, budget: int) -> None:
    import nevergrad as ng
    path = out / "trials.csv"
    done = pd.read_csv(path).to_dict("records") if path.exists() else []
    opt = ng.optimizers.SPSA(parametrization(ng), budget=budget)
    opt.a, opt.c = GAIN, PERTURBATION
    rows = []
    for k in range(budget):
        cand = opt.ask()
        spec = spec_of(cand.value)
        if k < len(done):                      # resume: the same asks, told the recorded losses
            row = done[k]
            assert row["spec"] == spec, "trials.csv was written by another run"
        else:
            loss, win, margin = game_loss(spec, k)
            row = {"k": k, "seed": FIRST + k // 2, "spec": spec, **cand.value, "loss": loss, "win": win,
                   "margin": margin, "code": code}
        opt.tell(cand, row["loss"])
        rows.append(row)
        if k >= len(done):
            atomic_to_csv(pd.DataFrame(rows), path, index=False)
            print(k, spec, round(row["loss"], 3), flush=True)
    rec = opt.provide_recommendation().value
    atomic_to_csv(pd.DataFrame([{**rec, "spec": spec_of(rec), "evaluations": budget}]), out / "recommended.csv",
                  index=False)


def findings(out: Path, code: str) -> Findings:
    trials = pd.read_csv(out / "trials.csv")
    rec = pd.read_csv(out / "recommended.csv").iloc[0]
    n = len(trials)
    numbers = {f"recommended.{name}": Number(float(rec[name]), unit="number", digits=3, games=n,
                                             says=f"SPSA's recommended {name} (default {default})")
               for name, _lo, _hi, default, _log in PARAMETERS}
    half = n // 2
    for part, frame in (("first_half", trials.iloc[:half]), ("second_half", trials.iloc[half:])):
        numbers[f"win.{part}"] = Number(float(frame["win"].mean()), unit="share", digits=1, games=len(frame),
                                        says=f"the tuned seat's win share in the run's {part.replace('_', ' ')}")
    return Findings(status=STATUS, study="retune", title="Re-tuning the search's constants with SPSA (issue 69)",
                    command="python experiments/retune.py", commit=code, numbers=numbers, games={"tune": n},
                    played_at=tuple(sorted({r["code"] for r in read_runs(out)})))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--part", choices=("tune", "report"), required=True)
    ap.add_argument("--budget", type=int, default=BUDGET, help="tune: evaluations (games), even")
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument("--allow-dirty", action="store_true")
    args = ap.parse_args(argv)
    code = committed_code_or_exit(ROOT, args.allow_dirty)
    args.out.mkdir(parents=True, exist_ok=True)
    start = time.time()
    if args.part == "tune":
        part_tune(args.out, code, args.budget)
        log_run(args.out, "tune", time.time() - start, code, budget=args.budget, seed=SEED, first=FIRST)
    else:
        front_page(args.out, findings(args.out, code),
                   ["Every evaluation: trials.csv; the recommendation: recommended.csv. It is decided by a "
                    "sequential test against anchor-1k: results/search_compute/."])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
