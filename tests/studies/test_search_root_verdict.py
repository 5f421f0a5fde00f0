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
    paired = [c for c in S.CELLS if c.name.startswith(("base_", "halving_"))]
    assert all(data["cells"][c.name]["games"] == c.games for c in paired)
    assert data["first_fails"] == (data["pooled"]["low"] <= 0) and not data["adopt"]
    docs = (RESULTS.parents[1] / "docs" / "results.md").read_text(encoding="utf-8")
    assert ("(not adopted)" in docs) == data["first_fails"]


def test_generation_3_is_paired_with_the_anchors_cells_on_their_deals():
    gen3 = [c for c in S.CELLS if c.spec == S.GEN3]
    assert {c.name for c in gen3} == {f"gen3_p{n}" for n in S.GAMES} | {f"gen3_h2h_p{n}" for n in S.GAMES}
    for c in gen3:
        base = S.BY_NAME[f"base_p{c.players}"]
        assert (c.seed, c.games, c.board) == (base.seed, base.games, base.board)
        assert c.others == ("anchor-1k" if "h2h" in c.name else "heuristic")
    # the candidate is the frozen default but for the prior's weights file
    from thurn_ai.bots.default_search import search_identity
    from thurn_ai.bots.spec import BotSpec
    mine = BotSpec.parse(S.GEN3)
    here = mine.with_(pmodel=str(RESULTS.parents[1] / mine.option("pmodel")))
    anchor, gen3 = search_identity(BotSpec.parse("anchor-1k")), search_identity(here)
    assert gen3["options"] == anchor["options"]
    assert gen3["files"]["value"] == anchor["files"]["value"] and gen3["files"]["prior"] != anchor["files"]["prior"]
