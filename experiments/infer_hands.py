"""How much the inferred hands (mcts(infer=policy), issue 69) know of the opponents' hidden cards; reproduces
results/infer/. No strength games: the inference itself is measured.

    python experiments/infer_hands.py [--games 10] [--iterations 200] [--deals 20] [--opponents heuristic mcts]
    python experiments/infer_hands.py --report     # findings.json and README.md from the saved files only

Game g of a cell (player count, opponents) uses seed g; the searcher `mcts(infer=policy,iterations=N)` sits in
seat g mod n, the others are the cell's opponents (`heuristic`, or `mcts` at the same iterations). At each of
the searcher's searched decisions, for each opponent with hidden cards (its hand minus the cards it is known
to hold), two numbers against the deal the search would make with uniform weights (the default, infer=none):

- log-probability per hidden card: for each true hidden card x, log of the chance the weighted urn's first
  draw for that opponent is x (count x weight / sum of count x weight; uniform: count / pool), averaged over
  the hidden cards;
- hit rate: the share of the opponent's true hidden cards that a sampled deal gives it (multiset overlap over
  the number of hidden cards), averaged over `--deals` deals of the searcher's own view.

The bound (known hands) is a hit rate of 1 and a log-probability of 0 per card. Writes summary.json and
decisions.csv into --out, and the folder's front page (findings.json, README.md: thurn_ai.studies.findings);
`--report` rewrites only the front page, from summary.json (checked against decisions.csv; no game is
played). Results must come from committed code: the script refuses uncommitted changes unless --allow-dirty.
"""
from __future__ import annotations

import argparse
import csv
import io
import json
import math
import time
from collections import Counter
from pathlib import Path

from thurn_ai import _search
from thurn_ai.bots import make_bot
from thurn_ai.bots.infer import FLOOR, STRENGTH, HandBeliefs
from thurn_ai.fileio import atomic_write_text
from thurn_ai.game.rules import Rules
from thurn_ai.play.match import Table, derive_seed
from thurn_ai.stats.summary import mean_interval
from thurn_ai.studies.findings import Findings, Number, front_page
from thurn_ai.studies.provenance import commit, committed_code_or_exit

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "results" / "infer"
COMMAND = "nice -n 10 python experiments/infer_hands.py --games 10 --iterations 200 --deals 20"
TITLE = "Inferred hands (`mcts(infer=policy)`): what the search's deals know of the hidden cards"
#: the line the results folder's front page opens with (docs/development.md, a study's life)
STATUS = ("benchmark. How much of the opponents' hidden cards the deals of `mcts(infer=policy)` give them, against "
          "the uniform deal (infer=none), and the CPU the inference costs; no strength games.")


def hidden_of(state, player: int) -> Counter:
    d = state.export()
    return Counter({x: h - k for x, (h, k) in enumerate(zip(d["hand"][player], d["known"][player])) if h > k})


def pool_of(state, observer: int) -> list[int]:
    """The cards of each city hidden from `observer` (the deck and the others' unknown cards)."""
    d = state.export()
    return [d["deck"][x] + sum(d["hand"][p][x] - d["known"][p][x] for p in range(state.n_players) if p != observer)
            for x in range(len(d["deck"]))]


class Measure:
    """The observer of the play loop: at the searcher's decisions, the numbers above per opponent."""

    def __init__(self, seat: int, deals: int, seed: int):
        self.seat = seat
        self.deals = deals
        self.seed = seed
        self.rows: list[dict] = []

    def decided(self, table, decision) -> None:
        if decision.player != self.seat or decision.bot.last_search(decision.observation) is None:
            return
        truth, obs = decision.state, decision.observation
        n = truth.n_players
        weighted = decision.bot.beliefs.weights(obs)
        uniform = [[1.0] * len(row) for row in weighted]
        pool = pool_of(obs.state, self.seat)
        for q in range(n):
            hidden = hidden_of(truth, q)
            h = sum(hidden.values())
            if q == self.seat or h == 0:
                continue
            row = {"players": n, "move": len(table.moves), "opponent": q, "hidden": h}
            for name, w in (("inferred", weighted), ("uniform", uniform)):
                total = sum(c * wx for c, wx in zip(pool, w[q]))
                logp = sum(k * math.log(pool[x] * w[q][x] / total) for x, k in hidden.items()) / h
                row[f"logp_{name}"] = round(logp, 5)
                hits = 0
                for k in range(self.deals):
                    seed = derive_seed(self.seed, len(table.moves), k)
                    dealt = _search.weighted_determinization(obs.state, self.seat, seed, w)
                    hits += sum((hidden_of(dealt, q) & hidden).values())
                row[f"hit_{name}"] = round(hits / (self.deals * h), 5)
            self.rows.append(row)


def timed(bot) -> dict:
    """The searcher's CPU seconds (this thread's) in choose and in inform, counted as it plays."""
    spent = {"choose": 0.0, "inform": 0.0}
    for name in spent:
        method = getattr(bot, name)

        def wrapper(*args, _method=method, _name=name):
            start = time.thread_time()
            try:
                return _method(*args)
            finally:
                spent[_name] += time.thread_time() - start
        setattr(bot, name, wrapper)
    return spent


