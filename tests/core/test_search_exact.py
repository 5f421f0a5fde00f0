"""The search's exact results, pinned: root statistics of fixed-seed searches that a speed-up of the iteration
(docs/search-budget.md, "Cheaper iterations") must leave bit for bit as they were.

tests/data/search_exact.json holds, for every spec below and every position (South, 2/3/4 players, several
phases, reached by the heuristic policy from a fixed deal), the root children of one tree searched
ITERATIONS iterations with a fixed seed: move, visits, availability and the exact sums of value, wins and
score (JSON floats round-trip exactly), with the tree's node count and playout moves. It was written by

    python tests/core/test_search_exact.py --write

at the commit named in the file, before the iteration was made cheaper; re-write it only for a change that is
meant to change the search (and say so in the commit), never to make a speed-up pass.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

import thurn_ai
from thurn_ai import _search
from thurn_ai.bots import make_bot

FIXTURE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "data", "search_exact.json")
ITERATIONS = 600
#: the default search (the frozen anchor and today's default), and the prior's other paths it shares code with
SPECS = ("anchor-1k", "mcts", "anchor-handset", "mcts(hand_prior=node)")
#: (players, deal, phase wanted, heuristic moves to play first at least)
POSITIONS = [(2, 101, "draw", 0), (2, 102, "play", 30), (2, 103, "houses", 60), (2, 104, "after_play", 150),
             (3, 201, "draw", 0), (3, 202, "play", 40), (3, 203, "cartwright", 90),
             (4, 301, "draw", 0), (4, 302, "play", 50), (4, 303, "after_play", 120)]


def position(players: int, deal: int, phase: str, moves: int):
    """The first position in `phase` after at least `moves` heuristic moves from the deal (seeded policy)."""
    g = thurn_ai.new_game(players=players, seed=deal)
    k = 0
    while k < moves or g.phase != phase:
        assert not g.is_terminal(), (players, deal, phase)
        g.apply(_search.policy_choice(g, deal * 1000 + k, 0, 0.05))
        k += 1
    return g


def search(spec: str, g, seed: int) -> dict:
    tree = make_bot(spec)._tree(g, seed, ismcts=True)
    tree.run(ITERATIONS)
    return {"root": sorted(list(row) for row in tree.root_children()), "nodes": tree.n_nodes,
            "playout_moves": tree.playout_moves}


def key(spec: str, players: int, deal: int, phase: str) -> str:
    return f"{spec} p{players} deal{deal} {phase}"


def results() -> dict:
    out = {}
    for players, deal, phase, moves in POSITIONS:
        g = position(players, deal, phase, moves)
        for spec in SPECS:
            out[key(spec, players, deal, phase)] = search(spec, g, deal + 7)
    return out


def _pinned() -> dict:
    with open(FIXTURE) as f:
        return json.load(f)


@pytest.mark.parametrize("spec", SPECS)
@pytest.mark.parametrize("players, deal, phase, moves", POSITIONS)
def test_the_search_is_bit_for_bit_the_pinned_one(spec, players, deal, phase, moves):
    got = search(spec, position(players, deal, phase, moves), deal + 7)
    assert got == _pinned()["searches"][key(spec, players, deal, phase)]


if __name__ == "__main__":
    if sys.argv[1:] != ["--write"]:
        sys.exit("usage: python tests/core/test_search_exact.py --write")
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                            check=True).stdout.strip()
    data = {"commit": commit, "iterations": ITERATIONS, "searches": results()}
    with open(FIXTURE, "w") as f:
        json.dump(data, f, indent=0)
        f.write("\n")
    print(f"wrote {len(data['searches'])} searches at {commit}")
