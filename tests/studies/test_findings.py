"""The research wing's Markdown formats and table writer, and findings as data (issue 54)."""
from __future__ import annotations

import json
import math

import pytest

from thurn_ai.studies.findings import FINDINGS_FILE, Findings, FindingsError, Number, front_page
from thurn_ai.studies.markdown import num, p_text, pct, pp, table


def test_formats_print_missing_numbers_as_a_dash():
    assert pct(0.8291) == "82.9%" and pct(0.7, 0) == "70%" and pct(math.nan) == "–" and pct(None) == "–"
    assert pp(0.047, 0.014, 0.081) == "+4.7 pp [+1.4, +8.1]" and pp(-0.02) == "-2.0 pp"
    assert pp(0.1, math.nan, 0.2) == "–"
    assert num(0.61, 0.14, 1.07) == "+0.61 [+0.14, +1.07]" and num(1, math.nan, 2) == "–"
    assert p_text(0.0123) == "0.012" and p_text(1e-12) == "< 1e-10" and p_text(math.nan) == "–"


def test_table_writes_the_header_rule_and_rows():
    lines = table(["a", "b", "c"], [[1, "x", ""], [2.5, "y", "z"]], right="lrr")
    assert lines == ["| a | b | c |", "|---|---:|---:|", "| 1 | x |  |", "| 2.5 | y | z |"]
    assert table(["a"], [], right=[0]) == ["| a |", "|---:|"]
    with pytest.raises(ValueError, match="2 cells in a table of 3 columns"):
        table(["a", "b", "c"], [[1, 2]])


def _findings() -> Findings:
    return Findings("demo", "A demo study", "python experiments/demo.py", "abc1234",
                    {"win": Number(0.829, 0.787, 0.864, "share", games=402, says="win rate"),
                     "gain": Number(0.047, 0.014, 0.081, "pp", says="pooled gain"),
                     "speed": Number(6.8e6, 6.76e6, 7.53e6, "number", digits=0),
                     "p": Number(0.0051, unit="p")},
                    games={"cell": 402}, played_at=("a8df91d",))


def test_numbers_print_in_their_unit():
    f = _findings()
    assert f.number("win").text() == "82.9% [78.7, 86.4]"
    assert f.number("gain").text() == "+4.7 pp [+1.4, +8.1]"
    assert f.number("speed").text() == "6,800,000 [6,760,000, 7,530,000]"
    assert f.number("p").text() == "0.0051"
    with pytest.raises(FindingsError, match="results/demo/findings.json has no number 'nope'"):
        f.number("nope")
    with pytest.raises(FindingsError, match="unknown unit"):
        Number(1.0, unit="furlongs")
    with pytest.raises(FindingsError, match="both ends"):
        Number(1.0, lo=0.5)


def test_findings_round_trip_through_their_file(tmp_path):
    f = _findings()
    path = f.save(tmp_path)
    assert path.name == FINDINGS_FILE and json.loads(path.read_text())["numbers"]["win"]["games"] == 402
    assert Findings.load(tmp_path) == f
    path.write_text('{"study": "x"}')
    with pytest.raises(FindingsError, match="not a findings file"):
        Findings.load(tmp_path)
    with pytest.raises(FindingsError, match="cannot read"):
        Findings.load(tmp_path / "missing")


def test_front_page_renders_the_findings_and_keeps_the_notes(tmp_path):
    (tmp_path / "NOTES.md").write_text("Hand-written notes.\n")
    front_page(tmp_path, _findings(), ["See [the report](report.md)."])
    text = (tmp_path / "README.md").read_text()
    assert text.startswith("# A demo study\n")
    assert "The data come from `python experiments/demo.py` (played at a8df91d)." in text
    assert "read off them at commit abc1234" in text
    assert "| `win` | 82.9% [78.7, 86.4] | 402 | win rate |" in text
    assert text.index("See [the report]") < text.index("## Findings") < text.index("Hand-written notes.")
    assert Findings.load(tmp_path) == _findings()


def test_a_results_folder_gets_its_front_page_and_keeps_a_hand_written_readme_as_notes(tmp_path):
    from thurn_ai.studies.pages import refresh, write_page

    out = tmp_path / "results" / "hostile_round3"
    out.mkdir(parents=True)
    (out / "hostile_round3.json").write_text('{"totals": {"accepted": 3, "clean": 40}, "cases": []}')
    (out / "README.md").write_text("# Old title\n\nWritten by hand.\n")
    write_page(tmp_path / "results", "hostile_round3", "abc1234")
    text = (out / "README.md").read_text()
    assert text.startswith("# Hostile input, third round\n") and "read off them at commit abc1234" in text
    assert "| `inputs.clean` | 40 |" in text and text.rstrip().endswith("Written by hand.")
    assert (out / "NOTES.md").read_text() == "Written by hand.\n"
    write_page(tmp_path / "results", "hostile_round3", "abc1234")          # again: nothing moves twice
    assert (out / "NOTES.md").read_text() == "Written by hand.\n" and (out / "README.md").read_text() == text
    assert Findings.load(out).number("inputs.accepted").text() == "3"
    elsewhere = tmp_path / "quick" / "hostile_round3"                     # not a folder of results/
    assert refresh(elsewhere) is None
