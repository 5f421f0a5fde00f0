"""How strong is ISMCTS? Reproduces results/strength/.

    python experiments/strength.py                       # the full run (what produced results/strength/)
    python experiments/strength.py --scale 0.1 --out /tmp/strength    # a quick run elsewhere
    python experiments/strength.py --only greedy_3000 pimc_300        # some matchups only

Two-player games (South board with classic rules; a few on the North board with its default, the horses
variant) with thurn_ai.play.tournament.run_tournament: seats alternate game by game (game g has its own seed,
derived from SEED and g), both cores. Each matchup's games are kept in OUT/runs/<matchup>/ (results.csv,
one row per seat and game; the game records in records.jsonl are not committed). An interrupted run
resumes where it stopped; a matchup whose results.csv is complete is only summarized again. The win rate
of bot A (the rules' winner, tie-break included) comes with its 95% Wilson interval; summary.csv has one
line per matchup and README.md is written from it (with NOTES.md appended).
"""
from __future__ import annotations

import argparse
import shutil
import sys
import time
from pathlib import Path

from thurn_ai.bots.search_options import SearchOptions
from thurn_ai.play.tournament import load_results, run_tournament
from thurn_ai.stats.summary import wilson_interval
from thurn_ai.studies.markdown import table
from thurn_ai.studies.pages import refresh
from thurn_ai.studies.provenance import write_results_readme
from thurn_ai.studies.strength import pct, read_summary, write_summary

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "results" / "strength"
SEED = 2025


def mcts(iterations: int) -> str:
    return f"mcts(iterations={iterations})"


def pimc(iterations: int) -> str:
    return f"pimc(iterations={iterations})"


# (name, bot A, bot B, games, board): board "south" (classic) or "north" (horses, the North default)
MATCHUPS = [
    ("greedy_100", mcts(100), "greedy", 100, "south"),
    ("greedy_300", mcts(300), "greedy", 100, "south"),
    ("greedy_1000", mcts(1000), "greedy", 100, "south"),
    ("greedy_3000", mcts(3000), "greedy", 200, "south"),
    ("heuristic_100", mcts(100), "heuristic", 100, "south"),
    ("heuristic_300", mcts(300), "heuristic", 100, "south"),
    ("heuristic_1000", mcts(1000), "heuristic", 100, "south"),
    ("heuristic_3000", mcts(3000), "heuristic", 200, "south"),
    ("heuristic_10000", mcts(10000), "heuristic", 100, "south"),
    ("random_3000", mcts(3000), "random", 40, "south"),
    ("pimc_300", mcts(300), pimc(300), 100, "south"),
    ("pimc_1000", mcts(1000), pimc(1000), 100, "south"),
    ("pimc_3000", mcts(3000), pimc(3000), 100, "south"),
    ("north_greedy_1000", mcts(1000), "greedy", 60, "north"),
    ("north_heuristic_1000", mcts(1000), "heuristic", 100, "north"),
    ("north_heuristic_3000", mcts(3000), "heuristic", 100, "north"),
]
FIELDS = ["matchup", "board", "bot_a", "bot_b", "games", "a_wins", "a_win_rate", "ci_low", "ci_high",
          "a_mean_score", "b_mean_score", "mean_turns", "seconds"]


def finished_games(run_dir: Path, games: int):
    """The results of a matchup already played in full (results.csv is enough: the game records are not
    kept in the repository), else None."""
    path = run_dir / "results.csv"
    if not path.exists():
        return None
    df = load_results(path)    # tolerant: a cut last line (a killed run) drops that game
    df = df[df["game"] <= games]
    complete = df.groupby("game")["seat"].nunique()
    if len(complete) < games or (complete != 2).any():
        return None
    return df


