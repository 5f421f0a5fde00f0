"""A value that ranks siblings: the learned evaluation refitted to the teacher's per-move values, measured
offline on held-out decisions. Writes results/expert/value_rank.json (weights, the value_model.json format),
value_rank.csv (held-out table), value_rank_cv.csv (cross-validation).

    python experiments/expert_value.py                    # fit on generations 1 and 2's training games
    python experiments/expert_value.py --limit-games 30   # a subsample (the first 30 training games a folder)

The method is thurn_ai/studies/expert/value_rank.py. Results must come from committed code: the script refuses
uncommitted changes to the package, the core, the experiments or the build files, unless --allow-dirty, which
the outputs then say. No game is played: one 30-iteration search checks that mcts loads the weights.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import pandas as pd

from thurn_ai.bots import make_bot
from thurn_ai.bots.base import Observation
from thurn_ai.fileio import atomic_to_csv
from thurn_ai.game.rules import PLAYER_COUNTS
from thurn_ai.game.state import new_game
from thurn_ai.learned.model import default_model, model_from
from thurn_ai.studies.expert import value_rank as V
from thurn_ai.studies.provenance import committed_code_or_exit, log_run

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "results" / "expert"
FOLDERS = ("data", "gen2/data")          # generations 1 and 2's teacher data (both searched with the shipped value)
THRESHOLDS = (30, V.MIN_VISITS, 100)     # the held-out table at other visit thresholds too (the fit uses MIN_VISITS)
WEIGHTS = "value_rank.json"
SPEC = "mcts(iterations=30,eval=learned,model=results/expert/value_rank.json)"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--players", type=lambda s: [int(x) for x in s.split(",")], default=list(PLAYER_COUNTS))
    ap.add_argument("--limit-games", type=int, default=None, help="training games per folder and count")
    ap.add_argument("--draws", type=int, default=V.DETERMINIZATIONS)
    ap.add_argument("--outcome", type=float, nargs="+", default=[V.OUTCOME, 0.1],
                    help="weights of the outcome log loss: the first one's fit is value_rank.json, the others "
                         "value_rank_outcome<w>.json (a sensitivity)")
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument("--allow-dirty", action="store_true")
    args = ap.parse_args(argv)
    if args.limit_games is not None and args.limit_games < 1 or args.draws < 1 or min(args.outcome) < 0:
        print("error: --limit-games and --draws must be at least 1, --outcome at least 0", file=sys.stderr)
        return 2
    code = committed_code_or_exit(ROOT, args.allow_dirty)
    start = time.process_time()
    base = default_model()
    train, held, rows_by = {}, {}, {}
    for n in args.players:
        rows_by[n] = V.load_rows([args.out / f for f in FOLDERS], n, min(THRESHOLDS), args.draws, args.limit_games)
        train[n], held[n] = V.split(n, rows_by[n], V.MIN_VISITS)
        print(f"{n} players: {len(train[n])} training, {len(held[n])} held-out decisions "
              f"({time.process_time() - start:.0f} CPU s)", flush=True)
    models, cvs = {"shipped": base}, []
    for k, weight in enumerate(args.outcome):
        meta = {"data": [f"results/expert/{f}" for f in FOLDERS], "code": code,
                "base": "src/thurn_ai/learned/value_model.json", "min_visits": V.MIN_VISITS, "q_temp": V.Q_TEMP,
                "draws": args.draws, "outcome": weight, "limit_games": args.limit_games,
                "method": "thurn_ai/studies/expert/value_rank.py",
                "decisions": {f"{n}p": len(train[n]) for n in args.players}}
        model, cv = V.fit_ranking(train, base, outcome=weight, meta=meta)
        model.meta["penalty"] = {f"{int(r.players)}p": float(r.penalty) for r in cv[cv["chosen"]].itertuples()}
        path = args.out / (WEIGHTS if k == 0 else f"value_rank_outcome{weight:g}.json")
        model.save(path)
        cv.insert(1, "outcome", weight)
        cvs.append(cv)
        models[path.stem] = model_from(path)        # through the loader mcts uses
        print(f"fitted {path.name} ({time.process_time() - start:.0f} CPU s)", flush=True)
    atomic_to_csv(pd.concat(cvs, ignore_index=True), args.out / "value_rank_cv.csv", index=False)
    tables = []
    for threshold in THRESHOLDS:
        for n in args.players:
            d = held[n] if threshold == V.MIN_VISITS else V.split(n, rows_by[n], threshold)[1]
            t = V.compare(models, d)
            t.insert(1, "min_visits", threshold)
            tables.append(t)
    table = pd.concat(tables, ignore_index=True)
    atomic_to_csv(table, args.out / "value_rank.csv", index=False)
    show = ["players", "min_visits", "model", "decisions", "games", *V.METRICS]
    print(table[show].to_string(index=False, float_format=lambda x: f"{x:.3f}"))
    # mcts loads the weights and searches with them (no game is played)
    for n in args.players:
        state = new_game(players=n, seed=n)
        result = make_bot(SPEC, 1).search(Observation(state, state.current_player, 1))
        print(f"{SPEC} at {n} players: {result.iterations} iterations, plays {state.move_str(result.best.move)}")
    log_run(args.out, "value rank", time.process_time() - start, code, cpu_seconds=True, draws=args.draws,
            outcome=args.outcome, limit_games=args.limit_games, players=list(args.players))
    return 0


if __name__ == "__main__":
    sys.exit(main())
