"""Write the review that docs/review.md shows, as `thurn-ai review` prints it today, into the page (between its
`<!-- review-example -->` markers); tests/play/test_review_docs.py fails when the page and the command differ.

    python experiments/review_example.py
"""
from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "docs" / "review.md"
#: the command the page shows (run from the repository's root, no cache)
COMMAND = ["thurn-ai", "review", "examples/review_game.jsonl", "--seats", "0", "--moves", "120-150", "--no-cache"]
START, END = "<!-- review-example: start -->", "<!-- review-example: end -->"


def output() -> str:
    """What COMMAND prints (its stdout), run by this Python's thurn_ai."""
    env = {**os.environ, "THURN_AI_CACHE": tempfile.mkdtemp()}
    cmd = [sys.executable, "-c", "from thurn_ai.cli import main; main()", *COMMAND[1:]]
    return subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, check=True).stdout


def block(text: str) -> str:
    return f"{START}\n```\n$ {' '.join(COMMAND[:-1])}\n{text.rstrip()}\n```\n{END}"


def shown(page: str) -> str | None:
    """The block the page shows now (None: no markers)."""
    m = re.search(re.escape(START) + r".*?" + re.escape(END), page, re.S)
    return m.group(0) if m else None


def main() -> None:
    page = PAGE.read_text(encoding="utf-8")
    old = shown(page)
    if old is None:
        raise SystemExit(f"{PAGE} has no {START} ... {END} block")
    PAGE.write_text(page.replace(old, block(output())), encoding="utf-8")
    print(f"wrote the review example into {PAGE}")


if __name__ == "__main__":
    main()
