"""The ledger of candidates against baselines: reproduces results/ledger/ (no new games).

    python experiments/ledger.py      # results/ledger/ledger.csv and README.md

Rows: thurn_ai.studies.ledger (the search-root study's tests, recomputed from its committed games under both tie
conventions, Holm over the three candidates that share the anchor's games; every sequential test saved under
results/sprt/ and results/search_compute/). Results must come from committed
code: the script refuses uncommitted changes unless --allow-dirty.
"""
from __future__ import annotations

import argparse
from pathlib import Path

import pandas as pd

from thurn_ai.fileio import atomic_to_csv
from thurn_ai.studies.findings import Findings, Number, front_page
from thurn_ai.studies.ledger import TITLE, ledger_table, search_root_rows, sprt_rows, with_holm
from thurn_ai.studies.provenance import committed_code_or_exit

#: the line the results folder's front page opens with (docs/development.md, a study's life)
STATUS = ('benchmark. Every candidate tested against a baseline, with its rule, its looks and its verdict under '
          'both tie conventions.')

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "results" / "ledger"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument("--allow-dirty", action="store_true")
    args = ap.parse_args(argv)
    code = committed_code_or_exit(ROOT, args.allow_dirty)
    df = with_holm(search_root_rows(ROOT) + sprt_rows(ROOT / "results" / "sprt", "results/sprt")
                   + sprt_rows(ROOT / "results" / "search_compute", "results/search_compute"))
    args.out.mkdir(parents=True, exist_ok=True)
    atomic_to_csv(df.round(4), args.out / "ledger.csv", index=False)
    numbers = {}
    for r in df.itertuples():
        key = f"{r.family.replace(' ', '_')}.{r.Index + 1}"
        for conv, col in (("win", "win"), ("share", "share")):
            numbers[f"{key}.{conv}"] = Number(getattr(r, col), getattr(r, f"{col}_lo"), getattr(r, f"{col}_hi"),
                                              unit="difference", digits=1, games=int(r.games),
                                              says=f"{r.candidate} against {r.baseline}, look {r.look}, {conv}")
        if not pd.isna(r.p_holm):
            numbers[f"{key}.p_holm"] = Number(r.p_holm, unit="p", games=int(r.games), says="Holm-corrected p")
    findings = Findings(status=STATUS, study=args.out.name,
                        title=TITLE, command="python experiments/ledger.py", commit=code,
                        numbers=numbers)
    front_page(args.out, findings, ledger_table(df))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
