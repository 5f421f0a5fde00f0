"""Engine speed measurements (library side of `thurn-ai bench` and experiments/bench_engine.py)."""
from __future__ import annotations

import platform
import subprocess
import time

from . import _core
from .game import new_game
from .rules import Rules


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


def machine_info() -> dict:
    try:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                                timeout=5).stdout.strip() or None
    except (OSError, subprocess.SubprocessError):
        commit = None
    cpu = platform.processor()
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return {"commit": commit, "cpu": cpu, "python": platform.python_version(),
            "machine": platform.machine(), "time": time.strftime("%Y-%m-%dT%H:%M:%S")}
