"""How long a game review takes, and how reliable its labels are (docs/review.md; results/review/).

    nice -n 10 python experiments/review.py [--out results/review] [--games 2] [--jobs 2]

Speed: one game each at 2, 3 and 4 players (the heuristic bot in every seat; a decision whose played move is
not the search's best costs two more searches) reviewed for every seat at the default budget
(thurn_ai.play.review.DEFAULT_BUDGET) with --jobs worker processes, no cache: the wall-clock seconds on this
(shared, loaded) machine, the CPU seconds spent, and the CPU seconds over two: the time on two free cores.

Reliability: on held-out games (seeds no test or example uses; at 2, 3 and 4 players: the `heuristic` bot
against the default search with 300 iterations), every decision labelled at the default budget is
reviewed again by a deeper review (DEEP times the budget, other seeds). A label is confirmed when the deeper
review's loss of win chance reaches that label's threshold; the share confirmed is given per label, with a
95% Wilson interval. Writes speed.csv, reliability.csv and README.md into --out, each atomically.
"""
from __future__ import annotations

import argparse
import resource
import time
from pathlib import Path

import pandas as pd

from thurn_ai.bots import make_bot
from thurn_ai.fileio import atomic_to_csv
from thurn_ai.game.rules import Rules
from thurn_ai.play.analysis import DEFAULT_SPEC, bot_spec
from thurn_ai.play.match import derive_seed, play_game
from thurn_ai.play.review import DEFAULT_BUDGET, THRESHOLDS, decisions_of, review, review_decision
from thurn_ai.stats.summary import wilson_interval
from thurn_ai.studies.markdown import table
from thurn_ai.studies.provenance import write_results_readme

ROOT = Path(__file__).resolve().parent.parent
DEEP = 4                       # the deeper review's budget, in default budgets
PLAYERS = (2, 3, 4)


def game(players: int, kind: str, k: int):
    """A held-out game: `kind` 'speed' (heuristic bots) or 'held-out' (heuristic and the default search)."""
    seed = derive_seed("review-experiment", kind, players, k)
    specs = ["heuristic"] * players if kind == "speed" else \
        ["heuristic" if s % 2 == 0 else "mcts(iterations=300)" for s in range(players)]
    return play_game(Rules(players=players), [make_bot(s, derive_seed("bot", seed, i)) for i, s in enumerate(specs)],
                     seed)


def _cpu() -> float:
    """CPU seconds of this process and of its finished children (the review's worker processes)."""
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def measure_speed(jobs: int) -> pd.DataFrame:
    rows = []
    for players in PLAYERS:
        rec = game(players, "speed", 0)
        start, cpu = time.perf_counter(), _cpu()
        r = review(rec, budget=DEFAULT_BUDGET, jobs=jobs)
        seconds, cpu = time.perf_counter() - start, _cpu() - cpu
        rows.append({"players": players, "moves": len(rec.moves), "decisions": len(r.decisions),
                     "re_searched": sum(d.rated_by == "re-search" for d in r.decisions), "budget": DEFAULT_BUDGET,
                     "jobs": jobs, "seconds": round(seconds, 1), "cpu_seconds": round(cpu, 1),
                     "seconds_on_2_free_cores": round(max(cpu / 2, cpu / max(jobs, 1)), 1)})
        print(rows[-1], flush=True)
    return pd.DataFrame(rows)


def measure_reliability(games: int, jobs: int) -> pd.DataFrame:
    rows = []
    for players in PLAYERS:
        for k in range(games):
            rec = game(players, "held-out", k)
            r = review(rec, budget=DEFAULT_BUDGET, jobs=jobs)
            states = {d.index: d for d in decisions_of(rec, moves={x.index for x in r.labelled})}
            spec = bot_spec(DEFAULT_SPEC, DEFAULT_BUDGET * DEEP, None, players)
            for x in r.labelled:
                d = states[x.index]
                deep = review_decision(d.state, d.seat, d.move, d.index, spec, 1 + k, DEFAULT_BUDGET * DEEP)
                rows.append({"players": players, "game": k, "seat": x.seat, "bot": rec.bots[x.seat], "move": x.index,
                             "label": x.label, "loss_win": x.loss_win, "deep_loss_win": deep.loss_win,
                             "deep_label": deep.label,
                             "confirmed": (deep.loss_win or 0.0) >= THRESHOLDS[x.label]})
            print(players, k, len(r.decisions), "decisions,", len(r.labelled), "labelled", flush=True)
    return pd.DataFrame(rows)


def summary_lines(speed: pd.DataFrame, rel: pd.DataFrame, games: int) -> list[str]:
    out = ["## Time for a review (every seat, default budget, no cache)", ""]
    out += table(["players", "moves", "decisions", "re-searched", "iterations a search", "jobs",
                  "wall seconds (shared machine)", "CPU seconds", "seconds on 2 free cores"],
                 ([r.players, r.moves, r.decisions, r.re_searched, r.budget, r.jobs, r.seconds, r.cpu_seconds,
                   r.seconds_on_2_free_cores] for r in speed.itertuples()))
    out += ["", f"## Reliability of the labels ({games} held-out game(s) at each of 2, 3, 4 players; deeper review at "
            f"{DEEP} times the budget)", ""]
    out += table(["label", "labelled", "confirmed", "share [95% CI]", "deeper review's mean loss"],
                 (_reliability_row(label, rel[rel["label"] == label] if len(rel) else rel) for label in THRESHOLDS))
    out += ["", "A label is confirmed when the deeper review's loss of win chance reaches the label's threshold "
            f"({', '.join(f'{k} {100 * v:.0f}' for k, v in THRESHOLDS.items())} points).", ""]
    return out


def _reliability_row(label: str, part: pd.DataFrame) -> list:
    """One label's row: how many were labelled and confirmed, the share with its Wilson interval, the mean loss."""
    n, k = len(part), int(part["confirmed"].sum()) if len(part) else 0
    if not n:
        return [label, 0, "-", "-", "-"]
    lo, hi = wilson_interval(k, n)
    loss = 100 * part["deep_loss_win"].fillna(0).mean()
    return [label, n, k, f"{k / n:.0%} [{lo:.0%}, {hi:.0%}]", f"{loss:.1f} points"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=str(ROOT / "results/review"))
    ap.add_argument("--games", type=int, default=2, help="held-out games at each player count")
    ap.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    speed = measure_speed(args.jobs)
    atomic_to_csv(speed, out / "speed.csv", index=False)
    rel = measure_reliability(args.games, args.jobs)
    atomic_to_csv(rel, out / "reliability.csv", index=False)
    write_results_readme(out, "Game review: time and the labels' reliability",
                         f"nice -n 10 python experiments/review.py --games {args.games} --jobs {args.jobs}",
                         summary_lines(speed, rel, args.games), setup=f"{args.jobs} worker processes, niced, "
                         "on a machine shared with other runs")


if __name__ == "__main__":
    main()
