"""Does a small network value rank sibling moves better than the linear evaluation? Offline, on the teacher data's
held-out decisions: the value network (thurn_ai/learned/net.py; fitted by thurn_ai/studies/expert/value_net.py)
against the linear evaluations -- the shipped one, the 12-feature sibling refit (results/expert/value_rank.json)
and the route-tiles refit (results/value_route_tiles/value_route_tiles.json, the network's start).

    python experiments/value_net.py                    # writes results/value_net/
    python experiments/value_net.py --limit-games 20 --maxiter 60 --penalties 0.1
                        # a smaller fit: one penalty, no cross-validation (every held-out game still measured)
    python experiments/value_net.py --start src/thurn_ai/learned/value_net.json
                        # the shipped network until a fit replaces it: the fit's start (no fit)

The rule, fixed before the fit (this file, committed first): the network goes on to a played cell only if the
pooled held-out pairwise accuracy (decisions with at least two moves of 50 teacher visits, 2-4 players pooled)
exceeds the route-tiles refit's with the 95% game-bootstrap interval of the paired difference above 0. The same
data, decisions, ranking loss, outcome term and folds as results/value_route_tiles; only the evaluation differs.
No game is played. The decisions' inputs are kept per player count under results/value_net/.rows/ (not
committed) as they are read, so a stopped run resumes without reading them again.
"""
from __future__ import annotations

import argparse
import json
import pickle
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

from thurn_ai.fileio import atomic_to_csv, atomic_write_bytes, atomic_write_text
from thurn_ai.learned.model import default_model, model_from
from thurn_ai.studies.expert import value_net as N
from thurn_ai.studies.expert import value_rank as V
from thurn_ai.studies.markdown import table
from thurn_ai.studies.pages import refresh
from thurn_ai.studies.provenance import committed_code_or_exit, log_run

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "results" / "expert"
FOLDERS = ("data", "gen2/data")             # as experiments/value_route_tiles.py
TWELVE = DATA / "value_rank.json"
THIRTEEN = ROOT / "results" / "value_route_tiles" / "value_route_tiles.json"
OUT = ROOT / "results" / "value_net"
PLAYERS = (2, 3, 4)
COMMAND = "python experiments/value_net.py"
BASELINE = "route tiles"                    # the evaluation the network is compared with (its start)


