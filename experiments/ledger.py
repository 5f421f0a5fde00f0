"""The ledger of candidates against baselines: reproduces results/ledger/ (no new games).

    python experiments/ledger.py      # results/ledger/ledger.csv and README.md

Rows: thurn_ai.studies.ledger (the search-root study's tests, recomputed from its committed games under both tie
conventions, Holm over the three candidates that share the anchor's games; every sequential test saved under
results/sprt/). Results must come from committed
code: the script refuses uncommitted changes unless --allow-dirty.
"""
from __future__ import annotations

import argparse
from pathlib import Path

from thurn_ai.fileio import atomic_to_csv, atomic_write_text
from thurn_ai.studies.ledger import front_page, search_root_rows, sprt_rows, with_holm
from thurn_ai.studies.provenance import committed_code_or_exit

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "results" / "ledger"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument("--allow-dirty", action="store_true")
    args = ap.parse_args(argv)
    code = committed_code_or_exit(ROOT, args.allow_dirty)
    df = with_holm(search_root_rows(ROOT) + sprt_rows(ROOT / "results" / "sprt", "results/sprt"))
    args.out.mkdir(parents=True, exist_ok=True)
    atomic_to_csv(df.round(4), args.out / "ledger.csv", index=False)
    atomic_write_text(args.out / "README.md", front_page(df, code))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
