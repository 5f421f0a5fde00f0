"""How strong are the rule-based bots? Reproduces results/rulebased/.

    python experiments/rulebased_strength.py                 # the full run (what produced results/rulebased/)
    python experiments/rulebased_strength.py --games 20 --out /tmp/rb   # a quick run elsewhere
    python experiments/rulebased_strength.py --pair "heuristic(turn_cost=0.5)" heuristic --games 100 \
        --out /tmp/tune                                      # any two specs, head to head

Two-player games with thurn_ai.play.match.play_game, seat-swapped: every game seed is played twice, once with
each bot in the first seat, so both bots see the same cards from both seats. Per pair and board the script
writes the win rate of the first bot (rules' winner, tie-break included) with its 95% Wilson interval, the
mean scores and the mean game length, to strength.csv; every game is in games.csv.
"""
from __future__ import annotations

import argparse
import csv
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from thurn_ai.bots import make_bot
from thurn_ai.fileio import atomic_open
from thurn_ai.play.match import derive_seed, play_game
from thurn_ai.game.rules import Rules
from thurn_ai.stats.summary import wilson_interval

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "results" / "rulebased"
SEED = 2024
PAIRS = [("heuristic", "greedy"), ("heuristic", "random"), ("greedy", "random")]
BOARDS = [("south", "classic"), ("north", "horses"), ("north", "classic")]
GAMES = 200           # game seeds per pair and board; each is played from both seats


def play_one(job):
    """One game: (pair index, board, variant, seed index, which seat bot A takes) -> a result row."""
    a, b, board, variant, i, a_seat, seed = job
    game_seed = derive_seed("rulebased", seed, board, variant, a, b, i)
    specs = [a, b] if a_seat == 0 else [b, a]
    bots = [make_bot(s, derive_seed("bot", game_seed, seat)) for seat, s in enumerate(specs)]
    start = time.perf_counter()
    rec = play_game(Rules(players=2, board=board, variant=variant), bots, game_seed)
    seconds = time.perf_counter() - start
    b_seat = 1 - a_seat
    return {"board": board, "variant": variant, "bot_a": a, "bot_b": b, "seed_index": i, "game_seed": game_seed,
            "a_seat": a_seat, "a_won": int(rec.winner == a_seat), "tie": int(rec.scores[0] == rec.scores[1]),
            "score_a": rec.scores[a_seat], "score_b": rec.scores[b_seat], "turns": rec.turns,
            "moves": len(rec.moves), "truncated": int(rec.truncated), "seconds": round(seconds, 4)}


def summarize(rows: list[dict]) -> list[dict]:
    groups: dict[tuple, list[dict]] = {}
    for r in rows:
        groups.setdefault((r["board"], r["variant"], r["bot_a"], r["bot_b"]), []).append(r)
    out = []
    for (board, variant, a, b), rs in groups.items():
        n = len(rs)
        wins = sum(r["a_won"] for r in rs)
        low, high = wilson_interval(wins, n)
        out.append({
            "board": board, "variant": variant, "bot_a": a, "bot_b": b, "games": n, "wins_a": wins,
            "wins_b": n - wins, "score_ties": sum(r["tie"] for r in rs),
            "win_rate_a": round(wins / n, 4), "ci95_low": round(low, 4), "ci95_high": round(high, 4),
            "mean_score_a": round(sum(r["score_a"] for r in rs) / n, 2),
            "mean_score_b": round(sum(r["score_b"] for r in rs) / n, 2),
            "mean_turns": round(sum(r["turns"] for r in rs) / n, 1),
            "mean_turns_per_player": round(sum(r["turns"] for r in rs) / n / 2, 1),
            "mean_moves": round(sum(r["moves"] for r in rs) / n, 1),
            "truncated": sum(r["truncated"] for r in rs),
            "mean_seconds": round(sum(r["seconds"] for r in rs) / n, 3)})
    return out


def write_csv(path: Path, rows: list[dict]) -> None:
    with atomic_open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=GAMES, help="game seeds per pair and board (x2 seats)")
    ap.add_argument("--seed", type=int, default=SEED)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument("--pair", nargs=2, metavar=("BOT_A", "BOT_B"), action="append",
                    help="bot specs to compare (repeatable); default: heuristic/greedy/random pairs")
    ap.add_argument("--board", action="append", metavar="BOARD:VARIANT",
                    help="e.g. south:classic (repeatable); default: south:classic north:horses north:classic")
    args = ap.parse_args(argv)
    pairs = [tuple(p) for p in args.pair] if args.pair else PAIRS
    boards = [tuple(b.split(":")) for b in args.board] if args.board else BOARDS
    for a, b in pairs:                 # a bad spec fails here, before any game
        make_bot(a), make_bot(b)
    jobs = [(a, b, board, variant, i, a_seat, args.seed) for a, b in pairs for board, variant in boards
            for i in range(args.games) for a_seat in (0, 1)]
    start = time.time()
    with ProcessPoolExecutor(max_workers=args.jobs) as pool:
        rows = list(pool.map(play_one, jobs, chunksize=8))
    args.out.mkdir(parents=True, exist_ok=True)
    write_csv(args.out / "games.csv", rows)
    summary = summarize(rows)
    write_csv(args.out / "strength.csv", summary)
    for s in summary:
        print(f"{s['board']}/{s['variant']:<8} {s['bot_a']} vs {s['bot_b']}: {s['wins_a']}/{s['games']} = "
              f"{s['win_rate_a']:.1%} [{s['ci95_low']:.1%}, {s['ci95_high']:.1%}]  scores {s['mean_score_a']} vs "
              f"{s['mean_score_b']}  turns {s['mean_turns']} ({s['mean_turns_per_player']} each)")
    print(f"{len(rows)} games in {time.time() - start:.0f} s with {args.jobs} processes -> {args.out}",
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
