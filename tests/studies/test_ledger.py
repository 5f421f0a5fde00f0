"""The ledger (studies/ledger.py) and the search-root replay (studies/sprt_study.py), from committed games."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from thurn_ai.stats.sprt import SPRT
from thurn_ai.studies.ledger import ledger_table, search_root_rows, sprt_rows, with_holm
from thurn_ai.studies.sprt import run_sprt
from thurn_ai.studies.sprt_study import cell_differences

ROOT = Path(__file__).resolve().parents[2]
RUNS = ROOT / "results" / "search_root" / "runs"


def test_search_root_rows_recompute_the_studys_pooled_numbers_and_holm():
    summary = json.loads((ROOT / "results" / "search_root" / "summary.json").read_text(encoding="utf-8"))
    df = with_holm(search_root_rows(ROOT))
    first = df[df["family"] == "anchor-1k vs heuristic"].set_index("candidate")
    gen3 = first.loc[first.index.str.contains("gen3")].iloc[0]
    assert gen3.share == pytest.approx(100 * summary["gen3"]["pooled"]["win_share"], abs=1e-6)
    assert gen3.share_p == pytest.approx(summary["gen3"]["pooled"]["p"], rel=1e-6)
    # Holm over the three candidates that share the anchor's games: the smallest p times three
    assert gen3.p_holm == pytest.approx(min(1, 3 * gen3.share_p))
    assert (first["p_holm"] >= first["share_p"]).all()
    # the rules' tie-break reads generation 3 differently from the shared share (review 6, section 3.1)
    assert gen3.win_lo > 0 and gen3.win != gen3.share


def test_paired_cells_are_on_the_anchors_deals_and_differences_are_bounded():
    d = cell_differences(RUNS, "gen3", 3)
    assert len(d) == 402 and set(np.unique(d)) <= {-1.0, 0.0, 1.0}
    h2h = cell_differences(RUNS, "gen3_h2h", 4, "win_share")
    assert h2h.min() >= -0.25 and h2h.max() <= 0.75


def test_a_sequential_test_becomes_a_ledger_row(tmp_path):
    run_sprt("heuristic", "random", players=2, test=SPRT(0, 20, batch=4, max_deals=100), seed=1,
             out_dir=tmp_path / "sprt" / "h")
    rows = sprt_rows(tmp_path / "sprt", "results/sprt")
    assert len(rows) == 1
    row = rows[0]
    assert (row.candidate, row.baseline, row.verdict, row.primary) == ("heuristic", "random", "accepted (H1)", "win")
    assert row.games == 2 * row.look * 4 and row.source == "results/sprt/h"
    page = "\n".join(ledger_table(with_holm(rows)))
    assert "| sequential | accepted (H1) |" in page


def test_a_sequential_test_among_other_opponents_names_them(tmp_path):
    run_sprt("heuristic", "greedy", players=3, test=SPRT(0, 20, batch=4, max_deals=4), seed=2, opponents="random",
             out_dir=tmp_path / "sprt" / "among")
    run_sprt("heuristic", "greedy", players=3, test=SPRT(0, 20, batch=4, max_deals=4), seed=2,
             out_dir=tmp_path / "sprt" / "plain")
    among, plain = sprt_rows(tmp_path / "sprt", "results/sprt")
    assert (among.yardstick, plain.yardstick) == ("random", "greedy")
    assert among.family == "heuristic vs greedy among random" and plain.family == "heuristic vs greedy"
