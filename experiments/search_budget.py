"""The search's budget spent where decisions are made (issue 69): the budgeted search against the frozen default
`anchor-1k` at equal CPU per game; reproduces results/search_budget/.

    python experiments/search_budget.py --part calibrate --base 3000   # CPU a game, candidate vs anchor-1k
    python experiments/search_budget.py --part games [--cells h2h_p2 ...]   # the cells (resume; as they go)
    python experiments/search_budget.py --part report             # results/search_budget/report.md
    python experiments/search_budget.py --part speed              # instructions an iteration (callgrind)
    python experiments/search_budget.py --part profile            # where anchor-1k's iteration goes (callgrind)

The design, the cells and the adoption rule are in results/search_budget/design.md, committed before the games.
Game g of a cell uses seed g for the deal and chance; the seat under test is g mod n; every bot's seed is
derive_seed("bot", g, seat). `heuristic` is deterministic, so the `heur_*` cells of the candidate and of
anchor-1k over the same seeds are paired deal by deal. Each line of runs/<cell>.jsonl is one game: the
winner (the rules' winner, tie-break included), scores, and per seat the CPU seconds its bot spent choosing
(thread time), the iterations it searched, its searches and the root visits its kept trees carried over.
Results must come from committed code: the script refuses uncommitted changes unless --allow-dirty.
"""
from __future__ import annotations

import argparse
import json
import math
import time
from dataclasses import dataclass
from pathlib import Path

from thurn_ai.fileio import atomic_write_text
from thurn_ai.play.bench import PROFILE_CHILD, profile_parts, timed_game
from thurn_ai.stats.summary import mean_interval, versus_baseline, wilson_interval
from thurn_ai.studies.findings import Findings, Number, front_page
from thurn_ai.studies.provenance import committed_code_or_exit, log_run, read_runs

#: the line the results folder's front page opens with (docs/development.md, a study's life)
STATUS = ('adopted. As options of `mcts`, off by default (`reuse`, `planned`, `spend`, `draws`, `hand_prior`; '
          "docs/search-budget.md); not as the default: the candidate's adoption rule failed.")

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "results" / "search_budget"

ANCHOR = "anchor-1k"
#: the candidate: the tree kept through the turn, houses and the Cartwright from the planner, draws searched
#: twice as long and every search stopped once its best move cannot be caught; its base budget brought to
#: anchor-1k's CPU a game by the calibration (design.md)
CANDIDATE = "mcts(reuse=turn,planned=houses,spend=phase,draws=2,iterations=2400)"


@dataclass(frozen=True)
class Cell:
    name: str
    players: int
    first: int          # seed of its first game
    games: int
    tested: str         # the bot in seat g mod n
    others: str         # the bot in every other seat


#: (players, first seed, games planned): deals not used by any committed study (those use 2025-6349)
COUNTS = ((2, 69000, 200), (3, 69400, 150), (4, 69700, 100))


def cells() -> list[Cell]:
    """The cells in the order of priority of design.md: head to head, then the paired cells against
    heuristic, 2 and 3 players before 4."""
    out = []
    for n, first, games in COUNTS:
        out.append(Cell(f"h2h_p{n}", n, first, games, CANDIDATE, ANCHOR))
        out.append(Cell(f"heur_p{n}_candidate", n, first, games, CANDIDATE, "heuristic"))
        out.append(Cell(f"heur_p{n}_anchor", n, first, games, ANCHOR, "heuristic"))
    return out


def calibration(base: int) -> list[Cell]:
    """The candidate at base `base` and anchor-1k against heuristic on a few deals outside the cells'."""
    spec = CANDIDATE.replace("iterations=2400", f"iterations={base}")
    return [Cell(f"cal{base}_p2", 2, 68900, 8, spec, "heuristic"),
            Cell("cal_p2_anchor", 2, 68900, 8, ANCHOR, "heuristic"),
            Cell(f"cal{base}_p3", 3, 68950, 6, spec, "heuristic"),
            Cell("cal_p3_anchor", 3, 68950, 6, ANCHOR, "heuristic")]