def play_cell(players: int, opponents: str, games: int, iterations: int, deals: int, strength: float,
              floor: float) -> tuple[list[dict], dict]:
    rows, cpu = [], {"choose": 0.0, "inform": 0.0}
    searcher = f"mcts(infer=policy,iterations={iterations})"
    other = "heuristic" if opponents == "heuristic" else f"mcts(iterations={iterations})"
    for g in range(games):
        seat = g % players
        specs = [searcher if p == seat else other for p in range(players)]
        bots = [make_bot(s, derive_seed("bot", g, p)) for p, s in enumerate(specs)]
        bots[seat].beliefs = HandBeliefs(bots[seat].options.prior, bots[seat].options.temp, strength, floor)
        measure = Measure(seat, deals, derive_seed("deals", players, opponents, g))
        spent = timed(bots[seat])
        Table.new(Rules(players=players), g, specs).play(bots, observer=measure)
        for key in cpu:
            cpu[key] += spent[key]
        for r in measure.rows:
            r.update(game=g, opponents=opponents)
        rows += measure.rows
    return rows, cpu


def value_of(row: dict, key: str) -> float:
    """A row's number; a `*_gain` is its inferred minus its uniform number."""
    if key.endswith("_gain"):
        kind = key.split("_")[0]
        return row[f"{kind}_inferred"] - row[f"{kind}_uniform"]
    return row[key]


def game_of(row: dict) -> tuple:
    """The game a row was measured in (its cell and seed): the unit the intervals are over."""
    return row["players"], row["opponents"], row["game"]


def summary(rows: list[dict]) -> dict:
    """Each number's mean over the rows, and a 95% interval from the per-game means (the decisions of one
    game are not independent)."""
    out = {"decisions_x_opponents": len(rows),
           "hidden_cards_mean": round(sum(r["hidden"] for r in rows) / len(rows), 2)}
    games = sorted({game_of(r) for r in rows})
    for key in ("logp_inferred", "logp_uniform", "hit_inferred", "hit_uniform", "logp_gain", "hit_gain"):
        per_game = [sum(value_of(r, key) for r in rows if game_of(r) == g) / sum(1 for r in rows if game_of(r) == g)
                    for g in games]
        low, high = mean_interval(per_game)
        out[key] = [round(sum(value_of(r, key) for r in rows) / len(rows), 4), round(low, 4), round(high, 4)]
    return out


def body(summary_data: dict) -> list[str]:
    """The front page's own words: what was measured, and the table of the cells (summary.json's)."""
    lines = [f"The searcher `mcts(infer=policy,iterations={summary_data['iterations']})` "
             "in seat g mod n of game g (seed g), the others `heuristic` or `mcts` at the same iterations; at each of "
             "its searched decisions, per opponent holding hidden cards, the inferred deal against the uniform one "
             "(infer=none): the log-probability per true hidden card of the weighted urn's first draw, and the share "
             f"of the true hidden cards a sampled deal gives that opponent ({summary_data['deals']} deals). Beliefs: "
             f"strength {summary_data['strength']}, floor {summary_data['floor']}. The bound, "
             "known hands, is a hit rate of 1 and a log-probability of 0. Mean over the decisions x opponents, "
             "[95% interval over the per-game means]; searcher CPU seconds in choose / in inform over the cell's "
             "games (thread time). Method: experiments/infer_hands.py; rows: decisions.csv; numbers: summary.json; "
             "this page: `python experiments/infer_hands.py --report` (from those files, no game played).",
             "", "| cell | games | rows | hidden cards | log-p uniform | log-p inferred | gain | hit uniform | "
             "hit inferred | gain | CPU choose / inform |", "|---|---:|---:|---:|---:|---:|---|---:|---:|---|---|"]
    for name, c in summary_data["cells"].items():
        def ci(v):
            return f"{v[0]:+.3f} [{v[1]:+.3f}, {v[2]:+.3f}]"
        cpu = c["searcher_cpu_seconds"]
        lines.append(f"| {name} | {c['games']} | {c['decisions_x_opponents']} | {c['hidden_cards_mean']} | "
                     f"{c['logp_uniform'][0]:.3f} | {c['logp_inferred'][0]:.3f} | {ci(c['logp_gain'])} | "
                     f"{c['hit_uniform'][0]:.3f} | {c['hit_inferred'][0]:.3f} | {ci(c['hit_gain'])} | "
                     f"{cpu['choose']:.1f} / {cpu['inform']:.2f} |")
    return lines


def read_rows(path: Path) -> list[dict]:
    """decisions.csv's rows, their numbers as numbers."""
    ints = ("players", "move", "opponent", "hidden", "game")
    with path.open(newline="", encoding="utf-8") as f:
        return [{k: (v if k == "opponents" else int(v) if k in ints else float(v)) for k, v in r.items()}
                for r in csv.DictReader(f)]


