"""The officials' rule card (issue 40): joint rules fitted to the search's choices on half the games and
checked on the other half, and a bot that follows the card played against the heuristic bot and against
the search. Reproduces results/officials/rulecard*.

    python experiments/officials_rulecard.py                  # fit, play (resumes), report
    python experiments/officials_rulecard.py --part fit       # the held-out agreement only (seconds)
    python experiments/officials_rulecard.py --part report    # the report from the saved files

The library does the work (thurn_ai.studies.officials.rulecard, rulecard_report); this script fixes the
settings. Fixed before any game was played: the split's seed (rulecard.SPLIT_SEED), the opponents, the
game counts (GAMES) and the seeds (SEEDS). CPU budget of the run: one process (--jobs 1), about 30 CPU
minutes of games (the heuristic's games take a fraction of a second each, the search's one or two seconds).
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import pandas as pd

from thurn_ai.fileio import atomic_to_csv, atomic_to_parquet
from thurn_ai.studies import provenance
from thurn_ai.studies.officials import rulecard

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "results" / "officials"
OFFERS = OUT / "search_choices.parquet"
RAW = ROOT / "results" / "tmp_rulecard"        # tournaments as they are played (ignored by git; resumable)

#: the search the card was fitted on (the officials study's, its hand-set prior spelled out: the mcts
#: default changed since), at 300 iterations a move instead of the study's 1000 (the CPU budget)
SEARCH = ("mcts(select=puct,prior=0.8,c=1.0,reward=mixed,playout=heuristic,horizon=3,eval=learned,"
          "policy=handset,iterations=300)")
#: games per cell (the card's and its control's: the same number, the same deals), whole seat rotations
GAMES = {"heuristic": {2: 600, 3: 600, 4: 600}, SEARCH: {2: 120, 3: 120, 4: 120}}
#: one seed per opponent and player count, shared by the card's cell and its control (paired deals)
SEEDS = {"heuristic": 4000, SEARCH: 4100}


def fit(out: Path) -> pd.DataFrame:
    offers = pd.read_parquet(OFFERS)
    fitted = rulecard.fit_card(offers[rulecard.split_by_game(offers)])
    if fitted != rulecard.CARD:
        sys.exit("error: the committed offers fit another card than rulecard.CARD (the bot's); "
                 f"fitted: {fitted}")
    table = rulecard.agreement_table(offers)
    atomic_to_csv(table, out / "rulecard_agreement.csv", index=False, float_format="%.6g")
    print(f"fit: {len(offers)} offers, split seed {rulecard.SPLIT_SEED}; the card is rulecard.CARD")
    return table


def play(out: Path, jobs: int, allow_dirty: bool) -> pd.DataFrame:
    provenance.check_clean(ROOT, allow_dirty)
    code = provenance.code_state(ROOT)
    frames, started = [], time.time()
    for opponent, counts in GAMES.items():
        for n, games in counts.items():
            t = time.time()
            frames.append(rulecard.play_cells(opponent, n, games, SEEDS[opponent] + n, jobs=jobs,
                                              out_dir=RAW / ("heuristic" if opponent == "heuristic" else "search")))
            print(f"play: {opponent} at {n} players, {games} games a cell, {time.time() - t:.0f} s", flush=True)
    rows = pd.concat(frames, ignore_index=True)
    atomic_to_parquet(rows, out / "rulecard_games.parquet", index=False)
    provenance.log_run(out, "rulecard play", time.time() - started, code, jobs=jobs,
                       games={k if k == "heuristic" else "search": v for k, v in GAMES.items()},
                       seeds={k if k == "heuristic" else "search": v for k, v in SEEDS.items()}, search=SEARCH)
    return rows


def report(out: Path) -> None:
    from thurn_ai.studies.officials import rulecard_report

    agreement = pd.read_csv(out / "rulecard_agreement.csv")
    rows = pd.read_parquet(out / "rulecard_games.parquet")
    play_table = rulecard.paired_play_table(rows)
    atomic_to_csv(play_table, out / "rulecard_play.csv", index=False, float_format="%.6g")
    rulecard_report.write(out, ROOT, agreement, play_table, search=SEARCH, games=GAMES, seeds=SEEDS,
                          code=provenance.code_state(ROOT))
    print(f"report: {out / 'rulecard.md'}; the card in README.md and docs/officials-advice.md")


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--part", choices=("all", "fit", "play", "report"), default="all")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument("--allow-dirty", action="store_true")
    a = ap.parse_args(argv)
    try:
        if a.part in ("all", "fit"):
            fit(a.out)
        if a.part in ("all", "play"):
            play(a.out, a.jobs, a.allow_dirty)
        if a.part in ("all", "report"):
            report(a.out)
    except provenance.DirtyTree as e:
        sys.exit(f"error: {e}")


if __name__ == "__main__":
    main()
