"""The officials study's data name the move prior they searched with (issue 54): a migration of the spec texts.

    python experiments/officials_policy.py            # rewrite results/officials' tables (idempotent)
    python experiments/officials_policy.py --check    # list what it would change, change nothing

mcts took its `policy` option at commit 64fd925 (2026-11-27), and its default became the learned prior; before,
every search used the hand-set one. A spec text recorded before, `mcts(...,eval=learned,iterations=1000)`, meant
the hand-set prior, but read today (by a rebuilt report, by a replay) it means the learned one. This rewrites
the spec texts of the tables played before that commit to say what they searched with, `policy=handset` before
the budget (as a spec written today spells it), and leaves every other value as it was. A spec that names a
policy is left alone, so a second run changes nothing. The kept game records (records/, their settings beside
them) keep the texts they were played with: they are the games as played, not a table a report reads.
"""
from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

import pandas as pd

from thurn_ai.fileio import atomic_to_parquet
from thurn_ai.studies.provenance import script_main

ROOT = Path(__file__).resolve().parent.parent
#: the tables of results/officials played before mcts had the policy option, and their spec columns
TABLES = {"search_games.parquet": ("bot",), "search_choices.parquet": ("bot", "search"),
          "heuristic_choices.parquet": ("search",), "turns_rated.parquet": ("search",),
          "validation_games.parquet": ("bot", "spec")}
#: the bots whose options are mcts's (the rated bot follows a rating with mcts searches)
SEARCHES = ("mcts", "rated")
_SPEC = re.compile(r"\b(%s)\(([^)]*)\)" % "|".join(SEARCHES))


def with_handset(text):
    """A spec text of a search recorded before the policy option, with the prior it used written out:
    'mcts(eval=learned,iterations=1000) #2' -> 'mcts(eval=learned,policy=handset,iterations=1000) #2'. A text
    that names a policy, or names no search, comes back as it was."""
    def add(m: re.Match) -> str:
        options = m.group(2).split(",") if m.group(2) else []
        if any(o.startswith("policy=") for o in options):
            return m.group(0)
        at = next((i for i, o in enumerate(options) if o.startswith(("iterations=", "time="))), len(options))
        return f"{m.group(1)}({','.join(options[:at] + ['policy=handset'] + options[at:])})"
    return _SPEC.sub(add, text) if isinstance(text, str) else text


def migrate(folder: Path, write: bool = True) -> dict[str, int]:
    """{table: values changed} of folder's TABLES (a missing one is skipped); write: rewrite the changed ones
    (atomically), else only count."""
    changed = {}
    for name, columns in TABLES.items():
        path = folder / name
        if not path.is_file():
            continue
        df = pd.read_parquet(path)
        n = 0
        for c in columns:
            new = df[c].map(with_handset)
            n += int((new.ne(df[c]) & new.notna()).sum())      # a missing text stays missing
            df[c] = new
        changed[name] = n
        if n and write:
            atomic_to_parquet(df, path, index=False)
    return changed


@script_main
def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--study", type=Path, default=ROOT / "results" / "officials", help="the study's folder")
    ap.add_argument("--check", action="store_true", help="count what would change, change nothing")
    args = ap.parse_args(argv)
    for name, n in migrate(args.study, write=not args.check).items():
        print(f"{name}: {n} spec texts {'to change' if args.check else 'changed'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
