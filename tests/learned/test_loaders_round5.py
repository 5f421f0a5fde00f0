"""Loaders of shipped data refuse what they cannot trust in one error (issue 72, audit 5 N9): win maps
and findings.json -- meta a number, params a list, deep nesting, invalid UTF-8, NaN or 1e308 values, a
version this code does not read -- and never a traceback through the command line."""
from __future__ import annotations

import json

import pytest

from thurn_ai.learned.win_map import WinMap, WinMapError
from thurn_ai.studies.findings import Findings, FindingsError

GOOD_MAP = {"format": "thurn-ai win map", "version": 1, "params": {"2": [0.1, 0.9, 0.2]}, "meta": {"a": 1}}


def with_(d: dict, **changes) -> dict:
    return {**d, **changes}


@pytest.mark.parametrize("bad", [
    with_(GOOD_MAP, meta=5),                           # before: TypeError
    with_(GOOD_MAP, meta=[1, 2]),
    with_(GOOD_MAP, params=[[0.1, 0.9, 0.2]]),         # before: AttributeError
    with_(GOOD_MAP, params="x"),
    with_(GOOD_MAP, version=99),                       # before: accepted
    with_(GOOD_MAP, params={"2": [1e308, 0.9, 0.2]}),  # before: accepted
    with_(GOOD_MAP, params={"2": [True, 0.9, 0.2]}),
    with_(GOOD_MAP, params={"2": {"a": 1, "b": 2, "c": 3}}),
    with_(GOOD_MAP, params={"9": [0.1, 0.9, 0.2]}),
    with_(GOOD_MAP, params={"2": 5}),
])
def test_a_malformed_win_map_is_one_win_map_error(bad, tmp_path):
    path = tmp_path / "map.json"
    path.write_text(json.dumps(bad))
    with pytest.raises(WinMapError):
        WinMap.load(path)


@pytest.mark.parametrize("text", [b"[" * 100_000, b'{"format": "thurn-ai win map", "params": \xff}',
                                  b'{"format": "thurn-ai win map", "params": {"2": [NaN, 1, 1]}}'])
def test_a_win_map_file_that_is_no_json_is_one_win_map_error(text, tmp_path):
    path = tmp_path / "map.json"
    path.write_bytes(text)
    with pytest.raises(WinMapError):
        WinMap.load(path)


def test_the_shipped_win_maps_load():
    from thurn_ai.learned.win_map import win_map_for
    assert win_map_for("equal") is not None and win_map_for("heuristic") is not None


GOOD_FINDINGS = {"study": "demo", "title": "Demo", "command": "python x.py", "commit": "abc",
                 "numbers": {"a.win": {"value": 0.5, "lo": 0.4, "hi": 0.6, "unit": "share", "games": 100}},
                 "games": {"all": 100}, "played_at": ["abc"]}


def number_with(**changes) -> dict:
    return with_(GOOD_FINDINGS, numbers={"a.win": {**GOOD_FINDINGS["numbers"]["a.win"], **changes}})


@pytest.mark.parametrize("bad", [
    with_(GOOD_FINDINGS, numbers=[1, 2]),              # before: AttributeError
    with_(GOOD_FINDINGS, numbers={"a": 5}),
    with_(GOOD_FINDINGS, games={"all": 1.9}),          # before: read as 1
    with_(GOOD_FINDINGS, games=[1]),
    with_(GOOD_FINDINGS, study=5),
    with_(GOOD_FINDINGS, played_at="abc"),
    number_with(value="0.5"),                          # before: loaded, failed only when printed
    number_with(digits=-5),
    number_with(digits=1_000_000),                     # before: accepted
    number_with(games=1.9),
    number_with(value=True),
    number_with(lo="x"),
    [1, 2, 3],
])
def test_a_malformed_findings_file_is_one_findings_error(bad, tmp_path):
    (tmp_path / "findings.json").write_text(json.dumps(bad))
    with pytest.raises(FindingsError, match="not a findings file"):
        Findings.load(tmp_path)


@pytest.mark.parametrize("text", [b"[" * 100_000,                          # before: RecursionError
                                  b'{"study": "\xff"}',                       # before: UnicodeDecodeError
                                  json.dumps(number_with()).replace("0.5", "NaN").encode()])   # before: accepted
def test_a_findings_file_that_is_no_plain_json_is_one_findings_error(text, tmp_path):
    (tmp_path / "findings.json").write_bytes(text)
    with pytest.raises(FindingsError, match="findings.json"):
        Findings.load(tmp_path)


def test_a_good_findings_file_loads(tmp_path):
    (tmp_path / "findings.json").write_text(json.dumps(GOOD_FINDINGS))
    f = Findings.load(tmp_path)
    assert f.number("a.win").text().startswith("50.0%") and f.games == {"all": 100}
