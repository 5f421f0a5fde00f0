"""Carry an unfinished officials study to another machine: save its raw folder compressed, restore it there.

    python experiments/officials_save.py save                  # results/officials/raw -> results/officials/saved
    python experiments/officials_save.py restore               # results/officials/saved -> results/officials/raw
    python experiments/officials_save.py save --raw STUDY/raw --saved results/officials/saved

The study takes many hours of play; its raw folder (results.csv and records.jsonl of every tournament, the
rated decisions) is what a restarted run resumes from, and it is not committed. `save` writes every file
of it as <path>.gz under the saved folder (complete lines only, no timestamps, so an unchanged file gives
the same bytes and a commit of the saved folder grows only by what was played since). `restore` writes
them back into an empty raw folder (a file there that differs is refused); then start the study again
with the same settings and it goes on where the save left it. The saved folder is removed once the
study is finished: its kept records (`--part records`) are what a reader checks the report against.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from thurn_ai.studies.provenance import script_main
from thurn_ai.studies.officials.records import restore_raw, save_raw

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "results" / "officials"


@script_main
def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("action", choices=("save", "restore"))
    ap.add_argument("--raw", type=Path, default=OUT / "raw", help="the study's raw folder")
    ap.add_argument("--saved", type=Path, default=OUT / "saved", help="the folder of the compressed copy")
    args = ap.parse_args(argv)
    if args.action == "save":
        changed = save_raw(args.raw, args.saved)
        print(f"saved {len(changed)} changed files into {args.saved}")
    else:
        written = restore_raw(args.saved, args.raw)
        print(f"restored {len(written)} files into {args.raw}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