def play(cell: Cell, g: int) -> dict:
    """One game of the cell: its line for runs/<cell>.jsonl."""
    n = cell.players
    tested = g % n
    iterations = [0] * n
    searches = [0] * n
    carried = [0] * n

    def count(p, _obs, result):
        iterations[p] += result.iterations
        searches[p] += 1
        carried[p] += result.carried

    table, _bots, cpu = timed_game(cell.tested, n, g, on_search=count, opponent=cell.others)
    s = table.state
    return {"seed": g, "tested": tested, "seats": table.seats, "winner": s.winner(), "scores": s.scores(),
            "turns": s.turn, "cpu": [round(c, 3) for c in cpu], "iterations": iterations, "searches": searches,
            "carried": carried}


def _done(path: Path) -> set[int]:
    return {json.loads(line)["seed"] for line in path.read_text().splitlines() if line.strip()} \
        if path.exists() else set()


def run_cell(cell: Cell, runs: Path, only: int | None = None) -> int:
    """Play the cell's missing games (only its game number `only`, counted from 0, if given), appending each
    line as it finishes; returns the games played now."""
    path = runs / f"{cell.name}.jsonl"
    done = _done(path)
    played = 0
    with path.open("a") as f:
        for k in range(cell.games):
            g = cell.first + k
            if g in done or (only is not None and k != only):
                continue
            f.write(json.dumps(play(cell, g)) + "\n")
            f.flush()
            played += 1
    return played


def read(runs: Path, cell: Cell) -> list[dict]:
    path = runs / f"{cell.name}.jsonl"
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def cell_summary(rows: list[dict], players: int) -> dict:
    """Win share of the tested seat (Wilson 95%, against the fair share 1/n), mean margin over the best
    other seat, and CPU seconds / iterations / carried visits a game of the tested seat and of the others."""
    if not rows:
        return {"games": 0}
    wins = sum(r["winner"] == r["tested"] for r in rows)
    n = len(rows)
    lo, hi = wilson_interval(wins, n)
    d, dlo, dhi, p = versus_baseline(wins, n, 1 / players)
    margin = [r["scores"][r["tested"]] - max(s for i, s in enumerate(r["scores"]) if i != r["tested"]) for r in rows]
    m_lo, m_hi = mean_interval(margin)

    def per_game(key, tested):
        vals = [r[key][r["tested"]] if tested else
                sum(v for i, v in enumerate(r[key]) if i != r["tested"]) / (players - 1) for r in rows]
        return sum(vals) / n
    return {"games": n, "wins": wins, "win": wins / n, "win_lo": lo, "win_hi": hi,
            "vs_fair": d, "vs_fair_lo": dlo, "vs_fair_hi": dhi, "p_fair": p,
            "margin": sum(margin) / n, "margin_lo": m_lo, "margin_hi": m_hi,
            "cpu_tested": per_game("cpu", True), "cpu_other": per_game("cpu", False),
            "iterations_tested": per_game("iterations", True), "iterations_other": per_game("iterations", False),
            "searches_tested": per_game("searches", True), "carried_tested": per_game("carried", True),
            "turns": sum(r["turns"] for r in rows) / n}


def paired(a: list[dict], b: list[dict]) -> dict:
    """Candidate minus anchor-1k against heuristic on the same deals: win (points) and margin, with the t
    interval of the per-deal differences."""
    by_seed = {r["seed"]: r for r in b}
    diffs, margins = [], []
    for r in a:
        o = by_seed.get(r["seed"])
        if o is None:
            continue
        diffs.append(100.0 * ((r["winner"] == r["tested"]) - (o["winner"] == o["tested"])))
        m = [x["scores"][x["tested"]] - max(s for i, s in enumerate(x["scores"]) if i != x["tested"]) for x in (r, o)]
        margins.append(m[0] - m[1])
    if len(diffs) < 2:
        return {"deals": len(diffs)}
    lo, hi = mean_interval(diffs)
    mlo, mhi = mean_interval(margins)
    return {"deals": len(diffs), "win_diff": sum(diffs) / len(diffs), "win_diff_lo": lo, "win_diff_hi": hi,
            "margin_diff": sum(margins) / len(margins), "margin_diff_lo": mlo, "margin_diff_hi": mhi}


