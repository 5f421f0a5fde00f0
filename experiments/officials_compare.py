"""How the officials advice changes with the search (issue 40): the search study's choice part, played and
rated by another search (experiments/officials.py --search-bot ..., into its own folder), compared with the
study's. Writes <after>/compared.csv and <after>/compared.md.

    python experiments/officials_compare.py --after results/officials_learned
    python experiments/officials_compare.py --before results/officials --after DIR

Each folder holds a choice part's search_choices.parquet (and, where experiments/officials_agreement.py has
run, agreement.csv: the player's agreement with the heuristic bot at the offers, shown before and after).
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import pandas as pd

from thurn_ai.fileio import atomic_to_csv, atomic_write_text
from thurn_ai.studies import provenance
from thurn_ai.studies.officials.compare_searches import advice_shift, shift_lines

ROOT = Path(__file__).resolve().parent.parent
CHOICES = "search_choices.parquet"


def search_name(rows: pd.DataFrame) -> str:
    """The study's search as the rows name it (its spec text at the first count)."""
    return f"`{rows.bot.iloc[0]}`" if "bot" in rows and len(rows) else "(unnamed)"


def agreement_lines(before: Path, after: Path) -> list[str]:
    """The agreement with the heuristic bot before and after, per official over every count, if both have it."""
    files = [before / "agreement.csv", after / "agreement.csv"]
    if not all(f.exists() for f in files):
        return ["(No agreement with the heuristic bot here: run experiments/officials_agreement.py on both "
                "folders.)"]
    a, b = (pd.read_csv(f) for f in files)
    return ["Agreement with the heuristic bot at the same offers (experiments/officials_agreement.py): before / "
            "after.", "", "```", pd.merge(a, b, on=[c for c in ("players", "official") if c in a and c in b],
                                          suffixes=(" before", " after")).to_string(index=False), "```"]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--before", type=Path, default=ROOT / "results" / "officials")
    ap.add_argument("--after", type=Path, required=True)
    args = ap.parse_args(argv)
    missing = [str(d / CHOICES) for d in (args.before, args.after) if not (d / CHOICES).is_file()]
    if missing:
        print(f"error: no rated decisions in {', '.join(missing)} (run the choice part there first)", file=sys.stderr)
        return 2
    before, after = (pd.read_parquet(d / CHOICES) for d in (args.before, args.after))
    t = advice_shift(before, after)
    atomic_to_csv(t, args.after / "compared.csv", index=False)
    lines = ["# The officials advice: two searches compared", "",
             f"Before: {search_name(before)} ({args.before}, {before.groupby(['source', 'game']).ngroups} games). "
             f"After: {search_name(after)} ({args.after}, {after.groupby(['source', 'game']).ngroups} games). "
             "Each search played its own control games (self-play at 1000 iterations a move) and its offers are "
             "rated by itself; the deals differ between the two.", "",
             *shift_lines(t, "before", "after"), "", *agreement_lines(args.before, args.after), "",
             f"Built at commit `{provenance.commit(ROOT)}` by `python experiments/officials_compare.py "
             f"--before {args.before} --after {args.after}`.", ""]
    atomic_write_text(args.after / "compared.md", "\n".join(lines))
    print(f"wrote {args.after / 'compared.md'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
