"""Does a route-length-tile feature let the learned evaluation rank sibling moves? Offline, on the teacher data's
held-out decisions: the sibling-ranking refit (thurn_ai/studies/expert/value_rank.py) with the evaluation's
13th feature `route_tiles` against the same refit over the 12 earlier features (results/expert/value_rank.json).

    python experiments/value_route_tiles.py          # writes results/value_route_tiles/

The rule, fixed before the fit (this file, committed first): the feature goes on to a played cell only if the
pooled held-out pairwise accuracy (decisions with at least two moves of 50 teacher visits, 2-4 players pooled)
of the 13-feature refit exceeds the 12-feature refit's with the 95% game-bootstrap interval of the paired
difference above 0. The same data, loss, penalties and cross-validation as results/expert/value_rank.json;
only the feature differs. No game is played.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import pandas as pd

from thurn_ai.fileio import atomic_to_csv, atomic_write_text
from thurn_ai.learned.model import default_model, model_from
from thurn_ai.studies.expert import value_rank as V
from thurn_ai.studies.markdown import table
from thurn_ai.studies.pages import refresh
from thurn_ai.studies.provenance import committed_code_or_exit, log_run

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "results" / "expert"
FOLDERS = ("data", "gen2/data")             # as experiments/expert_value.py
EARLIER = DATA / "value_rank.json"          # the 12-feature refit (read with weight 0 on route_tiles)
OUT = ROOT / "results" / "value_route_tiles"
PLAYERS = (2, 3, 4)
COMMAND = "python experiments/value_route_tiles.py"


def pooled(frames_a: list, frames_b: list, metric: str = "pairwise") -> tuple[float, float, float]:
    """The paired difference b - a over every count's held-out decisions, games kept apart by count."""
    a = pd.concat([f.assign(game=f["game"] + 10**7 * k) for k, f in enumerate(frames_a)], ignore_index=True)
    b = pd.concat([f.assign(game=f["game"] + 10**7 * k) for k, f in enumerate(frames_b)], ignore_index=True)
    return V.paired_interval(a, b, metric)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument("--limit-games", type=int, default=None, help="training games per folder and count (a trial)")
    ap.add_argument("--allow-dirty", action="store_true")
    args = ap.parse_args(argv)
    code = committed_code_or_exit(ROOT, args.allow_dirty)
    start = time.process_time()
    train, held = {}, {}
    for n in PLAYERS:
        rows = V.load_rows([DATA / f for f in FOLDERS], n, V.MIN_VISITS, V.DETERMINIZATIONS, args.limit_games)
        train[n], held[n] = V.split(n, rows, V.MIN_VISITS)
        print(f"{n} players: {len(train[n])} training, {len(held[n])} held-out decisions", flush=True)
    meta = {"data": [f"results/expert/{f}" for f in FOLDERS], "code": code, "method":
            "thurn_ai/studies/expert/value_rank.py", "feature": "route_tiles", "limit_games": args.limit_games}
    model, cv = V.fit_ranking(train, default_model(), meta=meta)
    args.out.mkdir(parents=True, exist_ok=True)
    model.save(args.out / "value_route_tiles.json")
    atomic_to_csv(cv, args.out / "cv.csv", index=False)
    models = {"12 features": model_from(EARLIER), "13 features": model_from(args.out / "value_route_tiles.json"),
              "shipped": default_model()}
    rows, frames = [], {name: [] for name in models}
    for n in PLAYERS:
        t = V.compare(models, held[n])
        rows.append(t)
        for name, m in models.items():
            frames[name].append(V.per_decision(m, held[n]))
    atomic_to_csv(pd.concat(rows, ignore_index=True), args.out / "held_out.csv", index=False)
    diff, lo, hi = pooled(frames["12 features"], frames["13 features"])
    weights = {n: float(model.win[n][-2:].sum()) for n in PLAYERS}   # the feature's win weight, start + end
    adopted = lo > 0
    write_report(args.out, code, rows, (diff, lo, hi), adopted, sum(len(held[n]) for n in PLAYERS))
    print(f"pooled pairwise, 13 - 12 features: {diff:+.4f} [{lo:+.4f}, {hi:+.4f}] -> "
          f"{'to a played cell' if adopted else 'not carried on'}; route_tiles win weights {weights}")
    log_run(args.out, "value route tiles", time.process_time() - start, code, cpu_seconds=True,
            limit_games=args.limit_games)
    return 0


def write_report(out: Path, code: str, tables: list, pooled_diff, adopted: bool, decisions: int) -> None:
    """summary.json (the pooled difference and the verdict) and report.md; the front page and findings.json
    are read off them (thurn_ai/studies/pages.py)."""
    diff, lo, hi = pooled_diff
    atomic_write_text(out / "summary.json", json.dumps(
        {"code": code, "decisions": decisions, "pooled_pairwise_diff": diff, "low": lo, "high": hi,
         "carried_on": adopted}, indent=1) + "\n")
    body = [[str(int(r.players)), r.model, f"{int(r.decisions)}", f"{r.pairwise:.3f}", f"{r.spearman:.3f}",
             f"{r.top1_value:.3f}", f"{r.outcome_log_loss:.3f}"] for t in tables for r in t.itertuples()]
    lines = ["# A route-length-tile feature in the learned evaluation (offline)", "",
             f"Computed at {code} by `{COMMAND}`; the rule and the method are in that script's docstring.", "",
             "Held-out decisions with at least two moves of 50 teacher visits; pairwise = the share of the "
             "teacher's sibling pairs the evaluation orders as the teacher valued them (chance 0.5).", "",
             *table(["players", "evaluation", "decisions", "pairwise", "Spearman", "top-1 (value)",
                     "winner log loss"], body, right="llrrrrr"), "",
             f"Pooled pairwise accuracy, 13 minus 12 features, paired by decision with a game bootstrap "
             f"({decisions:,} decisions): {100 * diff:+.1f} pp [{100 * lo:+.1f}, {100 * hi:+.1f}]: "
             + ("**carried on to a played cell**." if adopted
                else "**not carried on** (the rule needs the interval above 0)."), ""]
    atomic_write_text(out / "report.md", "\n".join(lines))
    refresh(out)


if __name__ == "__main__":
    sys.exit(main())
