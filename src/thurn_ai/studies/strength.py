"""One strength cell: a search bot in one seat against other bots in every other seat, seats rotated by the
tournament, and its row of summary.csv (win rate with its 95% Wilson interval, scores, how often it
outscored each other seat); the summary.csv that the strength experiments keep (one row per cell or
matchup), read and written atomically. Used by experiments/strength.py, strength_players.py and
learned_strength.py."""
from __future__ import annotations

import csv
import math
import time
from pathlib import Path

from ..fileio import atomic_open
from ..play.tournament import load_results, run_tournament
from ..stats.summary import wilson_interval

#: the columns of a cell's summary.csv row
FIELDS = ["cell", "players", "board", "mcts", "games", "wins", "win_rate", "ci_low", "ci_high", "fair",
          "mcts_score", "mcts_score_ci", "heuristic_scores", "outscored", "mean_turns", "seconds"]


def summarize(cell: str, players: int, spec: str, board: str, df, seconds: float) -> dict:
    """A cell's summary.csv row (FIELDS) from its games (a tournament's results, `spec` in one seat)."""
    mine = df[df["spec"] == spec]
    games = len(mine)
    wins = float(mine["win_share"].sum())          # ties on the top score share the win
    low, high = wilson_interval(wins, games)
    sd = float(mine["score"].std(ddof=1)) if games > 1 else 0.0
    others = df[df["spec"] != spec]
    heur = {label: round(float(g["score"].mean()), 2) for label, g in others.groupby("bot")}
    # how often mcts outscored each heuristic seat in the same game (ties count half)
    by_game = df.pivot_table(index="game", columns="bot", values="score")
    me = mine["bot"].iloc[0]
    outscored = {label: round(float(((by_game[me] > by_game[label]) + 0.5 * (by_game[me] == by_game[label])).mean()), 3)
                 for label in heur}
    return {"cell": cell, "players": players, "board": board, "mcts": spec, "games": games,
            "wins": round(wins, 2), "win_rate": round(wins / games, 4), "ci_low": round(low, 4),
            "ci_high": round(high, 4), "fair": round(1 / players, 4),
            "mcts_score": round(float(mine["score"].mean()), 2),
            "mcts_score_ci": round(1.96 * sd / math.sqrt(max(games, 1)), 2),
            "heuristic_scores": " / ".join(f"{v}" for v in heur.values()),
            "outscored": " / ".join(f"{100 * v:.0f}%" for v in outscored.values()),
            "mean_turns": round(float(df.groupby("game")["turns"].first().mean()), 1),
            "seconds": round(seconds)}


def run_cell(cell, players, spec, games, board, out: Path, jobs: int, seed: int, others: str = "heuristic",
             rules_kwargs: dict | None = None) -> dict:
    """One cell: `spec` in one seat (rotated), `others` in every other seat, into OUT/runs/<cell>/ (resumes);
    `seed`: the tournament's (each game's seed derives from it and the game number)."""
    start = time.time()
    df = run_tournament([spec] + [others] * (players - 1), players=players, games=games, seed=seed,
                        jobs=jobs, out_dir=out / "runs" / cell, resume="auto", progress=False,
                        rules_kwargs=rules_kwargs or {"board": board})
    return summarize(cell, players, spec, board, df, time.time() - start)


def summarize_saved(cell, players, spec, board, out: Path, before: dict | None) -> dict | None:
    """The summary of the complete games a cell's folder holds (whole seat rotations only), or None."""
    path = out / "runs" / cell / "results.csv"
    if not path.exists():
        return None
    df = load_results(path)
    complete = df.groupby("game")["seat"].nunique()
    games = sorted(complete[complete == players].index)
    games = games[:players * (len(games) // players)]
    if not games:
        return None
    r = summarize(cell, players, spec, board, df[df["game"].isin(games)], 0)
    r["seconds"] = before["seconds"] if before and int(before["games"]) == r["games"] else "–"
    return r


def read_summary(path: Path, key: str) -> dict[str, dict]:
    """{row[key]: row} of a summary file; empty if there is none yet."""
    if not path.exists():
        return {}
    with open(path, newline="", encoding="utf-8") as f:
        return {r[key]: r for r in csv.DictReader(f)}


def write_summary(path: Path, rows: dict[str, dict], fields: list[str], order: list[str]) -> None:
    """The rows in `order` (names not in it last), only `fields`, written atomically."""
    rank = {name: i for i, name in enumerate(order)}
    with atomic_open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields)
        w.writeheader()
        for name in sorted(rows, key=lambda n: rank.get(n, len(order))):
            w.writerow({k: rows[name][k] for k in fields})


def pct(x) -> str:
    return f"{100 * float(x):.1f}%"