def checked(summary_data: dict, rows: list[dict]) -> None:
    """ValueError unless each cell of summary.json is what decisions.csv's rows of that cell give."""
    for name, c in summary_data["cells"].items():
        players, opponents = name.split("_", 1)
        again = summary([r for r in rows if f"p{r['players']}" == players and r["opponents"] == opponents])
        differ = [k for k, v in again.items() if c.get(k) != v]
        if differ:
            raise ValueError(f"summary.json's cell {name} is not decisions.csv's: {', '.join(differ)} differ")


def findings(out: Path, summary_data: dict, code: str) -> Findings:
    """The folder's findings, read off summary.json (checked against decisions.csv): at each cell the hit
    rates of the uniform and the inferred deal and their difference, the log-probability gain; the CPU share
    of the inference over every cell."""
    numbers: dict[str, Number] = {}
    deals = summary_data["deals"]
    for name, c in summary_data["cells"].items():
        players, opponents = name.split("_", 1)
        n, games, where = int(players[1:]), c["games"], f"{players[1:]} players against {opponents}"
        rows_ = f"{c['decisions_x_opponents']:,} decisions x opponents"
        for deal in ("uniform", "inferred"):
            v = c[f"hit_{deal}"]
            numbers[f"p{n}.{opponents}.hit.{deal}"] = Number(
                v[0], v[1], v[2], "number", 3, games,
                f"hit rate of the {deal} deal: share of an opponent's true hidden cards a deal gives it (mean of "
                f"{deals} deals), {where}; {rows_}, 95% interval over the per-game means")
        v = c["hit_gain"]
        numbers[f"p{n}.{opponents}.hit.gain"] = Number(
            v[0], v[1], v[2], "difference", 3, games, f"hit rate, inferred minus uniform deal, {where}; paired")
        v = c["logp_gain"]
        numbers[f"p{n}.{opponents}.logp.gain"] = Number(
            v[0], v[1], v[2], "difference", 2, games,
            f"log-probability (nats) per true hidden card of the urn's first draw, inferred minus uniform, {where}")
    cells = summary_data["cells"].values()
    choose = sum(c["searcher_cpu_seconds"]["choose"] for c in cells)
    inform = sum(c["searcher_cpu_seconds"]["inform"] for c in cells)
    numbers["cpu.inform_share"] = Number(
        inform / (choose + inform), unit="share", digits=1, games=sum(c["games"] for c in cells),
        says=f"share of the searcher's CPU (thread time) spent in inform, the hand inference: {inform:.2f} s of "
             f"{choose + inform:.2f} s (choose + inform) over every cell, at {summary_data['iterations']} iterations")
    return Findings(study=out.name, title=TITLE, command=COMMAND, commit=code, numbers=numbers,
                    games={name: c["games"] for name, c in summary_data["cells"].items()},
                    played_at=(summary_data["code"].split()[0],), status=STATUS)


def write_front_page(out: Path, code: str) -> Path:
    """OUT/findings.json and OUT/README.md from OUT/summary.json, checked against OUT/decisions.csv."""
    data = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    checked(data, read_rows(out / "decisions.csv"))
    return front_page(out, findings(out, data, code), body(data))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--games", type=int, default=10, help="games per cell")
    ap.add_argument("--iterations", type=int, default=200, help="the searches' iterations")
    ap.add_argument("--deals", type=int, default=20, help="deals sampled per decision for the hit rate")
    ap.add_argument("--players", type=int, nargs="+", default=[2, 3, 4])
    ap.add_argument("--opponents", nargs="+", default=["heuristic", "mcts"], choices=["heuristic", "mcts"])
    ap.add_argument("--strength", type=float, default=STRENGTH, help="HandBeliefs' strength (default STRENGTH)")
    ap.add_argument("--floor", type=float, default=FLOOR, help="HandBeliefs' floor (default FLOOR)")
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument("--allow-dirty", action="store_true")
    ap.add_argument("--report", action="store_true",
                    help="only the front page (findings.json, README.md), from summary.json and decisions.csv")
    args = ap.parse_args(argv)
    if args.report:
        print(f"wrote {write_front_page(args.out, commit(ROOT))}")
        return 0
    code = committed_code_or_exit(ROOT, args.allow_dirty)
    cells, all_rows = {}, []
    for opponents in args.opponents:
        for n in args.players:
            rows, cpu = play_cell(n, opponents, args.games, args.iterations, args.deals, args.strength, args.floor)
            cells[f"p{n}_{opponents}"] = {**summary(rows), "games": args.games,
                                          "searcher_cpu_seconds": {k: round(v, 2) for k, v in cpu.items()}}
            all_rows += rows
            print(f"p{n} {opponents}: {cells[f'p{n}_{opponents}']}", flush=True)
    args.out.mkdir(parents=True, exist_ok=True)
    data = {"code": code, "iterations": args.iterations, "deals": args.deals, "strength": args.strength,
            "floor": args.floor, "cells": cells}
    atomic_write_text(args.out / "summary.json", json.dumps(data, indent=1) + "\n")
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=list(all_rows[0]))
    w.writeheader()
    w.writerows(all_rows)
    atomic_write_text(args.out / "decisions.csv", buf.getvalue())
    write_front_page(args.out, code)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
