"""docs/review.md shows a real review as `thurn-ai review` prints it today (experiments/review_example.py writes
it there): the page and the command's output must not drift apart."""
from __future__ import annotations

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _example():
    spec = importlib.util.spec_from_file_location("review_example", ROOT / "experiments" / "review_example.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_page_shows_the_review_as_it_prints_today():
    example = _example()
    page = (ROOT / "docs" / "review.md").read_text(encoding="utf-8")
    shown = example.shown(page)
    assert shown is not None, "docs/review.md lost its review example"
    assert shown == example.block(example.output()), \
        "docs/review.md's review example is stale: run python experiments/review_example.py"
