"""One search for every use, and a win map that knows its search (issue 52): DEFAULT_SEARCH is what `mcts`,
the hint, analyse(), the board and the officials study search with; a win map names the search it was fitted
for and reads no other search's share; experiments/calibrate.py refits the maps for the default search."""
from __future__ import annotations

import dataclasses
import json
import math
from pathlib import Path

import pytest

import thurn_ai
from thurn_ai.bots import make_bot
from thurn_ai.bots.default_search import (DEFAULT_SEARCH, HINT_ITERATIONS, identity_differences, search_identity,
                                          written_out)
from thurn_ai.bots.search_options import SearchOptions
from thurn_ai.bots.spec import BotSpec
from thurn_ai.cli import main
from thurn_ai.learned.features import position_features
from thurn_ai.learned.win_map import DEFAULT_PATH, HEURISTIC_PATH, WinMap, WinMapError
from thurn_ai.play import win_chance as W
from thurn_ai.play.analysis import analyse, bot_spec
from thurn_ai.position import save_position

from tests.helpers import experiment, free_turn_start



def hint_cli(args, capsys) -> str:
    with pytest.raises(SystemExit) as e:
        main(["hint", *args])
    assert e.value.code == 0
    return capsys.readouterr().out


def test_a_plain_mcts_is_the_default_search_at_its_own_budget():
    searched = make_bot(DEFAULT_SEARCH).options
    assert searched.iterations == HINT_ITERATIONS
    assert make_bot("mcts").options == dataclasses.replace(searched, iterations=SearchOptions().iterations)
    # the spec names every option that makes the search, and reads back as itself
    assert BotSpec.parse(str(DEFAULT_SEARCH)) == DEFAULT_SEARCH
    assert {"eval", "policy", "select", "prior", "c"} <= set(DEFAULT_SEARCH.options)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_hint_analyse_and_the_officials_study_search_with_the_default_search(players):
    from thurn_ai.studies.officials.choice import SearchSettings
    from thurn_ai.studies.officials.plan import study_spec
    assert bot_spec(BotSpec.parse("mcts"), None, None, players) == DEFAULT_SEARCH
    assert SearchSettings().spec(players) == DEFAULT_SEARCH                      # the officials' rating search
    assert study_spec(BotSpec("mcts"), players) == DEFAULT_SEARCH.with_(iterations=SearchOptions().iterations)
    # each can still name another search: its own options over the default's
    mine = bot_spec(BotSpec.parse("mcts(policy=handset,c=0.5)"), 100, None, players)
    assert mine.option("policy") == "handset" and mine.option("c") == 0.5 and "mix" not in mine.options
    assert written_out("mcts(select=ucb)").option("policy") == "handset"        # no prior without PUCT


def test_written_out_refuses_what_make_bot_refuses():
    from thurn_ai.errors import BotSpecError
    for bad in ("mcts(seed=3)", "mcts(colour=red)", "mcts(c=-1)"):
        with pytest.raises(BotSpecError):
            make_bot(bad)
        with pytest.raises(BotSpecError):
            written_out(bad)
    assert written_out("greedy") == BotSpec("greedy")                               # other bots as they are


def test_analyse_and_the_cli_hint_name_the_default_search(tmp_path, capsys):
    g = thurn_ai.new_game(players=2, seed=5)
    a = analyse(g, iterations=30, seed=1)
    assert a.bot == DEFAULT_SEARCH.with_(iterations=30)
    path = tmp_path / "p.json"
    save_position(g, path)
    out = json.loads(hint_cli([str(path), "--iterations", "30", "--json"], capsys))
    assert out["bot"] == str(DEFAULT_SEARCH.with_(iterations=30))
    assert out["win_chance"]["calibrated"] == out["win_prob_calibrated"]


def test_the_board_hint_and_which_official_search_with_the_default_search():
    from thurn_ai.web.hints import Budget, HintJobs
    g = free_turn_start()
    jobs = HintJobs()
    moves = jobs.start(g, Budget(iterations=20))
    official = jobs.start(g, Budget(iterations=40), question="which_official")
    jobs.wait_all(60)
    assert moves.status == "done" and official.status == "done", (moves.error, official.error)
    assert moves.result["bot"] == str(DEFAULT_SEARCH.with_(iterations=20))
    assert BotSpec.parse(official.result["bot"]).without("iterations") == DEFAULT_SEARCH.without("iterations")


# ---------------------------------------------------------------- the map knows its search

