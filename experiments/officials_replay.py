"""Replay a sample of a committed officials study's games with the code of this checkout and compare them.

    python experiments/officials_replay.py                       # every 15th game of each heuristic tournament
    python experiments/officials_replay.py --every 1             # all 3,600
    python experiments/officials_replay.py --tournament results/officials/raw/search/4p_none --every 10
    python experiments/officials_replay.py --records results/officials/records --every 50

The heuristic study in results/officials/ was played at an earlier commit with uncommitted changes to
search files (runs.json says which). The heuristic bot does not search and decides the same way given the
cards, so the same seeds must give the same games with committed code; this checks it game by game
(every seat's score and the game's length). Exit status 1 if any game differs.

--tournament replays the saved games of tournament folders (any bots, search included: each game is
played again from its seeds, as the tournament played it) and compares every move, for games whose
tournament was continued with other code than it was started with (a speed change that must not change
a single decision).

--records replays the kept records of a study (results/officials/records/<study>/<name>.jsonl.gz with
their settings beside them; `python experiments/officials.py --part records` writes them) the same way: a
reader's check that the committed games come from the committed code.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import pandas as pd

from thurn_ai.studies.officials.plan import StudyError
from thurn_ai.studies.officials.records import check_records, replay, replay_tournament

ROOT = Path(__file__).resolve().parent.parent


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--games", type=Path, default=ROOT / "results" / "officials" / "heuristic_games.parquet")
    ap.add_argument("--every", type=int, default=15, help="replay game 1, 1+k, 1+2k, ... of each tournament")
    ap.add_argument("--records", type=Path, default=None,
                    help="a folder of kept records (results/officials/records) to replay a sample of")
    ap.add_argument("--tournament", type=Path, nargs="+", default=None,
                    help="tournament folders (as run_tournament saves them) to replay move by move instead")
    a = ap.parse_args(argv)
    if a.every < 1:
        ap.error("--every must be at least 1")
    if a.records:
        try:
            same, differ, notes = check_records(a.records, a.every)
        except StudyError as e:
            ap.error(str(e))
        print(f"{same} of {same + differ} sampled games of {a.records} replay move by move"
              + "".join(f"\n  {x}" for x in notes))
        return 1 if differ else 0
    if a.tournament:
        total = [0, 0]
        for folder in a.tournament:
            if not (folder / "tournament.json").exists() or not (folder / "records.jsonl").exists():
                ap.error(f"{folder}: not a tournament folder (no tournament.json and records.jsonl)")
            same, differ, notes = replay_tournament(folder, a.every)
            total[0] += same
            total[1] += differ
            print(f"{folder}: {same} of {same + differ} sampled games replay move by move"
                  + "".join(f"\n  {x}" for x in notes), flush=True)
        return 1 if total[1] else 0
    df = pd.read_parquet(a.games)
    if not all(b.startswith("heuristic") for b in set(df.bot)):
        ap.error(f"{a.games}: only the heuristic study replays without search budgets; "
                 f"bots here: {sorted(set(df.bot))}")
    same, differ, notes = replay(df, a.every)
    print(f"{same} of {same + differ} sampled games replay identically" + "".join(f"\n  {x}" for x in notes))
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
