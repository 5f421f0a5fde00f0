"""Every results folder's findings.json and README.md, rebuilt from the data saved in it (no game is replayed).

    python experiments/results_pages.py              # every folder of results/
    python experiments/results_pages.py expert bench # only these

The numbers come from the files each study saved (thurn_ai.studies.pages names which); a README.md that was
written by hand is kept as the folder's NOTES.md and appended to the front page.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from thurn_ai.studies.pages import PAGES, write_page

ROOT = Path(__file__).resolve().parent.parent


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("folders", nargs="*", help=f"folders of results/ (default: all: {', '.join(PAGES)})")
    ap.add_argument("--results", type=Path, default=ROOT / "results", help="the results folder")
    args = ap.parse_args(argv)
    unknown = [f for f in args.folders if f not in PAGES]
    if unknown:
        print(f"error: no front page for {', '.join(unknown)} (known: {', '.join(PAGES)})", file=sys.stderr)
        return 2
    for name in args.folders or PAGES:
        print(f"wrote {write_page(args.results, name)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