def run_matchup(name, a, b, games, board, out: Path, jobs: int) -> dict:
    start = time.time()
    df = finished_games(out / "runs" / name, games)
    if df is None:
        df = run_tournament([a, b], players=2, games=games, seed=SEED, jobs=jobs, out_dir=out / "runs" / name,
                            resume="auto", progress=False, rules_kwargs={"board": board})
    seconds = time.time() - start
    rows_a = df[df["spec"] == a]
    rows_b = df[df["spec"] == b]
    wins = int(rows_a["win"].sum())
    low, high = wilson_interval(wins, len(rows_a))
    return {"matchup": name, "board": board, "bot_a": a, "bot_b": b, "games": len(rows_a), "a_wins": wins,
            "a_win_rate": round(wins / len(rows_a), 4), "ci_low": round(low, 4), "ci_high": round(high, 4),
            "a_mean_score": round(rows_a["score"].mean(), 2), "b_mean_score": round(rows_b["score"].mean(), 2),
            "mean_turns": round(df.groupby("game")["turns"].first().mean(), 1), "seconds": round(seconds)}


def write_readme(out: Path, rows: dict[str, dict], argv: list[str]) -> None:
    d = SearchOptions()
    lines = [
        f"Two-player games (South board: classic rules; North board: horses variant) via "
        f"`thurn_ai.play.tournament.run_tournament` with seed "
        f"{SEED}: seats alternate game by game and every game has its own seed (derived from {SEED} and the "
        "game number, so each matchup replays exactly). A's win rate counts the rules' winner (tie-break "
        "included); the interval is the 95% Wilson score interval. Per-game rows: `runs/<matchup>/results.csv`.",
        "",
        f"ISMCTS settings (the `mcts` defaults): c={d.c}, select={d.select}, playout={d.playout} "
        f"(eps={d.eps}), horizon={d.horizon} turns per player then the evaluation, widen={d.widen}, "
        f"reward={d.reward}, scale={d.scale}, tiles={d.tiles}, one worker. PIMC: the same tree, "
        "playouts and budget (iterations in total) over worlds=10 determinizations.",
        "",
    ]
    order = [mm[0] for mm in MATCHUPS]
    lines += table(["matchup", "board", "bot A", "bot B", "games", "A wins", "A win rate", "95% CI", "mean score A",
                    "mean score B", "turns", "time (s)"],
                   ([name, r["board"], f"`{r['bot_a']}`", f"`{r['bot_b']}`", r["games"], r["a_wins"],
                     pct(r["a_win_rate"]), f"{pct(r['ci_low'])}–{pct(r['ci_high'])}", r["a_mean_score"],
                     r["b_mean_score"], r["mean_turns"], r["seconds"]]
                    for name, r in ((n, rows[n]) for n in sorted(rows, key=lambda n: order.index(n)
                                                                    if n in order else len(order)))),
                   right="llllrrrlrrrr")
    lines += ["", "Time is wall-clock seconds on 2 cores (a shared machine) for playing the matchup's games.",
              ""]
    write_results_readme(out, "ISMCTS strength",
                         "python experiments/strength.py" + (" " + " ".join(argv) if argv else ""), lines,
                         name="report.md")
    refresh(out)


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--scale", type=float, default=1.0, help="multiply every game count (even, at least 2)")
    ap.add_argument("--only", nargs="*", default=None, help="matchup names to run")
    ap.add_argument("--fresh", action="store_true", help="discard earlier games in OUT/runs first")
    args = ap.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    if args.fresh and (args.out / "runs").exists():
        shutil.rmtree(args.out / "runs")
    summary_path = args.out / "summary.csv"
    rows = {} if args.fresh else read_summary(summary_path, "matchup")
    for name, a, b, games, board in MATCHUPS:
        if args.only and name not in args.only:
            continue
        n = max(2, 2 * round(games * args.scale / 2))
        r = run_matchup(name, a, b, n, board, args.out, args.jobs)
        before = rows.get(name)
        if before and int(before["games"]) == r["games"] and r["seconds"] < 2:
            r["seconds"] = before["seconds"]      # all games resumed: keep the time they took
        rows[name] = r
        print(f"{name:14s} {a} vs {b}: {r['a_wins']}/{r['games']} = {pct(r['a_win_rate'])} "
              f"[{pct(r['ci_low'])}, {pct(r['ci_high'])}]  {r['seconds']}s", flush=True)
        write_summary(summary_path, rows, FIELDS, [m[0] for m in MATCHUPS])
        write_readme(args.out, rows, argv)


if __name__ == "__main__":
    main()
