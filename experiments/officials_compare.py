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
from thurn_ai.studies.officials.agreement import AGREEMENT_TABLE
from thurn_ai.studies.markdown import pct, table
from thurn_ai.studies.officials.compare_searches import advice_shift, shift_lines

ROOT = Path(__file__).resolve().parent.parent
CHOICES = "search_choices.parquet"


def search_name(rows: pd.DataFrame) -> str:
    """The study's search as the rows name it (its spec text at the first count; the data played before mcts had
    the policy option name the hand-set prior they used: experiments/officials_policy.py)."""
    return f"`{rows.bot.iloc[0]}`" if "bot" in rows and len(rows) else "(unnamed)"


def shown(path: Path) -> str:
    """A folder as the report names it: relative to the repository where it is inside it."""
    try:
        return str(path.resolve().relative_to(ROOT))
    except ValueError:
        return str(path)


def agreement_lines(before: Path, after: Path) -> list[str]:
    """The player's agreement with the heuristic bot at the offers, before and after, per official over every
    player count (the played choice; agreement.csv of each folder), if both folders have it."""
    files = [before / AGREEMENT_TABLE, after / AGREEMENT_TABLE]
    if not all(f.exists() for f in files):
        return ["(No agreement with the heuristic bot here: run experiments/officials_agreement.py on both "
                "folders.)"]
    a, b = (pd.read_csv(f, dtype={"players": str}) for f in files)
    keep = ["official", "offers", "agreement", "agreement_low", "agreement_high", "kappa", "kappa_low", "kappa_high"]
    m = pd.merge(*(t[(t.players == "all") & (t.choice == "played")][keep] for t in (a, b)), on="official",
                 suffixes=("_before", "_after"))

    def k(r, side):
        x = getattr(r, f"kappa_{side}")
        return "–" if pd.isna(x) else (f"{x:.2f} [{getattr(r, f'kappa_low_{side}'):.2f}, "
                                       f"{getattr(r, f'kappa_high_{side}'):.2f}]")

    lines = ["The player's own choice at the offers against the heuristic bot's in the same position "
             "(experiments/officials_agreement.py; every player count, 95% intervals resampling whole games; "
             "κ – where a side always or never uses it):", ""]
    return lines + table(["official", "offers before / after", "agreement before", "after", "κ before", "κ after"],
                         ([r.official, f"{r.offers_before} / {r.offers_after}", pct(r.agreement_before),
                           pct(r.agreement_after), k(r, "before"), k(r, "after")] for r in m.itertuples()))


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
    games = [rows.groupby(["source", "game"]).ngroups for rows in (before, after)]
    lines = ["# The officials advice: two searches compared", "",
             f"Before: {search_name(before)} ({shown(args.before)}, {games[0]} games). "
             f"After: {search_name(after)} ({shown(args.after)}, {games[1]} games). "
             "Each search played its own control games (self-play at 1000 iterations a move) and its offers are "
             "rated by itself; the deals differ between the two.", "",
             *shift_lines(t, "before", "after"), "", *agreement_lines(args.before, args.after), "",
             f"Built at commit `{provenance.commit(ROOT)}` by `python experiments/officials_compare.py "
             f"--before {shown(args.before)} --after {shown(args.after)}`.", ""]
    atomic_write_text(args.after / "compared.md", "\n".join(lines))
    print(f"wrote {args.after / 'compared.md'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
