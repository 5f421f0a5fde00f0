"""The committed officials reports rebuild, from their committed data and through the library's renderers, to
the committed text: a renderer changed (merged, its numbers named another way) must still say what the report
says. The commits a report names are masked: a rebuild runs at another commit."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pandas as pd

from thurn_ai.studies.officials import rulecard, rulecard_report
from thurn_ai.studies.officials import symmetric as sym
from thurn_ai.studies.officials import symmetric_report as rep
from thurn_ai.studies.officials.findings import rulecard_findings

from tests.helpers import experiment

ROOT = Path(__file__).resolve().parents[2]
OFFICIALS = ROOT / "results" / "officials"


def _masked(text: str) -> list[str]:
    """The text's lines with every commit hash (7 to 40 hex digits) masked."""
    return [re.sub(r"\b[0-9a-f]{7,40}\b", "<commit>", line) for line in text.splitlines()]


def test_the_rule_cards_report_rebuilds_to_the_committed_text():
    script = experiment("officials_rulecard")
    play = rulecard.paired_play_table(pd.read_parquet(OFFICIALS / "rulecard_games.parquet"))
    runs = json.loads((OFFICIALS / script.RUNS).read_text())
    played = list(dict.fromkeys(r["code"] + (f" (rebased as {r['rebased_as']})" if r.get("rebased_as") else "")
                                for r in runs if r.get("part") == "rulecard play"))
    f = rulecard_findings(pd.read_csv(OFFICIALS / "rulecard_agreement.csv"), play, search=script.SEARCH,
                          games=script.GAMES, seeds=script.SEEDS, code="0000000", played_at=", ".join(played))
    assert _masked("\n".join(rulecard_report.report_lines(f))) == _masked((OFFICIALS / "rulecard.md").read_text())


def test_the_designers_pilot_report_rebuilds_to_the_committed_text():
    out = ROOT / "results" / "officials_design" / "pilot"
    script = experiment("officials_design")
    games = pd.read_parquet(out / script.GAMES)
    levels, comparison = sym.levels_table(games), sym.comparison_table(games)
    command = next(x for x in (out / "report.md").read_text().splitlines() if x.startswith("Reproduce:"))
    command = command.split("`")[1]            # the pilot's own command (its hosts and games)
    cells = script.design(("heuristic",), 24)
    text = rep.report(games, levels, comparison, rep.planned_table(games, cells), "0000000", command,
                      ["design_heuristic.png"], True)
    assert _masked(text) == _masked((out / "report.md").read_text())


def test_the_rule_cards_report_into_another_folder_leaves_the_readme_and_docs_alone(tmp_path, capsys):
    """Only the committed study's card goes into README.md and docs/officials-advice.md: a report written
    elsewhere (a try, a rebuild to compare) must not rewrite the source tree's pages."""
    import shutil
    script = experiment("officials_rulecard")
    for name in ("rulecard_agreement.csv", "rulecard_games.parquet", script.RUNS):
        shutil.copy(OFFICIALS / name, tmp_path / name)
    pages = [ROOT / "README.md", ROOT / "docs" / "officials-advice.md"]
    before = [p.stat().st_mtime_ns for p in pages]
    script.main(["--part", "report", "--out", str(tmp_path)])
    assert [p.stat().st_mtime_ns for p in pages] == before
    assert (tmp_path / "rulecard.md").read_text().startswith("# ") and "keep their card" in capsys.readouterr().out
