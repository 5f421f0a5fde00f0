"""The officials study's turn question (thurn_ai/studies/officials/turn_choice.py): at each turn start, the best
line with each official and with none, rated side by side; its runner, table, report section and cost."""
import json
import math
import shutil

import pandas as pd

import pytest

import thurn_ai
from thurn_ai.bots.spec import BotSpec
from thurn_ai import _search
from thurn_ai.game.officials import OFFICIALS
from thurn_ai.play.tournament import run_tournament
from thurn_ai.studies import officials as S
from thurn_ai.studies.officials.turn_choice import load_turns_study
from thurn_ai.studies.officials import cost
from thurn_ai.studies.officials.choice import ROWS_FILE
from thurn_ai.studies.officials.turn_choice import (RESAMPLES, TURN_OPTIONS, TURNS_META, TurnSettings, load_turns,
                                                    per_turn, possible_officials, rate_turn, run_turns, turn_section,
                                                    turn_table)

#: the search the shipped win map was fitted for (the hand-set prior's): its ratings are calibrated win chances
TINY = TurnSettings(bot=BotSpec.parse("mcts(iterations=20)"), seed=5)


def turn_start(seed=3, after=6):
    g = thurn_ai.new_game(players=2, seed=seed)
    while True:
        t = g.turn_state()
        if t.turn >= after and t.phase == 0 and t.draws == 0 and not t.forced_pm:
            return g
        g.apply(_search.policy_choice(g, g.turn, 0, 0.0))


@pytest.fixture(scope="module")
def rated(tmp_path_factory):
    """One short 2-player game of the heuristic bot (max 12 turns each), every turn start rated."""
    base = tmp_path_factory.mktemp("turns")
    run_tournament(["heuristic", "heuristic"], players=2, games=2, seed=3, jobs=1, out_dir=base / "t",
                   progress=False, rules_kwargs={"max_turns": 12})
    records = base / "t" / "records.jsonl"
    rows = run_turns(records, base / "full", TINY, games=1, source="2p_none")
    return {"base": base, "records": records, "rows": rows}


def test_every_turn_start_is_rated_once_per_option(rated):
    rows = rated["rows"]
    starts = rows.groupby("move")
    assert starts.ngroups == rows.turn.nunique() and starts.ngroups >= 20
    for _move, g in starts:
        if g.forced.iloc[0]:           # an empty hand: the forced Postmaster, no choice, not rated
            assert list(g.option) == ["none"] and g.fresh_win.isna().all()
        else:
            assert g.option.iloc[0] == "none" and list(g.option[1:]) == [o for o in OFFICIALS if o in set(g.option)]
            assert g.win.between(0, 1).all() and (g.visits > 0).all()
    assert rows.forced.any() and (~rows.forced).any()
    # none's line never uses an official; a used official's option ends the table's "counted"
    assert rows[rows.option == "none"].uses_it.where(~rows.forced, True).all()


def test_an_options_rating_is_the_fresh_re_rating_of_its_best_first_move():
    g = turn_start()
    settings = TurnSettings(bot=BotSpec.parse("mcts(iterations=60)"))
    ratings = {r["option"]: r for r in rate_turn(g, settings, 11)}
    assert set(ratings) == {"none", *possible_officials(g)}
    adm = ratings["administrator"]
    assert adm["best_move"] == "administrator" and adm["uses_it"]       # offered at the root: taken
    assert ratings["none"]["best_move"] != "administrator"
    for r in ratings.values():
        # a second search with its own seed: the same move, an independent value (not the first search's)
        assert r["fresh_visits"] > 0 and r["fresh_win"] != r["win"]
    again = {r["option"]: r for r in rate_turn(g, settings, 11)}
    assert again == ratings                                              # reproducible by seed


def test_possible_officials_follow_the_rules():
    g = turn_start()
    assert possible_officials(g)[:3] == ["postmaster", "administrator", "postal_carrier"]
    forced = thurn_ai.new_game(players=2, seed=1)       # the first turn: an empty hand
    assert forced.turn_state().forced_pm and possible_officials(forced) == []


