"""The league (play/league.py), its ratings (stats/rating.py) and the `league` and `sprt` commands."""
from __future__ import annotations

import pandas as pd
from click.testing import CliRunner

from thurn_ai.cli import cli
from thurn_ai.play.league import league_seed, load_league, run_league
from thurn_ai.stats.rating import fit_ratings, game_orders


def test_a_bot_against_itself_rates_level_within_its_interval():
    results = run_league(["racer", "racer", "heuristic"], players=(2, 3), games={2: 36, 3: 18}, seed=3,
                         progress=False)
    for n, df in results.items():
        table = fit_ratings(df, anchor="racer #1", bootstrap=60, seed=1).set_index("bot")
        twin = table.loc["racer #2"]
        assert twin.lo <= 0 <= twin.hi, (n, twin)
        assert table.loc["racer #1", "rating"] == 0


def test_ratings_order_bots_of_clearly_different_strength():
    df = run_league(["heuristic", "greedy", "random"], players=(3,), games=18, seed=1, progress=False)[3]
    table = fit_ratings(df, anchor="greedy", bootstrap=40, seed=2)
    assert list(table["bot"])[0] == "heuristic" and list(table["bot"])[-1] == "random"
    assert table.set_index("bot").loc["heuristic", "lo"] > 0
    for kind in ("win", "place"):      # both fits read the same games
        assert len(fit_ratings(df, anchor="greedy", kind=kind, bootstrap=5)) == 3


def test_mixed_tables_rotate_seats_and_orders_follow_ranks():
    df = run_league(["heuristic", "greedy", "random", "racer"], players=(3,), games=12, seed=2, progress=False)[3]
    per_game = df.groupby("game")["bot"].nunique()
    assert (per_game == 3).all()                 # every table a mix of three different bots
    bots, orders = game_orders(df)
    first = df[df.game == 1].sort_values("rank")
    assert [bots[i] for i in orders[0]] == list(first["bot"])


def test_resume_and_same_seed_same_games(tmp_path):
    specs = ["heuristic", "closer", "greedy"]
    run_league(specs, players=(2, 4), games=6, seed=5, out_dir=tmp_path / "a", progress=False)
    resumed = run_league(specs, players=(2, 4), games=12, seed=5, out_dir=tmp_path / "a", resume=True, progress=False)
    whole = run_league(specs, players=(2, 4), games=12, seed=5, out_dir=tmp_path / "b", progress=False)
    for n in (2, 4):
        assert resumed[n].equals(whole[n])
        assert (whole[n]["game_seed"].nunique() == 12)
    assert sorted(load_league(tmp_path / "a")) == [2, 4]
    assert league_seed(5, 2) != league_seed(5, 4)


def test_league_command_writes_ratings(tmp_path):
    out = tmp_path / "lg"
    r = CliRunner().invoke(cli, ["league", "--bots", "heuristic,racer,greedy", "--players", "2", "--games", "12",
                                 "--bootstrap", "20", "--out", str(out), "--no-progress"])
    assert r.exit_code == 0, r.output
    assert "| `heuristic` | +0.00" in r.output
    table = pd.read_csv(out / "ratings.csv")
    assert set(table["bot"]) == {"heuristic", "racer", "greedy"} and (out / "ratings.png").stat().st_size > 0
    bad = CliRunner().invoke(cli, ["league", "--bots", "racer,greedy", "--out", str(tmp_path / "x")])
    assert bad.exit_code == 2 and "error: the anchor 'heuristic'" in bad.output


def test_sprt_command_prints_a_verdict_and_refuses_bad_bounds(tmp_path):
    r = CliRunner().invoke(cli, ["sprt", "heuristic", "--against", "random", "--elo1", "10", "--batch", "4",
                                 "--out", str(tmp_path / "s")])
    assert r.exit_code == 0, r.output
    assert "heuristic is stronger than random: H1 (+10 points) accepted" in r.output
    bad = CliRunner().invoke(cli, ["sprt", "heuristic", "--against", "random", "--elo0", "5", "--elo1", "3"])
    assert bad.exit_code == 2 and bad.output.startswith("error: the bounds need")
