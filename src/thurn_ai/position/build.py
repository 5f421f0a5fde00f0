"""JSON positions, building: a state from a position dict (the cards not given dealt at random,
consistently with everything given), and check_position, the one checker of a position.
"""
from __future__ import annotations

import random

from .._core import GameState
from ..errors import PositionError
from ..game.state import config_for
from .check import read_and_check
from .problems import Problem, ProblemKind, position_error
from .read import SECOND_GENERATOR, Parsed

MAX_DEALS = 2000     # attempts to deal hidden cards that keep the position's decision


def check_position(data, board_file=None) -> list[Problem]:
    """Every problem of a position dict, one Problem each (kind, field, message; an empty list: the
    position is possible). `board_file`: the path of a board file to use instead of the packaged board the
    position names (positions name only packaged boards: south, north)."""
    parsed, problems = read_and_check(data, board_file)
    if not problems:
        assert parsed is not None           # read without a problem
        try:
            build_state(parsed, 0)
        except PositionError as e:
            problems = list(e.problems)
    return problems


def position_from_dict(data, seed: int | None = None, board_file=None) -> GameState:
    """A state from a position dict. A complete position loads exactly; cards not given (hands given by
    size, the deck) are dealt at random from the cards not accounted for, consistently with everything
    given, using `seed` (None: a fresh random seed). Without an `rng` field the chance generator is
    seeded from `seed` too. PositionError lists every problem found. A position names only a packaged
    board (south, north); `board_file` (a path the user gave) replaces it."""
    parsed, problems = read_and_check(data, board_file)
    if problems:
        raise position_error(problems)
    assert parsed is not None               # read without a problem
    return build_state(parsed, seed)


def build_state(pp: Parsed, seed: int | None) -> GameState:
    if seed is None:
        seed = random.SystemRandom().getrandbits(63)
    rnd = random.Random(seed)
    hidden = any(size is not None for size in pp.hand_size) or pp.raw["deck"] is None
    # Whether the mover still has a choice can depend on hidden cards (a second card that fits the
    # route), so deals that would make the named decision vanish are rejected and dealt again.
    for _ in range(MAX_DEALS if hidden else 1):
        g = GameState(config_for(pp.rules), 0)
        g.load(deal(pp, rnd))
        settled = g.clone()
        settled.settle()
        if settled.export() == g.export() and (g.legal_moves() or g.is_terminal()):
            return g
    if not (settled.legal_moves() or settled.is_terminal()):
        raise position_error([Problem(ProblemKind.NO_DEAL, "turn",
                                      f"no way of dealing the unknown cards leaves seat {settled.current_player} "
                                      f"a legal move in the {settled.phase} phase")])
    # No decision is due in this position: the engine takes the automatic steps, as after any move.
    return settled


def deal(pp: Parsed, rnd: random.Random) -> dict:
    """The raw fields with the cards not accounted for dealt to the hands given by size, the rest to
    the deck (unless the deck is given), and the generators seeded unless given."""
    r = dict(pp.raw)
    b, n, nc = pp.board, pp.rules.players, pp.board.n_cities
    pool = [b.cards_per_city - sum(r["hand"][p][x] + r["horse_cards"][p][x] for p in range(n))
            - r["display"][x] - r["discard"][x] - sum(row.count(x) for row in r["route"])
            - (r["deck"][x] if r["deck"] is not None else 0) for x in range(nc)]
    hands = [list(h) for h in r["hand"]]
    for p, size in enumerate(pp.hand_size):
        for _ in range(0 if size is None else size - sum(hands[p])):
            x = rnd.choices(range(nc), weights=pool)[0]
            pool[x] -= 1
            hands[p][x] += 1
    r["hand"] = hands
    if r["deck"] is None:
        r["deck"] = pool
    if not pp.rng_given:
        r["rng"] = rnd.getrandbits(64)
        r["prng"] = r["rng"] ^ SECOND_GENERATOR
    r["display_n"], r["deck_n"], r["discard_n"] = sum(r["display"]), sum(r["deck"]), sum(r["discard"])
    return r
