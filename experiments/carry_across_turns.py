"""What a search tree kept across the other players' turns would still hold (issue 69: "across the opponents'
turns keep what their observed moves leave valid; report the visits carried over"). Reproduces
results/search_compute/carry.json:

    python experiments/carry_across_turns.py

`anchor-1k` (the frozen default mcts, one ISMCTS tree a decision, 1000 iterations, reuse=none) plays GAMES games
against `heuristic` at 2, 3 and 4 players (deals DEAL + 100 * players + g, its seat rotating). The tree of its
last search of each of its turns is kept; the moves played from that search's position until its first decision
of its next turn (its own remaining moves of that turn, then every other player's move as observed: mover and
move code, a deck draw one code whatever card it drew) are the line followed down that tree with
Tree.visits_along. Per turn boundary: the visits at the node after its own remaining moves (the move its search
chose and any forced ones after it: where today's reuse=turn stops), after the first opponent move, after k opponent
moves (the whole line where there were fewer), and at the next turn's first decision (0 where the tree does not
hold the line), as a share of that decision's budget (bot.budget: 1000 iterations); per player count their mean,
median and max, how many are not 0 and how many hold a tenth of the budget or more.
A boundary is measured whether or not that first decision is searched (a forced move is not); a game that
ends before the searcher's next turn adds none.
"""
from __future__ import annotations

import json
import statistics
import subprocess
from pathlib import Path

from thurn_ai.bots import make_bot
from thurn_ai.fileio import atomic_write_text
from thurn_ai.game.rules import Rules
from thurn_ai.play.match import derive_seed, play_game

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "results" / "search_compute" / "carry.json"
SPEC, OPPONENT = "anchor-1k", "heuristic"
GAMES = 12          # a count: every seat of 2, 3 and 4 players as often
DEAL = 72000
OPP_STEPS = 8       # the decay reported after 0..OPP_STEPS opponent moves


class Carry:
    """Observer (thurn_ai.play.match): keeps the tree of the searcher's latest search and the (mover, move)
    line played since; at its first decision of a later turn, reads the visits along that line."""

    def __init__(self, seat: int):
        self.seat, self.kept, self.rows = seat, None, []

    def decided(self, table, d) -> None:
        if d.player == self.seat and self.kept is not None and self.kept["turn"] != d.state.turn:
            self.rows.append(self.measure(self.kept, d.bot.budget(d.state)[0],
                                          d.bot.last_search(d.observation) is not None))
            self.kept = None
        if d.player == self.seat and (search := d.bot.last_search(d.observation)) is not None:
            self.kept = {"trees": search.trees, "turn": d.state.turn, "line": []}
        if self.kept is not None:
            self.kept["line"].append((d.player, d.move))

    def measure(self, kept: dict, budget: int, searched: bool) -> dict:
        line = kept["line"]
        own = next((i for i, (p, _) in enumerate(line) if p != self.seat), len(line))   # its own moves left

        def visits(n: int) -> int:
            return sum(t.visits_along(line[:n]) for t in kept["trees"])
        return {"budget": budget, "searched": searched, "own_moves": own, "opponent_moves": len(line) - own,
                "own": visits(own), "after_opponents": [visits(own + k) for k in range(1, OPP_STEPS + 1)],
                "next_turn": visits(len(line))}


def summary(rows: list[dict]) -> dict:
    def stats(values: list[int]) -> dict:
        share = [v / r["budget"] for v, r in zip(values, rows)]
        return {"mean": statistics.fmean(values), "median": statistics.median(values), "max": max(values),
                "share_mean": statistics.fmean(share), "share_max": max(share),
                "nonzero": sum(v > 0 for v in values),
                "tenth_of_budget": sum(v >= r["budget"] / 10 for v, r in zip(values, rows))}
    return {"boundaries": len(rows), "next_decision_searched": sum(r["searched"] for r in rows),
            "next_turn": stats([r["next_turn"] for r in rows]),
            "own_moves_only": stats([r["own"] for r in rows]),
            "first_opponent_move": stats([r["after_opponents"][0] for r in rows]),
            "mean_after_k_opponent_moves": [statistics.fmean(r["after_opponents"][k] for r in rows)
                                            for k in range(OPP_STEPS)]}


def main() -> None:
    out = {"what": "visits a tree kept from the last search of a turn holds along the moves played since",
           "spec": SPEC, "opponent": OPPONENT,
           "commit": subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True,
                                    text=True, check=True).stdout.strip(), "players": {}}
    for players in (2, 3, 4):
        rows, deals = [], [DEAL + 100 * players + g for g in range(GAMES)]
        for g, deal in enumerate(deals):
            seat = g % players
            carry = Carry(seat)
            bots = [make_bot(SPEC if s == seat else OPPONENT, seed=derive_seed("bot", deal, s)) for s in range(players)]
            play_game(Rules(players=players), bots, deal, observer=carry)
            rows += carry.rows
        out["players"][str(players)] = {"games": GAMES, "deals": deals, **summary(rows)}
        print(players, json.dumps(out["players"][str(players)]["next_turn"]), flush=True)
    atomic_write_text(OUT, json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main()
