"""Speed measurements, the library side of `thurn-ai bench` and experiments/bench_engine.py: the engine
(moves, playouts per second) and the search (ISMCTS iterations per second). The machine and commit they
ran on: thurn_ai.studies.provenance.machine_info."""
from __future__ import annotations

import os
import re
import subprocess
import sys
import time

from .. import _core, _search
from ..game.state import new_game
from ..game.rules import PLAYER_COUNTS, Rules


def _midgame(rules: Rules, seed: int, moves: int = 300):
    g = new_game(rules=rules, seed=seed)
    for _ in range(moves):
        if g.is_terminal():
            break
        g.apply_random()
    return g


def _best_of(fn, repeats: int = 3) -> float:
    best = float("inf")
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best


def bench_rules(rules: Rules, playouts: int = 300, seed: int = 1) -> dict:
    """Speed numbers for one rule set. Times are the best of 3 repeats (the machine is shared)."""
    start = new_game(rules=rules, seed=seed)
    actions = _core.bench_playouts(start, playouts, seed)        # warm-up and action count
    t = _best_of(lambda: _core.bench_playouts(start, playouts, seed))
    mids = [_midgame(rules, seed + i) for i in range(20)]
    n_clone, n_py, n_det = 200_000, 50_000, 100_000
    g = mids[0]

    def clones():
        for _ in range(n_clone):
            g.clone()

    def gens():
        for _ in range(n_py):
            g.legal_moves()

    def dets():
        for i in range(n_det):
            g.determinize(0, i)

    t_clone = _best_of(clones)
    n_gen = 200_000
    t_gen_c = sum(_best_of(lambda m=m: _core.bench_legal_moves(m, n_gen // 20)) for m in mids)
    t_gen_py = _best_of(gens)
    t_det = _best_of(dets)
    return {
        "board": rules.load_board().name, "variant": rules.resolved_variant, "players": rules.players,
        "playouts_per_s": playouts / t, "actions_per_s": actions / t,
        "actions_per_playout": actions / playouts,
        "clone_us": t_clone / n_clone * 1e6,
        "legal_moves_compiled_us": t_gen_c / n_gen * 1e6,
        "legal_moves_python_us": t_gen_py / n_py * 1e6,
        "determinize_us": t_det / n_det * 1e6,
    }


# ---------------------------------------------------------------- search speed
# Search speed (library side of the ISMCTS line of `thurn-ai bench`): ISMCTS iterations per second.
#
# The position is fixed: a 2-player South-board game (seed 5) after 40 turns of the heuristic playout
# policy. One tree, one core, the MCTS bot's default settings; best of 3 repeats (the machine is shared).

BENCH_SEED = 5
BENCH_TURNS = 40


def bench_position(seed: int = BENCH_SEED, turns: int = BENCH_TURNS, players: int = 2):
    """The benchmark position: `turns` turns of the heuristic policy (eps 0.05) from a seeded game."""
    g = new_game(rules=Rules(players=players, board="south"), seed=seed)
    i = 0
    while g.turn < turns and not g.is_terminal():
        g.apply(_search.policy_choice(g, seed * 1_000_003 + i, 0, 0.05))
        i += 1
    return g


def _rate(state, iterations: int, repeats: int, **tree_args) -> tuple[float, float]:
    best, moves = float("inf"), 0.0
    for r in range(repeats):
        tree = _search.Tree(state, 1 + r, **tree_args)
        t = time.perf_counter()
        tree.run(iterations)
        best = min(best, time.perf_counter() - t)
        moves = tree.playout_moves / iterations
    return iterations / best, moves


def bench_search(iterations: int = 20_000, repeats: int = 3) -> dict:
    """ISMCTS iterations per second from the benchmark position with the mcts bot's defaults, and with
    playouts to the end of the game for comparison."""
    from ..bots.search_options import SearchOptions

    defaults = SearchOptions()
    g = bench_position()
    obs = g.determinize(g.current_player, 99)
    rate, moves = _rate(obs, iterations, repeats, **defaults.tree_args())
    full = dict(defaults.tree_args(), horizon=0)
    full_rate, full_moves = _rate(obs, max(iterations // 5, 1), repeats, **full)
    learned = {n: learned_speed(n, iterations // 2, repeats) for n in PLAYER_COUNTS}
    return {
        "iterations_per_s": rate,
        "learned_vs_handset": learned,
        "playout_moves": moves,
        "iterations_per_s_full_playouts": full_rate,
        "full_playout_moves": full_moves,
        "description": (f"ISMCTS, 2p South, seed {BENCH_SEED} after {BENCH_TURNS} turns, one core, "
                        f"horizon={defaults.horizon} ({moves:.0f} playout moves); "
                        f"{full_rate:,.0f}/s with playouts to the end ({full_moves:.0f} moves); "
                        "with eval=learned: " + ", ".join(f"{v['ratio']:.2f}x at {n} players"
                                                        for n, v in learned.items()) + " the hand-set's rate"),
    }


def learned_speed(players: int, iterations: int, repeats: int) -> dict:
    """Iterations per second of the default search with the hand-set and with the learned evaluation at
    the benchmark position of this player count, measured in turns (one, then the other, `repeats`
    times; best of each), and their ratio."""
    from ..bots.search_options import SearchOptions
    from ..learned import default_model

    g = bench_position(players=players)
    obs = g.determinize(g.current_player, 99)
    handset, learned = SearchOptions().tree_args(), SearchOptions(eval="learned").tree_args()
    weights = default_model().weights_for(players)
    best_h = best_l = 0.0
    for _ in range(repeats):
        best_h = max(best_h, _rate(obs, iterations, 1, **handset)[0])
        best_l = max(best_l, _rate(obs, iterations, 1, value_weights=weights, **learned)[0])
    return {"handset": best_h, "learned": best_l, "ratio": best_l / best_h}


# ---------------------------------------------------------------- named searches side by side

#: the searches experiments/bench_searches.py compares by default: the default `mcts` (learned prior), the same
#: search with the hand-set prior, and the frozen November 2026 default
COMPARED_SEARCHES = ("mcts", "mcts(policy=handset)", "anchor-1k")
#: the compiled search's Tree.run, as callgrind names its C function (a pattern): what an iteration costs
TREE_RUN = "*_search_4Tree_*run"
#: the turns the positions of search_positions stop after, in turn
POSITION_TURNS = (20, 40, 60)


def search_positions(players: int, count: int) -> list:
    """`count` positions of this player count to time searches from: bench_position of seeds 5, 6, ...
    after 20, 40, 60, 20, ... turns (a game that ended before is skipped, the next seed taken)."""
    out: list = []
    seed = BENCH_SEED
    while len(out) < count:
        g = bench_position(seed=seed, turns=POSITION_TURNS[len(out) % len(POSITION_TURNS)], players=players)
        if not g.is_terminal():
            out.append(g)
        seed += 1
    return out


def search_trees(spec: str, positions: list, seed: int = 1) -> list:
    """The trees the bot of `spec` (any search bot: mcts with options, an anchor) would search from each
    position, built as its search builds them (ISMCTS, the player to move's view), not yet run."""
    from ..bots.spec import make_bot

    bot = make_bot(spec, seed)
    return [bot._tree(g, seed + k, ismcts=True) for k, g in enumerate(positions)]


def callgrind_instructions(code: str, *args: str, inside: str | None = None) -> int:
    """Instructions (valgrind's callgrind) of a fresh Python process running `code` with sys.argv[1:] =
    args: repeatable whatever else the machine is doing, unlike seconds. `inside`: count only while in the
    C functions of this name (a pattern: `*_search_4Tree_*run`, the compiled search's Tree.run). One hash
    seed for every run: Python's randomized string hashes change the instructions of the import by a few
    percent."""
    only = [f"--toggle-collect={inside}"] if inside else []
    out = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", *only,
                          sys.executable, "-c", code, *args], capture_output=True, text=True, check=True,
                         env=dict(os.environ, PYTHONHASHSEED="0"))
    found = re.search(r"Collected : (\d+)", out.stderr)
    if found is None:
        raise RuntimeError(f"callgrind reported no count:\n{out.stderr[-2000:]}")
    return int(found.group(1))


#: a child process that runs one search of the spec argv[1] for argv[2] iterations from bench_position, for
#: callgrind to count (experiments/search_budget.py --part profile, experiments/iteration_cost.py)
PROFILE_CHILD = r"""
import sys
from thurn_ai.bots import make_bot
from thurn_ai.bots.base import Observation
from thurn_ai.play.bench import bench_position
s = bench_position()
bot = make_bot(sys.argv[1], seed=1)
bot._jobs(Observation(s, s.current_player, 99), 5)[0][0].run(int(sys.argv[2]))
"""
#: the compiled functions whose inclusive instructions the profile part reports, by what they do
PROFILE_PARTS = {"iteration": "Tree_iterate", "walk down (selection, expansion)": "Tree_select_expand",
                 "moves and prior at the nodes walked": "Tree_tree_options",
                 "learned prior (cached logits, softmax)": "_search_learned_priors",
                 # the rule of thumb's softmax itself: the compiler may inline handset_prior's call of it into its
                 # caller, leaving a handset_prior that no longer counts it
                 "hand-set prior (rule of thumb's softmax, every visit)": "_policy_move_priors",
                 "playout and evaluation": "Tree_play_out", "playout": "_policy_playout",
                 "learned evaluation": "_policy_evaluate_learned", "determinization": "_core_determinize"}


def profile_parts(annotated: str, iterations: int) -> dict[str, float]:
    """Instructions an iteration of each of PROFILE_PARTS, read off `callgrind_annotate --inclusive=yes`'s
    text for a run of `iterations` iterations (0 for a part it does not list)."""
    parts = {}
    for name, pattern in PROFILE_PARTS.items():
        found = [int(m.group(1).replace(",", "")) for m in
                 re.finditer(r"^\s*([\d,]+) \([^)]*\)\s+\S*:__pyx_f_\w*" + pattern + r"\b", annotated, re.M)]
        parts[name] = max(found) / iterations if found else 0.0
    return parts


def timed_game(spec: str, players: int, seed: int, on_search=None, opponent: str = "heuristic"):
    """One game of `spec` in seat seed mod players against `opponent` in the other seats (deal `seed`, the bots
    seeded by derive_seed("bot", seed, seat)): calls on_search(player, obs, result) after each decision of any
    seat that ran a search. Returns (table, bots, cpu): the finished game, the bots by seat and the CPU seconds
    (thread time) each seat spent choosing."""
    from ..bots import make_bot
    from .match import Table, derive_seed
    seats = [opponent] * players
    seats[seed % players] = spec
    bots = [make_bot(s, derive_seed("bot", seed, i)) for i, s in enumerate(seats)]
    table = Table.new(Rules(players=players), seed, seats)
    cpu = [0.0] * players
    while not table.over:
        p = table.to_move
        obs = table.observation()
        t0 = time.thread_time()
        move = bots[p].choose(obs)
        cpu[p] += time.thread_time() - t0
        result = bots[p].last_search(obs)
        if result is not None and on_search is not None:
            on_search(p, obs, result)
        table.check_bot_move(move)
        table.apply(move)
    return table, bots, cpu