def test_resume_gives_the_same_rows(rated, tmp_path):
    out = tmp_path / "resumed"
    run_turns(rated["records"], out, TINY, games=1, source="2p_none")
    text = (out / ROWS_FILE).read_text(encoding="utf-8")
    (out / ROWS_FILE).write_text(text[: len(text) // 2], encoding="utf-8")      # killed mid-game
    again = run_turns(rated["records"], out, TINY, games=1, source="2p_none", resume=True)
    pd.testing.assert_frame_equal(again, rated["rows"])
    pd.testing.assert_frame_equal(load_turns(out), rated["rows"])
    assert json.loads((out / TURNS_META).read_text())["settings"]["bot"] == str(TINY.bot)    # the file: its text
    with pytest.raises(S.StudyError, match="other settings"):
        other = TurnSettings(bot=BotSpec.parse("mcts(iterations=21)"))
        run_turns(rated["records"], out, other, games=1, source="2p_none", resume=True)


def _synthetic(deltas_by_game: dict, official="postal_carrier"):
    """Rated turns where `official` is worth deltas_by_game[game] (a list per game) over none."""
    rows = []
    for game, deltas in deltas_by_game.items():
        for k, d in enumerate(deltas):
            base = {"players": 2, "source": "2p_none", "game": game, "move": k, "turn": k, "seat": 0,
                    "phase": "middle", "forced": False, "calibrated": True}
            rows.append({**base, "option": "none", "fresh_win": 0.5, "uses_it": True})
            rows.append({**base, "option": official, "fresh_win": 0.5 + d, "uses_it": True})
            rows.append({**base, "option": "cartwright", "fresh_win": 0.9, "uses_it": False})   # not reached
    return pd.DataFrame(rows)


def test_the_table_counts_only_reached_options_and_resamples_games():
    df = _synthetic({g: [0.05, 0.1, -0.02] for g in range(1, 9)})
    turns = per_turn(df)
    assert set(turns.best) == {"postal_carrier", "none"}          # the unreached Cartwright is never best
    assert turns.value_cartwright.isna().all()
    t = turn_table(df).set_index(["phase", "option"])
    row = t.loc[("all", "postal_carrier")]
    assert row.turns == 24 and row.counted == 24 and row.best_share == pytest.approx(16 / 24)
    assert row.d_median == pytest.approx(0.05) and row.d_mean == pytest.approx(0.13 / 3)
    assert row.d_median_lo <= row.d_median <= row.d_median_hi
    assert row.p < 0.05 and row.p_holm >= row.p
    assert t.loc[("all", "cartwright")].counted == 0 and math.isnan(t.loc[("all", "cartwright")].d_median)
    # one game's turns only: no interval (a single game says nothing about the spread between games)
    one = turn_table(_synthetic({1: [0.05, 0.1, -0.02]})).set_index(["phase", "option"])
    assert math.isnan(one.loc[("all", "postal_carrier")].d_median_lo)
    # a game-level null: Δ symmetric around zero within every game is not significant
    null = turn_table(_synthetic({g: [0.1, -0.1] for g in range(1, 9)})).set_index(["phase", "option"])
    assert null.loc[("all", "postal_carrier")].p > 0.5 and not null.loc[("all", "postal_carrier")].p_floor


def test_the_section_shows_points_and_a_p_the_resampling_only_bounds():
    # every game gains the same: no resample reaches 0, so p is at the resampling's floor, an upper bound
    strong = turn_table(_synthetic({g: [0.05, 0.1, -0.02] for g in range(1, 9)}))
    row = strong.set_index(["phase", "option"]).loc[("all", "postal_carrier")]
    assert row.p_floor and row.p == pytest.approx(1 / (RESAMPLES + 1))
    line = next(ln for ln in turn_section(strong) if ln.startswith("| 2 | all | Postal Carrier"))
    assert "| +5.0 [" in line and f"| ≤ {row.p_holm:.2g} |" in line       # percentage points, a bound
    null = turn_table(_synthetic({g: [0.1, -0.1] for g in range(1, 9)}))
    line = next(ln for ln in turn_section(null) if ln.startswith("| 2 | all | Postal Carrier"))
    assert "≤" not in line and "| +0.0 [" in line


def test_the_report_section_says_what_each_official_is_compared_against(rated):
    table = turn_table(rated["rows"])
    # the search the win map was fitted for rates: its win share the map calibrates
    assert set(table.option) == set(TURN_OPTIONS) and (table.unit == "Δ win chance (calibrated)").all()
    uncalibrated = turn_table(rated["rows"].assign(calibrated=False))
    assert (uncalibrated.unit == "Δ evaluation").all()
    assert "Units: Δ evaluation" in "\n".join(turn_section(uncalibrated))
    text = "\n".join(turn_section(table))
    assert "## Which official this turn" in text
    for label in ("Postmaster", "Administrator", "Postal Carrier", "Cartwright"):
        assert f"* {label}: the {label} for the whole turn" in text
    assert "against no official this turn" in text and "forced Postmaster" in text
    assert "not tested advice" not in text
    # when play found the rating wrong, the section says its values are estimates, not advice
    assert "not tested advice" in "\n".join(turn_section(table, follow="player"))


def test_the_cost_of_the_turn_question():
    t = cost.Timing(2, 100, 20, 0.5, turns_per_game=30, options_per_turn=4.0)
    rows = cost.part_costs({2: t}, turn_games={2: 10})
    assert rows == [{"part": "turns", "players": 2, "games": 10, "searches": 2400,
                     "core_hours": pytest.approx(2400 * 0.5 / 3600)}]
    assert "turn starts" in cost.format_costs(rows, {2: t})


def test_the_cost_table_columns_line_up_with_the_longest_part_name():
    t = cost.Timing(2, 100, 20, 0.5, turns_per_game=30, options_per_turn=4.0)
    rows = [{"part": "turns", "players": 2, "games": 10, "searches": 2400, "core_hours": 0.33},
            {"part": "validation (control-first)", "players": 2, "games": 2182, "searches": 617506,
             "core_hours": 2.22}]
    table = [line for line in cost.format_costs(rows, {2: t}).splitlines()
             if line.endswith(("core-hours", ".33", ".22"))]
    assert len(table) == 3
    # right-aligned columns after a left-aligned part name: every row as long as the header
    assert len({len(line) for line in table}) == 1, table


def test_the_turns_part_runs_with_the_default_jobs_every_core(rated, tmp_path):
    # jobs=None (the script's default) once reached the worker pool as None and failed there
    (tmp_path / "2p_none").mkdir()
    shutil.copy(rated["records"], tmp_path / "2p_none" / "records.jsonl")
    rows = S.run_turns_study(tmp_path, (2,), 1, BotSpec.parse("mcts(iterations=5)"), jobs=None, log=None)
    assert rows.game.nunique() == 1 and len(rows) > 0


def test_the_turns_part_needs_the_control_games(tmp_path):
    with pytest.raises(S.StudyError, match="play the control games first"):
        S.run_turns_study(tmp_path, (2,), 1, BotSpec.parse("mcts(iterations=5)"), log=None)
    with pytest.raises(S.StudyError, match="no rated turns"):
        load_turns_study(tmp_path, (2,))
