"""The learned evaluation in play: mcts with it against the rule-based `heuristic` bot, and against mcts with
the hand-set evaluation. Reproduces results/learned/strength/.

    python experiments/learned_strength.py                    # every cell, in the order below (resumes)
    python experiments/learned_strength.py --only L_p3_it1000 H_p3_it1000
    python experiments/learned_strength.py --summarize        # the README from the games saved so far

Cells summary.csv already holds in full are skipped (their game records are not committed, so a fresh
clone would otherwise play them again); --replay-complete plays them anyway.

Cells, fixed before any was run (game counts included): one seat plays the cell's `mcts`, every other seat
`heuristic` (L_*: eval=learned; H_*: the hand-set evaluation, today's default, on the same seeds and deals
as L_* -- paired), or, in h2h_*, mcts with the learned evaluation in one seat against mcts with the
hand-set one in every other seat at 0.1 s a decision. Seats rotated by the tournament, seed 2027 (a seed
the project's earlier strength runs never used), 95% Wilson intervals, not corrected for the number of
cells. Uses the strength study's cell runner and summary (thurn_ai.studies.strength).
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from thurn_ai.studies.markdown import num, pp, table
from thurn_ai.studies.provenance import write_results_readme
from thurn_ai.studies.strength import FIELDS, pct, read_summary, run_cell, summarize_saved, write_summary

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "results" / "learned" / "strength"
SEED = 2027
LEARNED = "eval=learned"
GEN2_MODEL = "results/learned/gen2/value_model.json"   # relative to the checkout: main() runs from there

# (cell, players, spec, games, board, other seats)
CELLS = [
    *[c for p, g in ((2, 200), (3, 201), (4, 200))
      for c in ((f"L_p{p}_it1000", p, f"mcts(iterations=1000,{LEARNED})", g, "south", "heuristic"),
                (f"H_p{p}_it1000", p, "mcts(iterations=1000,eval=simple)", g, "south", "heuristic"))],
    *[(f"L_p{p}_it3000", p, f"mcts(iterations=3000,{LEARNED})", g, "south", "heuristic")
      for p, g in ((2, 200), (3, 201), (4, 200))],
    ("h2h_p2_t0.1", 2, f"mcts(time=0.1,{LEARNED})", 200, "south", "mcts(time=0.1,eval=simple)"),
    *[(f"L_north_p{p}_it1000", p, f"mcts(iterations=1000,{LEARNED})", g, "north", "heuristic")
      for p, g in ((2, 200), (3, 201), (4, 200))],
    *[(f"L_p{p}_it{n}", p, f"mcts(iterations={n},{LEARNED})", g, "south", "heuristic")
      for n in (100, 300) for p, g in ((2, 200), (3, 201), (4, 200))],
    # the top of the budget curve, added before any was played; 2 players first (where the hand-set
    # evaluation's curve fell at 10,000), then 4 and 3
    *[(f"L_p{p}_it10000", p, f"mcts(iterations=10000,{LEARNED})", g, "south", "heuristic")
      for p, g in ((2, 200), (4, 200), (3, 201))],
    # generation 2 of the model (experiments/learned_generation.py), on the L_*_it1000 cells' deals (paired);
    # added before any was played
    *[(f"G2_p{p}_it1000", p, f"mcts(iterations=1000,{LEARNED},model={GEN2_MODEL})", g, "south", "heuristic")
      for p, g in ((2, 200), (3, 201), (4, 200))],
]


def rules_for(board: str) -> dict:
    return {"board": board, "variant": "horses"} if board == "north" else {"board": board}


def write_readme(out: Path, rows: dict, argv: list[str]) -> None:
    lines = [
        __doc__.split("\n\n", 2)[2].strip(),
        "",
    ]
    order = [c[0] for c in CELLS]
    against = {c[0]: c[5] for c in CELLS}
    lines += table(["cell", "board", "players", "bot", "against", "games", "wins", "win rate [95% CI]", "fair",
                    "score", "others' scores", "outscored", "turns"],
                   ([name, r["board"], r["players"], f"`{r['mcts']}`", f"`{against.get(name, '?')}`", r["games"],
                     r["wins"], f"{pct(r['win_rate'])} [{pct(r['ci_low'])}, {pct(r['ci_high'])}]", pct(r["fair"]),
                     f"{r['mcts_score']} ± {r['mcts_score_ci']}", r["heuristic_scores"], r["outscored"],
                     r["mean_turns"]]
                    for name, r in ((n, rows[n]) for n in sorted(rows, key=lambda n: order.index(n)
                                                                    if n in order else len(order)))),
                   right="llrllrrlrlllr")
    lines += paired_lines(out)
    missing = [c[0] for c in CELLS if c[0] not in rows]
    if missing:
        lines += ["", "Not run yet: " + ", ".join(missing) + " (run the script again to add them)."]
    lines.append("")
    write_results_readme(out, "The learned evaluation in play",
                         "python experiments/learned_strength.py" + (" " + " ".join(argv) if argv else ""), lines)


def paired(out: Path, learned: str, handset: str) -> dict | None:
    """The paired difference L - H of the searching seat's win share and score over the games both cells
    played (same seed: the same deals and seats), with 95% normal intervals of the per-game differences."""
    import numpy as np
    import pandas as pd

    frames = []
    for cell in (learned, handset):
        path = out / "runs" / cell / "results.csv"
        if not path.exists():
            return None
        df = pd.read_csv(path)
        frames.append(df[df["spec"].str.startswith("mcts")].set_index("game")[["win_share", "score", "game_seed"]])
    a = frames[0].merge(frames[1], left_index=True, right_index=True, suffixes=("_l", "_h"))
    if not (a["game_seed_l"] == a["game_seed_h"]).all():
        raise SystemExit(f"error: {learned} and {handset} are not paired (their games' seeds differ)")
    out_row = {"games": len(a)}
    for key in ("win_share", "score"):
        d = (a[f"{key}_l"] - a[f"{key}_h"]).to_numpy(float)
        half = 1.96 * d.std(ddof=1) / np.sqrt(len(d)) if len(d) > 1 else float("nan")
        out_row[key] = (float(d.mean()), float(d.mean() - half), float(d.mean() + half))
    return out_row


def pooled(cells: list[tuple[float, float, float]]) -> dict:
    """Inverse-variance (fixed-effect) pooling of independent estimates, each (mean, low, high) with a 95%
    normal interval: the pooled mean and its 95% interval, and Cochran's Q p-value of 'one common effect'
    (small: the cells disagree beyond chance, and the pooled mean hides it)."""
    import numpy as np
    from scipy.stats import chi2
    m = np.array([c[0] for c in cells], float)
    se = np.array([(c[2] - c[1]) / (2 * 1.96) for c in cells], float)
    w = 1 / se ** 2
    mean = float((w * m).sum() / w.sum())
    half = 1.96 / np.sqrt(w.sum())
    q = float((w * (m - mean) ** 2).sum())
    return {"mean": mean, "low": mean - float(half), "high": mean + float(half), "cells": len(cells),
            "q_p": float(chi2.sf(q, len(cells) - 1)) if len(cells) > 1 else float("nan"),
            "se": float(1 / np.sqrt(w.sum()))}


def detectable(se: float, power: float = 0.8, alpha: float = 0.05) -> float:
    """The smallest mean difference an estimate with this standard error detects with `power` in a
    two-sided `alpha` test (statsmodels NormalIndPower with one unit of 'sample': effect = (z + z) se)."""
    from statsmodels.stats.power import NormalIndPower
    return float(NormalIndPower().solve_power(effect_size=None, nobs1=1, alpha=alpha, power=power, ratio=0) * se)


def paired_lines(out: Path) -> list[str]:
    lines = []
    for a, b, what in (("L", "H", "the learned evaluation against the hand-set one"),
                       ("G2", "L", "generation 2 of the model against generation 1")):
        rows = [(p, r) for p in (2, 3, 4) if (r := paired(out, f"{a}_p{p}_it1000", f"{b}_p{p}_it1000"))]
        if not rows:
            continue
        lines += ["", f"Paired ({a} - {b} at 1000 iterations, {what}; the same games: deals and seats), "
                  "the searching seat's win share and score, mean difference [95% normal interval over "
                  "games, not corrected for the number of comparisons]; *detectable*: the smallest win-share "
                  "difference the cell detects with 80% power, two-sided 5% (statsmodels):", "",
                  *table(["players", "games", f"win share {a} - {b}", "detectable", f"score {a} - {b}"],
                         ([p, r["games"], pp(*r["win_share"]),
                           f"{100 * detectable((r['win_share'][2] - r['win_share'][1]) / (2 * 1.96)):.1f} pp",
                           num(*r["score"])] for p, r in rows), right="rrlrl")]
        if len(rows) > 1:
            pw = pooled([r["win_share"] for _, r in rows])
            ps = pooled([r["score"] for _, r in rows])
            lines.append(f"| pooled | {sum(r['games'] for _, r in rows)} | **{100 * pw['mean']:+.1f} pp "
                         f"[{100 * pw['low']:+.1f}, {100 * pw['high']:+.1f}]** | {100 * detectable(pw['se']):.1f} pp | "
                         f"{ps['mean']:+.2f} [{ps['low']:+.2f}, {ps['high']:+.2f}] |")
            lines += ["", f"Pooled: the {len(rows)} cells are independent games (one per player count), pooled by "
                      "inverse variance (fixed effect); Cochran's Q p-value of one common difference: "
                      f"{pw['q_p']:.2f} (win share). "
                      + ("The pooled interval excludes zero." if pw["low"] > 0 or pw["high"] < 0 else
                         "The pooled interval does not exclude zero: no difference is detected, which is not "
                         "evidence of none -- an effect of a few points is inside it.")]
    return lines


def complete(row: dict | None, games: int) -> bool:
    """Whether summary.csv already holds all of a cell's games."""
    return row is not None and int(float(row.get("games") or 0)) >= games


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--only", nargs="*", default=None, help="cell names to run")
    ap.add_argument("--summarize", action="store_true", help="play nothing: summarize the saved games")
    ap.add_argument("--replay-complete", action="store_true",
                    help="play again the cells summary.csv already has in full")
    args = ap.parse_args(argv)
    args.out = args.out.resolve()
    os.chdir(ROOT)                      # the cells name files of the checkout (GEN2_MODEL) by relative paths
    args.out.mkdir(parents=True, exist_ok=True)
    summary_path = args.out / "summary.csv"
    rows = read_summary(summary_path, "cell")
    for cell, players, spec, games, board, others in CELLS:
        if args.only and cell not in args.only:
            continue
        if args.summarize:
            r = summarize_saved(cell, players, spec, board, args.out, rows.get(cell))
            if r is None:
                continue
        elif complete(rows.get(cell), games) and not args.replay_complete:
            continue          # a fresh clone has its summary row but not its ignored game records
        else:
            r = run_cell(cell, players, spec, games, board, args.out, args.jobs, seed=SEED, others=others,
                         rules_kwargs=rules_for(board))
        rows[cell] = r
        print(f"{cell:18s} {spec}: {r['wins']}/{r['games']} = {pct(r['win_rate'])} "
              f"[{pct(r['ci_low'])}, {pct(r['ci_high'])}]  score {r['mcts_score']} vs {r['heuristic_scores']}",
              flush=True)
        write_summary(summary_path, rows, FIELDS, [c[0] for c in CELLS])
        write_readme(args.out, rows, argv)


if __name__ == "__main__":
    main()
