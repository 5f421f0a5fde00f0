"""The officials study's data name the move prior they searched with (issue 54): played before mcts had the
`policy` option, their spec texts said `mcts(...)`, which today means the learned prior; the migration
(experiments/officials_policy.py) writes `policy=handset` into them, and a rebuilt report names the search the
data recorded, not what the same command means today."""
from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from thurn_ai.bots.spec import BotSpec
from thurn_ai.studies.officials import run

from tests.helpers import experiment

ROOT = Path(__file__).resolve().parents[2]
OFFICIALS = ROOT / "results" / "officials"
OLD = "mcts(select=puct,prior=0.8,eval=learned,iterations=1000)"
NEW = "mcts(select=puct,prior=0.8,eval=learned,policy=handset,iterations=1000)"


def test_a_recorded_search_gets_the_prior_it_used_before_its_budget_once():
    with_handset = experiment("officials_policy").with_handset
    assert with_handset(OLD) == NEW and with_handset(NEW) == NEW
    assert with_handset(OLD + " #2") == NEW + " #2"                                    # a seat's label kept
    assert with_handset("mcts(eval=learned,iterations=1000,forbid=postmaster)") == \
        "mcts(eval=learned,policy=handset,iterations=1000,forbid=postmaster)"
    assert with_handset("rated(eval=learned,iterations=1000,rating=first)") == \
        "rated(eval=learned,policy=handset,iterations=1000,rating=first)"
    assert with_handset("mcts(time=0.5)") == "mcts(policy=handset,time=0.5)" and with_handset("mcts()") == \
        "mcts(policy=handset)"
    for kept in ("heuristic", "heuristic(forbid=postmaster)", "mcts(policy=learned,mix=0.5,iterations=3000)", None):
        assert with_handset(kept) == kept
    assert BotSpec.parse(with_handset(OLD)).option("policy") == "handset"


def test_the_migration_rewrites_only_the_spec_texts_and_a_second_run_changes_nothing(tmp_path):
    script = experiment("officials_policy")
    rows = pd.DataFrame({"players": [2, 2, 3], "bot": [OLD, OLD + " #2", "heuristic"],
                         "search": [OLD, None, NEW], "score": [1.5, 2.0, 3.0]})
    rows.to_parquet(tmp_path / "search_choices.parquet", index=False)
    assert script.migrate(tmp_path, write=False) == {"search_choices.parquet": 3}
    assert pd.read_parquet(tmp_path / "search_choices.parquet").equals(rows)          # --check writes nothing
    assert script.main(["--study", str(tmp_path)]) == 0
    got = pd.read_parquet(tmp_path / "search_choices.parquet")
    assert list(got.bot) == [NEW, NEW + " #2", "heuristic"] and list(got.search.fillna("–")) == [NEW, "–", NEW]
    pd.testing.assert_series_equal(got.score, rows.score)
    assert script.migrate(tmp_path) == {"search_choices.parquet": 0}


@pytest.mark.parametrize("table", sorted(experiment("officials_policy").TABLES))
def test_the_committed_data_played_before_the_policy_option_name_the_hand_set_prior(table):
    columns = experiment("officials_policy").TABLES[table]
    rows = pd.read_parquet(OFFICIALS / table, columns=list(columns))
    texts = {t for c in columns for t in rows[c].dropna().unique() if t.startswith(("mcts(", "rated("))}
    assert texts and all(BotSpec.parse(t.split(" #")[0]).option("policy") == "handset" for t in texts)


def test_a_rebuilt_report_names_the_search_the_data_recorded_not_todays_default():
    """The report's searches come from the data: the same command today means the learned prior."""
    today = run.run_plan(run.RunOptions(OFFICIALS)).searchers[2]
    assert today.option("policy") != "handset"
    choices = pd.read_parquet(OFFICIALS / "search_choices.parquet", columns=["players", "search"])
    games = pd.read_parquet(OFFICIALS / "search_games.parquet", columns=["players", "bot", "restricted"])
    for said in (run.recorded(choices, "search"), run.recorded(games[~games.restricted], "bot")):
        assert sorted(said) == [2, 3, 4] and all("policy=handset" in t for t in said.values())
    assert run.recorded(choices.drop(columns="search"), "search") == {}