@pytest.mark.parametrize("path", [DEFAULT_PATH, HEURISTIC_PATH], ids=["equal", "heuristic"])
def test_the_shipped_maps_name_the_search_they_were_fitted_for_truthfully(path):
    m = WinMap.load(path)
    spec = BotSpec.parse(m.search)
    # the identity recorded is the named search's, with today's weights files (none was refitted since)
    assert m.identity == search_identity(spec)
    assert m.meta["budget"] == {"iterations": spec.option("iterations")}
    assert m.seats != "not recorded"
    fits_default = identity_differences(m.identity, search_identity(DEFAULT_SEARCH)) == []
    # the chance the hint shows follows the truth: calibrated for the map's own search; for the default
    # search only when the map was fitted for it
    for n in (2, 3, 4):
        opponents = "equal" if path == DEFAULT_PATH else "heuristic"
        assert W.win_chance_for(spec, n, opponents).calibrated
        assert W.win_chance_for(DEFAULT_SEARCH, n, opponents).calibrated == fits_default


@pytest.mark.parametrize("path", [DEFAULT_PATH, HEURISTIC_PATH], ids=["equal", "heuristic"])
def test_the_shipped_maps_are_fitted_for_the_default_search(path):
    assert identity_differences(WinMap.load(path).identity, search_identity(DEFAULT_SEARCH)) == []


def _map_for(spec) -> WinMap:
    return WinMap(params={n: (-0.5, 0.5, 0.0) for n in (2, 3, 4)},
                  meta={"search": str(spec), "identity": search_identity(spec), "seats": "every seat played it",
                        "held": {"2": {"slope": 0.97, "slope_ci": [0.9, 1.05], "ece": 0.01, "games": 200}}})


def test_a_map_calibrates_only_the_search_it_was_fitted_for(monkeypatch):
    other = BotSpec.parse("mcts(eval=learned,policy=handset,c=0.7)")
    monkeypatch.setattr(W, "win_map_for", lambda opponents="equal": _map_for(other))
    g = thurn_ai.new_game(players=2, seed=4)
    # the default search: read through the nearest map, but marked uncalibrated, its search and the
    # differences named; asked against heuristic opponents, an error; without the learned evaluation, the
    # share as it is
    a = analyse(g, iterations=40, seed=1)
    t = position_features(g)[0]
    assert not a.calibrated and a.to_dict()["win_prob_calibrated"] is False
    assert all(o.win_prob == pytest.approx(a.chance.win_map.chance(o.search_win, t, 2)) for o in a.options)
    d = a.to_dict()["win_chance"]
    assert d["mapped"] and d["held"] is None and d["seats"] is None
    assert d["fitted_for"] == str(other) and any("policy=learned" in x for x in d["differences"])
    assert "uncalibrated for this search" in a.assumes
    with pytest.raises(WinMapError, match="calibrated win chance"):
        analyse(g, iterations=40, seed=1, opponents="heuristic")
    raw = analyse(g, bot=BotSpec.parse("mcts(eval=simple)"), iterations=40, seed=1)
    assert not raw.to_dict()["win_chance"]["mapped"] and all(o.win_prob == o.search_win for o in raw.options)
    # the map's own search, at another budget: mapped, and said whom it assumes and how well it held
    b = analyse(g, bot=other, iterations=40, seed=1)
    assert b.calibrated and all(o.win_prob != o.search_win for o in b.options)
    assert b.chance.held["slope"] == 0.97 and "slope 0.97 [0.90, 1.05]" in b.chance.held_text()
    assert "every seat played it" in b.assumes


def test_other_weights_are_another_search(tmp_path):
    copy = tmp_path / "value.json"
    copy.write_text(Path(thurn_ai.learned.model.DEFAULT_PATH).read_text() + "\n")
    differences = identity_differences(search_identity(DEFAULT_SEARCH),
                                       search_identity(DEFAULT_SEARCH.with_(model=str(copy))))
    assert differences == ["the value weights differ (SHA-256)"]
    cheap = search_identity(DEFAULT_SEARCH.with_(iterations=7))
    assert identity_differences(search_identity(DEFAULT_SEARCH), cheap) == []


def test_the_cli_says_whom_the_chance_assumes_and_how_it_held(tmp_path, capsys, monkeypatch):
    other = BotSpec.parse("mcts(eval=learned,policy=handset)")
    monkeypatch.setattr(W, "win_map_for", lambda opponents="equal": _map_for(other))
    g = thurn_ai.new_game(players=2, seed=4)
    path = tmp_path / "p.json"
    save_position(g, path)
    text = hint_cli([str(path), "--iterations", "30", "--bot", str(other), "--explain"], capsys)
    assert "for players like the search;" in text and "A calibrated chance" in text
    assert "every seat played it" in text and "slope 0.97" in text
    text = hint_cli([str(path), "--iterations", "30", "--explain"], capsys)
    assert "not calibrated for this search;" in text and "uncalibrated for this search" in text and str(other) in text


