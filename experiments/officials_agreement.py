"""The search's officials choices against the `heuristic` bot's (issue 40): at every rated offer of a study's
choice part, the heuristic asked in the same position, and how often it makes the search's choice, with
Cohen's kappa and intervals resampling whole games. Writes <study-dir>/agreement.csv and agreement.md.

    python experiments/officials_agreement.py                                   # results/officials
    python experiments/officials_agreement.py --study-dir results/officials_learned

A study folder holds search_choices.parquet (the choice part's rows) and records/search/ (the kept records
of the games they rate). The library does the work (thurn_ai.studies.officials.agreement); this script
fixes the settings: 1999 resamples, seed 0. CPU: one process, about a minute for the committed study's
41,000 offers (the heuristic takes under a millisecond a position).
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import pandas as pd

from thurn_ai.errors import ThurnError
from thurn_ai.fileio import atomic_to_csv, atomic_write_text, path_text
from thurn_ai.studies import provenance
from thurn_ai.studies.officials import agreement

ROOT = Path(__file__).resolve().parent.parent
STUDY = ROOT / "results" / "officials"
CHOICES = "search_choices.parquet"
RECORDS = Path("records") / "search"
RESAMPLES = 1999
SEED = 0


def run(study: Path, allow_dirty: bool) -> list[agreement.Agreement]:
    if not (study / CHOICES).is_file():
        raise ThurnError(f"{path_text(study)} holds no {CHOICES}: not an officials study folder with a choice part")
    if not (study / RECORDS).is_dir():
        raise ThurnError(f"{path_text(study)} holds no {RECORDS}/: the kept records of the rated games")
    provenance.check_clean(ROOT, allow_dirty)
    code = provenance.code_state(ROOT)
    started = time.time()
    rows = pd.read_parquet(study / CHOICES)
    cells = agreement.measure(rows, study / RECORDS, resamples=RESAMPLES, seed=SEED)
    seconds = time.time() - started
    atomic_to_csv(agreement.agreement_frame(cells), study / agreement.AGREEMENT_TABLE, index=False, float_format="%.6g")
    shown = study.relative_to(ROOT) if study.is_relative_to(ROOT) else study
    atomic_write_text(study / "agreement.md", agreement.markdown(cells, str(shown), code, seconds))
    print(f"agreement: {len(rows)} offers of {shown}, {seconds:.0f} s; {study / 'agreement.md'}")
    return cells


@provenance.script_main(errors=(*provenance.SCRIPT_ERRORS, ValueError))
def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--study-dir", type=Path, default=STUDY,
                    help="a study folder with search_choices.parquet and records/search/ (default results/officials)")
    ap.add_argument("--allow-dirty", action="store_true")
    a = ap.parse_args(argv)
    run(a.study_dir.resolve(), a.allow_dirty)
    return 0


if __name__ == "__main__":
    sys.exit(main())
