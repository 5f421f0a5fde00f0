"""Replay a sample of a committed officials study's games with the code of this checkout and compare them.

    python experiments/officials_replay.py                       # every 15th game of each heuristic tournament
    python experiments/officials_replay.py --every 1             # all 3,600

The heuristic study in results/officials/ was played at an earlier commit with uncommitted changes to
search files (runs.json says which). The heuristic bot does not search and decides the same way given the
cards, so the same seeds must give the same games with committed code; this checks it game by game
(every seat's score and the game's length). Exit status 1 if any game differs.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import pandas as pd

from thurn_ai.bots import make_bot
from thurn_ai.match import play_game
from thurn_ai.rules import Rules

ROOT = Path(__file__).resolve().parent.parent


def replay(games: pd.DataFrame, every: int):
    """(same, different) counts over the sampled games, and the first few differences."""
    same, differ, notes = 0, 0, []
    for (n, official, game), g in games.groupby(["players", "official", "game"]):
        if (game - 1) % every:
            continue
        g = g.sort_values("seat")
        specs = [f"heuristic(forbid={official})" if r.restricted else "heuristic" for r in g.itertuples()]
        rec = play_game(Rules(players=int(n)), [make_bot(s, seed=0) for s in specs], seed=int(g.seed.iloc[0]))
        if list(rec.scores) == [int(x) for x in g.score] and rec.turns == int(g.turns.iloc[0]):
            same += 1
        else:
            differ += 1
            if len(notes) < 5:
                notes.append(f"{n} players, {official}, game {game}: now {list(rec.scores)} in {rec.turns} turns, "
                             f"recorded {[int(x) for x in g.score]} in {int(g.turns.iloc[0])}")
    return same, differ, notes


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--games", type=Path, default=ROOT / "results" / "officials" / "heuristic_games.parquet")
    ap.add_argument("--every", type=int, default=15, help="replay game 1, 1+k, 1+2k, ... of each tournament")
    a = ap.parse_args(argv)
    if a.every < 1:
        ap.error("--every must be at least 1")
    df = pd.read_parquet(a.games)
    if not all(b.startswith("heuristic") for b in set(df.bot)):
        ap.error(f"{a.games}: only the heuristic study replays without search budgets; bots here: {sorted(set(df.bot))}")
    same, differ, notes = replay(df, a.every)
    print(f"{same} of {same + differ} sampled games replay identically" + "".join(f"\n  {x}" for x in notes))
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
