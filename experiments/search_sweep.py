"""Screening search settings against the heuristic bot: the quick comparisons behind the mcts defaults.

    python experiments/search_sweep.py --players 3 --games 60 "mcts(iterations=1000)" "mcts(iterations=1000,prior=0.8)"
    python experiments/search_sweep.py --players 3 --games 40 --json plan     # the planning policy as a bot

Each spec plays `games` games in seat 0's rotation against `heuristic` in every other seat: game g
(seeds 1000 + g) seats the bots rotated by g mod players, so every bot sits in every seat equally often
over whole rotations. The spec `plan` is the compiled planning policy on its own
(thurn_ai._search.plan_policy_choice), `policy` the one-step rule of thumb of the playouts. Prints each
spec's win rate (the rules' winner) and mean score, and the heuristic seats' mean scores; both cores.

This is a screen, not a measurement: 60 games give a standard error of about 6 percentage points. The
settings it favours are measured properly, with 200+ games and confidence intervals, by
experiments/strength_players.py. docs/bots.md lists the screens that chose the defaults.
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor

from thurn_ai import _search
from thurn_ai.bots import make_bot
from thurn_ai.bots.base import Bot
from thurn_ai.play.match import play_game
from thurn_ai.game.rules import PLAYER_COUNTS, Rules

FIRST_SEED = 1000


class PolicyBot(Bot):
    """A compiled playout policy as a bot: `plan` (the planning policy) or `policy` (one step)."""

    def __init__(self, kind: str, seed: int = 0):
        super().__init__(seed)
        self.kind = kind
        self.spec = kind

    def choose(self, obs):
        if self.kind == "plan":
            return _search.plan_policy_choice(obs.state)
        return _search.policy_choice(obs.state, self.rng.getrandbits(64), 0, 0.0)


def make(spec: str, seed: int):
    return PolicyBot(spec, seed) if spec in ("plan", "policy") else make_bot(spec, seed)


def play_one(args) -> list[tuple[int, bool]]:
    """(score, won) for each bot of `specs` in one game, whatever seat it sat in."""
    specs, players, seed, board = args
    k = seed % players
    seats = [specs[(i + k) % players] for i in range(players)]
    rec = play_game(Rules(players=players, board=board), [make(s, seed * 10 + i) for i, s in enumerate(seats)],
                    seed=seed)
    return [(rec.scores[(i - k) % players], rec.winner == (i - k) % players) for i in range(players)]


def screen(spec: str, players: int, games: int, board: str = "south", jobs: int = 2) -> dict:
    specs = [spec] + ["heuristic"] * (players - 1)
    start = time.time()
    with ProcessPoolExecutor(jobs) as pool:
        res = list(pool.map(play_one, [(specs, players, FIRST_SEED + g, board) for g in range(games)]))
    return {"spec": spec, "players": players, "board": board, "games": len(res),
            "win_rate": round(sum(r[0][1] for r in res) / len(res), 3),
            "score": round(statistics.mean(r[0][0] for r in res), 2),
            "heuristic_scores": [round(statistics.mean(r[i][0] for r in res), 2) for i in range(1, players)],
            "seconds": round(time.time() - start)}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("specs", nargs="+")
    ap.add_argument("--players", type=int, default=3, choices=PLAYER_COUNTS)
    ap.add_argument("--games", type=int, default=60)
    ap.add_argument("--board", default="south")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--json", action="store_true", help="one JSON line per spec")
    args = ap.parse_args(argv)
    for spec in args.specs:
        r = screen(spec, args.players, args.games, args.board, args.jobs)
        if args.json:
            print(json.dumps(r), flush=True)
        else:
            print(f"{spec:50s} {args.players}p {r['games']} games: wins {100 * r['win_rate']:.0f}%, score "
                  f"{r['score']} vs heuristic {' / '.join(map(str, r['heuristic_scores']))}  ({r['seconds']} s)",
                  flush=True)


if __name__ == "__main__":
    sys.exit(main())
