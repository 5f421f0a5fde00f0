"""The officials' rule card (issue 40): joint rules fitted to the search's choices on half the games and
checked on the other half, and a bot that follows the card played against the heuristic bot and against
the search. Reproduces results/officials/rulecard*.

    python experiments/officials_rulecard.py                  # fit, play (resumes), report
    python experiments/officials_rulecard.py --part fit       # the held-out agreement only (seconds)
    python experiments/officials_rulecard.py --part report    # the report from the saved files
    python experiments/officials_rulecard.py --part fit --records DIR/2p_none/records.jsonl ... --out DIR
    python experiments/officials_rulecard.py --part fit --records DIR/records/search/2p_none.jsonl.gz ... --out DIR
                                          # the card another search's self-play games fit (no ratings needed)

The library does the work (thurn_ai.studies.officials.rulecard, rulecard_report); this script fixes the
settings. Fixed before any game was played: the split's seed (rulecard.SPLIT_SEED), the opponents, the
game counts (GAMES) and the seeds (SEEDS). CPU budget of the run: one process (--jobs 1), about 30 CPU
minutes of games (the heuristic's games take a fraction of a second each, the search's one or two seconds).
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import pandas as pd

from thurn_ai.fileio import atomic_to_csv, atomic_to_parquet
from thurn_ai.studies import provenance
from thurn_ai.studies.pages import refresh
from thurn_ai.studies.officials import records as kept_records, rulecard

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "results" / "officials"
OFFERS = OUT / "search_choices.parquet"
RUNS = "rulecard_runs.json"                    # the runs of the play part: code, seconds, settings
RAW = ROOT / "results" / "tmp_rulecard"        # tournaments as they are played (ignored by git; resumable)

#: the search the card was fitted on (the officials study's, its hand-set prior spelled out: the mcts
#: default changed since), at 300 iterations a move instead of the study's 1000 (the CPU budget)
SEARCH = ("mcts(select=puct,prior=0.8,c=1.0,reward=mixed,playout=heuristic,horizon=3,eval=learned,"
          "policy=handset,iterations=300)")
#: games per cell (the card's and its control's: the same number, the same deals), whole seat rotations.
#: The search's 3- and 4-player cells were cut from 120 to 60 while the heuristic's cells were being played
#: and before any game against the search had been played: the machine was shared and the wall time short.
GAMES = {"heuristic": {2: 600, 3: 600, 4: 600}, SEARCH: {2: 120, 3: 60, 4: 60}}
#: one line of the card at a time (rulecard(only=...): the heuristic's own choices for the other officials),
#: at 3 players against heuristic, on the deals of the whole card's cells (paired with the same control):
#: which line costs what. Added after the whole card's cells against heuristic had been played (the card
#: lost at 3 players), before any of these games; 600 games a cell like the whole card's. The Cartwright's
#: line ("always") differs from the heuristic only at a game-ending carriage taken while behind: not played.
ONLY = {3: ("postmaster", "administrator", "postal_carrier")}
#: one seed per opponent and player count, shared by the card's cell and its control (paired deals)
SEEDS = {"heuristic": 4000, SEARCH: 4100}


def fit(out: Path, records: list[Path] | None = None) -> pd.DataFrame:
    """The held-out agreement of every rule on the study's offers; with `records` (tournaments'
    records.jsonl: another search's self-play), on the offers of those games instead (saved as
    rulecard_offers.parquet), and the card they fit is printed (the bot's card stays rulecard.CARD)."""
    if records:
        offers = pd.concat([rulecard.offers_from_records(p, source=kept_records.tournament_name(p)) for p in records],
                           ignore_index=True)
        atomic_to_parquet(offers, out / "rulecard_offers.parquet", index=False)
    else:
        offers = pd.read_parquet(OFFERS)
    fitted = rulecard.fit_card(offers[rulecard.split_by_game(offers)])
    if records:
        for n, o, r in fitted.rules:
            print(f"fit: {n} players, {o}: {r.text()} (the bot's card: {rulecard.CARD.rule(n, o).text()})")
    elif fitted != rulecard.CARD:
        sys.exit("error: the committed offers fit another card than rulecard.CARD (the bot's); "
                 f"fitted: {fitted}")
    table = rulecard.agreement_table(offers)
    atomic_to_csv(table, out / "rulecard_agreement.csv", index=False, float_format="%.6g")
    print(f"fit: {len(offers)} offers, split seed {rulecard.SPLIT_SEED}" + ("" if records else
                                                                            "; the card is rulecard.CARD"))
    return table


def play(out: Path, jobs: int, allow_dirty: bool) -> pd.DataFrame:
    provenance.check_clean(ROOT, allow_dirty)
    code = provenance.code_state(ROOT)
    frames, started = [], time.time()
    for opponent, counts in GAMES.items():
        for n, games in counts.items():
            t = time.time()
            cards = ("rulecard", *(f"rulecard(only={o})" for o in (ONLY.get(n, ()) if opponent == "heuristic" else ())))
            frames.append(rulecard.play_cells(opponent, n, games, SEEDS[opponent] + n, jobs=jobs, cards=cards,
                                              out_dir=RAW / ("heuristic" if opponent == "heuristic" else "search")))
            print(f"play: {opponent} at {n} players, {games} games a cell, {time.time() - t:.0f} s", flush=True)
    rows = pd.concat(frames, ignore_index=True)
    atomic_to_parquet(rows, out / "rulecard_games.parquet", index=False)
    provenance.log_run(out, "rulecard play", time.time() - started, code, runs_file=RUNS, jobs=jobs,
                       games={k if k == "heuristic" else "search": v for k, v in GAMES.items()},
                       seeds={k if k == "heuristic" else "search": v for k, v in SEEDS.items()}, search=SEARCH,
                       only={str(k): list(v) for k, v in ONLY.items()})
    return rows


def report(out: Path) -> None:
    from thurn_ai.studies.officials import rulecard_report
    from thurn_ai.studies.officials.findings import rulecard_findings

    agreement = pd.read_csv(out / "rulecard_agreement.csv")
    rows = pd.read_parquet(out / "rulecard_games.parquet")
    published = out.resolve() == OUT.resolve()     # only the committed study's card goes into the docs
    play_table = rulecard.paired_play_table(rows)
    atomic_to_csv(play_table, out / "rulecard_play.csv", index=False, float_format="%.6g")
    runs = json.loads((out / RUNS).read_text()) if (out / RUNS).exists() else []
    # a run's commit, and the same code's commit after the branch was rebased onto main (rebased_as)
    played = list(dict.fromkeys(r["code"] + (f" (rebased as {r['rebased_as']})" if r.get("rebased_as") else "")
                                for r in runs if r.get("part") == "rulecard play"))
    rulecard_report.write(out, ROOT, rulecard_findings(agreement, play_table, search=SEARCH, games=GAMES, seeds=SEEDS,
                                                       code=provenance.code_state(ROOT),
                                                       played_at=", ".join(played) or "unknown"),
                          pages=published)
    refresh(out)
    print(f"report: {out / 'rulecard.md'}" + ("; the card in docs/officials-advice.md" if published else
                                               " (another folder than results/officials: the docs keep their card)"))


@provenance.script_main(errors=(*provenance.SCRIPT_ERRORS, ValueError))
def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--part", choices=("all", "fit", "play", "report"), default="all")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument("--allow-dirty", action="store_true")
    ap.add_argument("--records", type=Path, nargs="+", default=None,
                    help="fit on the offers of these tournaments' records.jsonl (another search's self-play)")
    a = ap.parse_args(argv)
    if a.part in ("all", "fit"):
        a.out.mkdir(parents=True, exist_ok=True)
        fit(a.out, a.records)
    if a.part in ("all", "play"):
        play(a.out, a.jobs, a.allow_dirty)
    if a.part in ("all", "report"):
        report(a.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