def part_calibrate(args, code: str) -> None:
    runs = args.out / "calibration"
    runs.mkdir(parents=True, exist_ok=True)
    for cell in calibration(args.base):
        run_cell(cell, runs)
        s = cell_summary(read(runs, cell), cell.players)
        print(f"{cell.name}: {cell.tested}: {s['games']} games, CPU {s['cpu_tested']:.2f} s a game, "
              f"{s['iterations_tested']:.0f} iterations, {s['searches_tested']:.1f} searches, "
              f"{s['carried_tested']:.0f} visits carried", flush=True)


def part_games(args, code: str) -> None:
    # interleaved: the k-th game of every cell before any cell's (k+1)-th, so that a run stopped by the clock
    # (design.md) leaves every cell with a like share of its games and the paired cells on the same deals
    runs = args.out / "runs"
    runs.mkdir(parents=True, exist_ok=True)
    chosen = [c for c in cells() if not args.cells or c.name in args.cells]
    start = time.time()
    played = 0
    for k in range(max((c.games for c in chosen), default=0)):
        if args.until and time.strftime("%H:%M", time.gmtime()) >= args.until:
            print(f"stopped by the clock ({args.until} UTC) before game {k + 1} of each cell", flush=True)
            break
        for cell in chosen:
            if k < cell.games:
                played += run_cell(cell, runs, only=k)
        if k % 10 == 9:
            print(f"game {k + 1} of each cell: {played} games played in {time.time() - start:.0f} s", flush=True)
    log_run(args.out, f"games {' '.join(c.name for c in chosen)}", time.time() - start, code, played=played)


def summary(out: Path) -> dict:
    runs = out / "runs"
    data = {"candidate": CANDIDATE, "anchor": ANCHOR, "cells": {}, "paired": {}}
    for cell in cells():
        data["cells"][cell.name] = {"players": cell.players, "first": cell.first, "planned": cell.games,
                                    "tested": cell.tested, "others": cell.others,
                                    **cell_summary(read(runs, cell), cell.players)}
    for n in (2, 3, 4):
        a = read(runs, next(c for c in cells() if c.name == f"heur_p{n}_candidate"))
        b = read(runs, next(c for c in cells() if c.name == f"heur_p{n}_anchor"))
        data["paired"][f"p{n}"] = paired(a, b)
    return data


def _f(x, digits=1, scale=1.0):
    return "—" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x * scale:.{digits}f}"


