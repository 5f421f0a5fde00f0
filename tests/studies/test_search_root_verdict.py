"""The halving root's adoption verdict: settled once the paired cells fail condition (1)."""
from pathlib import Path

from thurn_ai.studies import search_root as S
from thurn_ai.studies.search_root_report import verdict

RESULTS = Path(__file__).resolve().parents[2] / "results" / "search_root"


def test_a_failed_first_condition_settles_the_verdict_before_the_head_to_head():
    assert "pending" in verdict({"adopt": False, "complete": False, "first_fails": False})
    said = verdict({"adopt": False, "complete": False, "first_fails": True})
    assert "not adopted" in said and "condition (1) fails" in said
    assert "**adopted**" in verdict({"adopt": True, "complete": True, "first_fails": False})


def test_the_committed_cells_give_the_verdict_the_docs_state():
    data = S.summary(RESULTS / "runs")
    paired = [c for c in S.CELLS if not c.name.startswith("h2h")]
    assert all(data["cells"][c.name]["games"] == c.games for c in paired)
    assert data["first_fails"] == (data["pooled"]["low"] <= 0) and not data["adopt"]
    docs = (RESULTS.parents[1] / "docs" / "results.md").read_text(encoding="utf-8")
    assert ("(not adopted)" in docs) == data["first_fails"]