# ---------------------------------------------------------------- the refit, end to end at a tiny budget

def test_the_refit_runs_end_to_end_and_its_maps_calibrate_that_search(tmp_path, monkeypatch, capsys):
    script = experiment("calibrate")
    out, maps = tmp_path / "cal", tmp_path / "maps"
    args = ["--games", "6", "--iterations", "8", "--players", "2", "--jobs", "1", "--out", str(out),
            "--maps", str(maps), "--allow-dirty"]
    assert script.main([*args, "--part", "games"]) == 0
    data = sorted((out / "data").rglob("*.parquet"))
    assert len(data) == 4                        # 2 populations x 2 files of 5 games (the last one short)
    stamps = [p.stat().st_mtime_ns for p in data]
    assert script.main(args) == 0                # resumes: no game played again, then the fit
    assert [p.stat().st_mtime_ns for p in data] == stamps
    for name in ("report.md", "calibration.csv", "forms.csv", "reliability.csv", "reliability.png", "runs.json"):
        assert (out / name).exists(), name
    spec = DEFAULT_SEARCH.with_(iterations=8)
    for name, opponents in (("win_map.json", "equal"), ("win_map_heuristic.json", "heuristic")):
        m = WinMap.load(maps / name)
        assert m.search == str(spec) and m.identity == search_identity(spec)
        h = m.held(2)
        assert h["games"] == 6 and h["positions"] > 6 and 0 <= h["ece"] <= 1
        assert h["slope"] is None or math.isfinite(h["slope"])
        monkeypatch.setattr(W, "win_map_for", lambda o="equal", m=m: m)
        assert W.win_chance_for(DEFAULT_SEARCH, 2, opponents).calibrated      # the budget is no part of it
        assert not W.win_chance_for("mcts(policy=handset)", 2, opponents).calibrated
    report = (out / "report.md").read_text()
    assert str(spec) in report and "slope" in report
    # a bad search is one error line
    capsys.readouterr()
    assert script.main([*args, "--search", "mcts(c=-1)"]) == 2
    assert capsys.readouterr().err.startswith("error:")


def test_what_makes_a_bot_a_search_is_its_declared_capability_not_its_name_or_an_attribute(monkeypatch):
    """bots.base.Searcher is declared by the class: a search registered under a new name is a search (the
    officials study takes a budget for it, search_identity reads its options), and a bot that merely carries
    an `options` attribute holding SearchOptions is not one (its identity is its spec, no win map reads it)."""
    from thurn_ai.bots import register
    from thurn_ai.bots import spec as registry
    from thurn_ai.bots.base import Bot, Searcher
    from thurn_ai.bots.mcts import MCTSBot
    from thurn_ai.studies.officials.plan import StudyError, study_spec

    class MySearch(MCTSBot):
        spec = "my-search"

    class Pretender(Bot):          # an `options` of the search's type, but no search declared
        spec = "pretender"

        def __init__(self, seed: int = 0, forbid=frozenset()):
            super().__init__(seed=seed, forbid=forbid)
            self.options = SearchOptions(eval="learned")

        def choose(self, obs) -> int:
            return obs.state.legal_moves()[0]

    monkeypatch.setattr(registry, "_REGISTRY", dict(registry._REGISTRY))      # registered for this test only
    register("my-search", MySearch)
    register("pretender", Pretender)
    mine, pretender = BotSpec.parse("my-search(eval=simple)"), BotSpec.parse("pretender")
    assert isinstance(make_bot(mine), Searcher) and not isinstance(make_bot(pretender), Searcher)
    assert study_spec(mine, 2, 77).option("iterations") == 77
    for plain in (pretender, BotSpec.parse("heuristic")):
        with pytest.raises(StudyError, match="a budget in iterations is for a bot that searches"):
            study_spec(plain, 2, 77)
        assert study_spec(plain, 2) == plain
    assert search_identity(mine)["options"]["eval"] == "simple"
    assert search_identity(pretender) == {"bot": "pretender", "options": {}, "files": {}}
    assert not W.win_chance_for(pretender, 2).learned and W.win_chance_for(pretender, 2).win_map is None