def report(data: dict, code: str) -> str:
    lines = [f"# The search's budget: {data['candidate']} against {data['anchor']}", "",
             f"Code: {code}. Written by `python experiments/search_budget.py --part report` from runs/*.jsonl; the "
             "design and the adoption rule: design.md (committed before the games).", "",
             "| cell | players | games (planned) | tested | others | win % [95% Wilson] | vs fair share (points) | "
             "margin | CPU s/game tested / others | iterations/game tested / others | carried visits/game |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for name, c in data["cells"].items():
        if not c.get("games"):
            lines.append(f"| {name} | {c['players']} | 0 ({c['planned']}) | | | not played | | | | | |")
            continue
        lines.append(
            f"| {name} | {c['players']} | {c['games']} ({c['planned']}) | {c['tested']} | {c['others']} | "
            f"{_f(c['win'], 1, 100)} [{_f(c['win_lo'], 1, 100)}, {_f(c['win_hi'], 1, 100)}] | "
            f"{_f(c['vs_fair'], 1, 100)} [{_f(c['vs_fair_lo'], 1, 100)}, {_f(c['vs_fair_hi'], 1, 100)}] | "
            f"{_f(c['margin'], 2)} | {_f(c['cpu_tested'], 2)} / {_f(c['cpu_other'], 2)} | "
            f"{_f(c['iterations_tested'], 0)} / {_f(c['iterations_other'], 0)} | {_f(c['carried_tested'], 0)} |")
    lines += ["", "Paired against `heuristic` (candidate minus anchor-1k on the same deals, t interval of the "
              "per-deal differences):", "", "| players | deals | win (points) | margin |", "|---|---|---|---|"]
    for key, p in data["paired"].items():
        if p.get("deals", 0) < 2:
            lines.append(f"| {key[1:]} | {p.get('deals', 0)} | — | — |")
            continue
        lines.append(f"| {key[1:]} | {p['deals']} | {_f(p['win_diff'])} [{_f(p['win_diff_lo'])}, "
                     f"{_f(p['win_diff_hi'])}] | {_f(p['margin_diff'], 2)} [{_f(p['margin_diff_lo'], 2)}, "
                     f"{_f(p['margin_diff_hi'], 2)}] |")
    return "\n".join(lines) + "\n"


def findings(data: dict, code: str, out: Path) -> Findings:
    """The numbers the docs quote: each cell's win share and CPU a game, the paired differences."""
    numbers = {}
    games = {}
    for name, c in data["cells"].items():
        if not c.get("games"):
            continue
        games[name] = c["games"]
        numbers[f"win.{name}"] = Number(c["win"], c["win_lo"], c["win_hi"], "share", games=c["games"],
                                        says=f"{c['tested']} against {c['others']}, {c['players']} players")
        numbers[f"cpu.{name}"] = Number(c["cpu_tested"], unit="number", digits=2, games=c["games"],
                                        says=f"CPU s a game of {c['tested']}")
        numbers[f"cpu_others.{name}"] = Number(c["cpu_other"], unit="number", digits=2, games=c["games"],
                                               says=f"CPU s a game of each {c['others']}")
        numbers[f"carried.{name}"] = Number(c["carried_tested"], unit="number", digits=0, games=c["games"],
                                            says=f"root visits carried over a game by {c['tested']}")
    for key, p in data["paired"].items():
        if p.get("deals", 0) >= 2:
            numbers[f"paired.{key}"] = Number(p["win_diff"] / 100, p["win_diff_lo"] / 100, p["win_diff_hi"] / 100,
                                              "pp", games=p["deals"],
                                              says=f"candidate minus anchor-1k against heuristic, {key[1:]} players")
    return Findings(status=STATUS, study="search_budget", title="The search's budget (issue 69)",
                    command="python experiments/search_budget.py", commit=code, numbers=numbers, games=games,
                    played_at=tuple(sorted({r["code"] for r in read_runs(out)})))


def part_report(args, code: str) -> None:
    data = summary(args.out)
    atomic_write_text(args.out / "summary.json", json.dumps(data, indent=1, default=float) + "\n")
    atomic_write_text(args.out / "report.md", report(data, code))
    body = ["Design and adoption rule: [design.md](design.md); every cell: [report.md](report.md)."]
    front_page(args.out, findings(data, code, args.out), body)


SPEED_CHILD = r"""
import sys
from thurn_ai.bots import make_bot
from thurn_ai.game.rules import Rules
from thurn_ai.play.match import Table
spec, decisions = sys.argv[1], int(sys.argv[2])
table = Table.new(Rules(players=2), 69999, [spec, "heuristic"])
bot, other = make_bot(spec, seed=1), make_bot("heuristic", seed=1)
iterations = searched = 0
while not table.over and searched < decisions:
    obs = table.observation()
    if table.to_move == 0:
        move = bot.choose(obs)
        result = bot.last_search(obs)
        if result is not None:
            iterations += result.iterations
            searched += 1
    else:
        move = other.choose(obs)
    table.apply(move)
print(iterations)
"""
#: the search seat's first searched decisions of game 69999 (2 players, against heuristic) the speed part counts
SPEED_DECISIONS = 15


def part_speed(args, code: str) -> None:
    """Instructions an iteration (callgrind, counted inside the compiled Tree.run only) of anchor-1k, the
    candidate, and both with the hand-set prior kept per node (hand_prior=node), over the first SPEED_DECISIONS
    searches of one game each; the iterations from the same game played again without valgrind (same seed,
    same game). Writes speed.json."""
    import subprocess
    import sys
    from thurn_ai.play.bench import callgrind_instructions
    out = {"code": code, "game": 69999, "decisions": SPEED_DECISIONS}
    specs = (("anchor", ANCHOR), ("candidate", CANDIDATE),
             ("default_hand_prior_node", "mcts(hand_prior=node)"),
             ("candidate_hand_prior_node", CANDIDATE.replace("draws=2,", "draws=2,hand_prior=node,")))
    for name, spec in specs:
        run = subprocess.run([sys.executable, "-c", SPEED_CHILD, spec, str(SPEED_DECISIONS)], capture_output=True,
                             text=True, check=True)
        iterations = int(run.stdout.split()[-1])
        instructions = callgrind_instructions(SPEED_CHILD, spec, str(SPEED_DECISIONS), inside="*_search_4Tree_*run")
        out[name] = {"spec": spec, "iterations": iterations, "instructions": instructions,
                     "instructions_per_iteration": instructions / iterations}
        print(f"{name}: {iterations} iterations, {instructions / iterations:,.0f} instructions an iteration",
              flush=True)
    for name, _spec in specs[1:]:
        out[f"ratio_{name}_over_anchor"] = (out[name]["instructions_per_iteration"]
                                            / out["anchor"]["instructions_per_iteration"])
    atomic_write_text(args.out / "speed.json", json.dumps(out, indent=1) + "\n")


def part_profile(args, code: str) -> None:
    """Where an iteration of anchor-1k's tree goes: callgrind over 3000 iterations from the search benchmark's
    position (thurn_ai.play.bench), the inclusive instructions of the search's parts. Writes profile.json."""
    import subprocess
    import sys
    import tempfile
    iterations = 3000
    with tempfile.TemporaryDirectory() as tmp:
        out_file = Path(tmp) / "callgrind.out"
        subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out_file}",
                        "--toggle-collect=*_search_4Tree_*run", sys.executable, "-c", PROFILE_CHILD, ANCHOR,
                        str(iterations)], capture_output=True, check=True)
        text = subprocess.run(["callgrind_annotate", "--inclusive=yes", "--threshold=100", str(out_file)],
                              capture_output=True, text=True, check=True).stdout
    parts = profile_parts(text, iterations)
    total = parts["iteration"] or 1.0
    data = {"code": code, "spec": ANCHOR, "iterations": iterations, "position": "thurn_ai.play.bench.bench_position",
            "instructions_per_iteration": parts, "share": {k: v / total for k, v in parts.items()}}
    atomic_write_text(args.out / "profile.json", json.dumps(data, indent=1) + "\n")
    for k, v in parts.items():
        print(f"{k}: {v:,.0f} instructions an iteration ({v / total:.0%})", flush=True)


PARTS = {"calibrate": part_calibrate, "games": part_games, "report": part_report, "speed": part_speed,
         "profile": part_profile}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--part", choices=list(PARTS), action="append")
    ap.add_argument("--cells", nargs="*", help="games: only these cells (default: all, in order)")
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument("--base", type=int, default=2400, help="calibrate: the candidate's base iterations")
    ap.add_argument("--until", help="games: start no round of games at or after this UTC time (HH:MM)")
    ap.add_argument("--allow-dirty", action="store_true")
    args = ap.parse_args(argv)
    code = committed_code_or_exit(ROOT, args.allow_dirty)
    args.out.mkdir(parents=True, exist_ok=True)
    for part in args.part or ["games", "report"]:
        PARTS[part](args, code)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