def rows_for(out: Path, players: int, limit_games) -> list[dict]:
    """The decisions' inputs of one player count, read once and kept in out/.rows/ (a run resumes from it);
    limit_games: of each folder's training games the first this many (every held-out game kept), as
    value_rank.load_rows limits them."""
    cache = out / ".rows" / f"p{players}-all.pickle"
    if cache.exists():
        rows = pickle.loads(cache.read_bytes())
    else:
        rows = N.net_rows([DATA / f for f in FOLDERS], players)
        cache.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_bytes(cache, pickle.dumps(rows))
    if limit_games is None:
        return rows
    keep = set()
    for k in range(len(FOLDERS)):
        games = np.unique([r["game"] for r in rows if r["game"] // V.F.GAME_OFFSET == k])
        keep |= set(games[V.T.held_out(games)]) | set(games[~V.T.held_out(games)][:limit_games])
    return [r for r in rows if r["game"] in keep]


def pooled(frames: list, base: list | None = None) -> tuple[float, float, float]:
    """Pooled pairwise accuracy over the counts' held-out decisions (base given: the paired difference to it),
    with the 95% game bootstrap (games kept apart by count)."""
    def cat(fs):
        return pd.concat([f.assign(game=f["game"] + 10**7 * k) for k, f in enumerate(fs)], ignore_index=True)
    b = cat(frames)
    a = cat(base) if base is not None else b.assign(pairs_right=0.0)
    return V.paired_interval(a, b, "pairwise")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument("--limit-games", type=int, default=None, help="training games per folder and count")
    ap.add_argument("--hidden", type=int, default=N.HIDDEN)
    ap.add_argument("--maxiter", type=int, default=N.MAXITER, help="L-BFGS-B iterations a fit")
    ap.add_argument("--penalties", type=float, nargs="+", default=list(N.PENALTIES),
                    help="L2 penalties tried (by cross-validation; one: taken as given)")
    ap.add_argument("--start", type=Path, help="only write the fit's start (the route-tiles refit as a network, "
                    "its hidden layer silent) to this file, and stop")
    ap.add_argument("--allow-dirty", action="store_true")
    args = ap.parse_args(argv)
    code = committed_code_or_exit(ROOT, args.allow_dirty)
    if args.start:
        N.start_net(model_from(THIRTEEN), N.board_cities(), args.hidden, PLAYERS, meta={
            "code": code, "what": "the fit's start: results/value_route_tiles/value_route_tiles.json exactly, "
            "its hidden layer silent (output weights 0); refit: python experiments/value_net.py"}).save(args.start)
        return 0
    start = time.process_time()
    cities = N.board_cities()
    train, held, held_lin = {}, {}, {}
    for n in PLAYERS:
        rows = rows_for(args.out, n, args.limit_games)
        lin, net = N.siblings(n, rows, cities)
        out_games = V.T.held_out(net.game)
        train[n], held[n], held_lin[n] = net.take(~out_games), net.take(out_games), lin.take(out_games)
        print(f"{n} players: {len(train[n])} training, {len(held[n])} held-out decisions", flush=True)
    meta = {"data": [f"results/expert/{f}" for f in FOLDERS], "code": code, "method":
            "thurn_ai/studies/expert/value_net.py", "start": "results/value_route_tiles/value_route_tiles.json",
            "hidden": args.hidden, "limit_games": args.limit_games, "maxiter": args.maxiter,
            "penalties": args.penalties}
    net, cv = N.fit_net(train, model_from(THIRTEEN), cities, penalties=args.penalties, hidden=args.hidden,
                        maxiter=args.maxiter, meta=meta)
    args.out.mkdir(parents=True, exist_ok=True)
    net.save(args.out / "value_net.json")
    atomic_to_csv(pd.DataFrame(cv), args.out / "cv.csv", index=False)
    linear = {BASELINE: model_from(THIRTEEN), "shipped": default_model(), "12 features": model_from(TWELVE)}
    tables, frames = [], {name: [] for name in [*linear, "network"]}
    for n in PLAYERS:
        own = {"network": N.per_decision(net.layers[n], held[n])}
        tables.append(V.compare(linear, held_lin[n], own))
        for name, m in linear.items():
            frames[name].append(V.per_decision(m, held_lin[n]))
        frames["network"].append(own["network"])
    atomic_to_csv(pd.concat(tables, ignore_index=True), args.out / "held_out.csv", index=False)
    result = {"code": code, "decisions": sum(len(held[n]) for n in PLAYERS), "limit_games": args.limit_games,
              "training_decisions": {n: len(train[n]) for n in PLAYERS}, "hidden": args.hidden,
              "maxiter": args.maxiter, "penalties": args.penalties,
              "command": " ".join([COMMAND, *(a for a in (sys.argv[1:] if argv is None else argv)
                                              if a != "--allow-dirty")]),
              "pooled": {name: pooled(f) for name, f in frames.items()},
              "network_minus_route_tiles": pooled(frames["network"], frames[BASELINE])}
    diff, lo, hi = result["network_minus_route_tiles"]
    result["carried_on"] = lo > 0
    atomic_write_text(args.out / "summary.json", json.dumps(result, indent=1) + "\n")
    write_report(args.out, result, tables)
    print(f"pooled pairwise, network - route tiles: {diff:+.4f} [{lo:+.4f}, {hi:+.4f}] -> "
          f"{'to a played cell' if result['carried_on'] else 'not carried on'}")
    log_run(args.out, "value net", time.process_time() - start, code, cpu_seconds=True,
            limit_games=args.limit_games, hidden=args.hidden, maxiter=args.maxiter, penalties=args.penalties)
    return 0


def write_report(out: Path, result: dict, tables: list) -> None:
    """report.md; the front page and findings.json are read off summary.json and held_out.csv (studies/pages.py)."""
    body = [[str(int(r.players)), r.model, f"{int(r.decisions)}", f"{r.pairwise:.3f}", f"{r.spearman:.3f}",
             f"{r.top1_value:.3f}", f"{r.outcome_log_loss:.3f}"] for t in tables for r in t.itertuples()]
    pooled_rows = [[name, f"{v:.3f}", f"[{lo:.3f}, {hi:.3f}]"] for name, (v, lo, hi) in result["pooled"].items()]
    diff, lo, hi = result["network_minus_route_tiles"]
    limit = result["limit_games"]
    lines = ["# A network value in the search (offline gate)", "",
             f"Computed at {result['code']} by `{result['command']}`; the rule and the method are in that "
             "script's docstring" + (f" (a smaller fit: at most {limit} training games per folder and count; "
                                     "every held-out game measured)." if limit else "."),
             f"Training decisions {result['training_decisions']}; {result['hidden']} hidden units; penalties "
             f"tried {result['penalties']}; at most {result['maxiter']} L-BFGS-B iterations a fit.", "",
             "Held-out decisions with at least two moves of 50 teacher visits; pairwise = the share of the "
             "teacher's sibling pairs the evaluation orders as the teacher valued them (chance 0.5; two "
             "independent searches agree on 0.79-0.87, docs/expert.md).", "",
             *table(["players", "evaluation", "decisions", "pairwise", "Spearman", "top-1 (value)",
                     "winner log loss"], body, right="llrrrrr"), "",
             "Pooled over 2-4 players (95% game bootstrap):", "",
             *table(["evaluation", "pairwise", "interval"], pooled_rows, right="lrr"), "",
             f"Network minus route tiles, paired by decision ({result['decisions']:,} decisions): "
             f"{100 * diff:+.1f} pp [{100 * lo:+.1f}, {100 * hi:+.1f}]: "
             + ("**carried on to a played cell**." if result["carried_on"]
                else "**not carried on** (the rule needs the interval above 0)."), ""]
    atomic_write_text(out / "report.md", "\n".join(lines))
    refresh(out)


if __name__ == "__main__":
    sys.exit(main())
