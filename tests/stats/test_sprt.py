"""The sequential test: its statistics (error rates in simulation) and its games (paired deals, resume)."""
from __future__ import annotations

import json

import numpy as np
import pytest

from thurn_ai.errors import TournamentError
from thurn_ai.studies.sprt import run_sprt
from thurn_ai.play.tournament import load_results
from thurn_ai.stats.sprt import SPRT, SUPPORT, counts_of, llr, simulate, with_mean

# a pentanomial-like spread of paired differences (2-player pairs: -1, -1/2, 0, +1/2, +1)
SPREAD = np.zeros(len(SUPPORT))
for value, p in ((-1, 0.2), (-0.5, 0.05), (0, 0.5), (0.5, 0.05), (1, 0.2)):
    SPREAD[int(round(value * 12)) + 12] = p


def test_llr_signs_and_zero():
    assert llr(counts_of([]), 0, 5) == 0
    assert llr(counts_of([1] * 20 + [0] * 10), 0, 5) > 0
    assert llr(counts_of([-1] * 20 + [0] * 10), 0, 5) < 0
    # a batch axis gives the same numbers as one row at a time
    rows = np.stack([counts_of([1, 0, -1, 1]), counts_of([0.5, -0.5, 1 / 3])])
    assert np.allclose(llr(rows, 0, 5), [llr(rows[0], 0, 5), llr(rows[1], 0, 5)])


def test_with_mean_moves_the_mean_and_keeps_a_distribution():
    for mu in (0.0, 5.0, -3.0):
        p = with_mean(SPREAD, mu)
        assert p.min() >= 0 and p.sum() == pytest.approx(1)
        assert 100 * (p * SUPPORT).sum() == pytest.approx(mu, abs=1e-6)


@pytest.mark.parametrize("bound,err", [("elo0", "alpha"), ("elo1", "beta")])
def test_error_rates_hold_in_simulation_at_the_bounds(bound, err):
    """Drawn at exactly the mean of H0 (H1), the test accepts H1 (H0) at most about alpha (beta) of the time:
    Wald's bounds are conservative, so the rate stays under the nominal plus three standard errors."""
    test = SPRT(elo0=0, elo1=10, alpha=0.05, beta=0.1, batch=4)
    runs = 1200
    out = simulate(test, with_mean(SPREAD, getattr(test, bound)), runs=runs, seed=3)
    wrong = out["accept_h1"] if bound == "elo0" else out["accept_h0"]
    nominal = getattr(test, err)
    assert wrong <= nominal + 3 * np.sqrt(nominal * (1 - nominal) / runs)
    assert out["undecided"] == 0 and out["mean_deals"] > 10


def test_a_larger_effect_stops_sooner_and_the_right_way():
    test = SPRT(elo0=0, elo1=10, alpha=0.05, beta=0.05, batch=4)
    strong = simulate(test, with_mean(SPREAD, 30), runs=300, seed=1)
    at_bound = simulate(test, with_mean(SPREAD, 10), runs=300, seed=1)
    assert strong["accept_h1"] > 0.99 and strong["mean_deals"] < at_bound["mean_deals"]


def test_status_stops_at_the_first_crossing_and_truncates():
    test = SPRT(elo0=0, elo1=10, batch=2, max_deals=60)
    assert test.status([1] * 200).verdict == "accept H1"
    assert test.status([1] * 200).n < 200
    assert test.status([0] * 200).verdict == "accept H0"
    assert test.status([1, -1] * 100).verdict == "truncated"
    with pytest.raises(ValueError):
        SPRT(elo0=3, elo1=0)
    with pytest.raises(ValueError):
        SPRT(batch=4, max_deals=10)


# ---------------------------------------------------------------- on games (cheap bots)

TEST = SPRT(elo0=0, elo1=10, alpha=0.05, beta=0.05, batch=4, max_deals=200)


def test_a_planted_stronger_bot_is_accepted():
    result = run_sprt("heuristic", "random", players=2, test=TEST, seed=1)
    assert result.verdict == "accept H1" and result.deals < 200
    assert result.status["win"].mean > 50


def test_an_equal_bot_is_rejected():
    # the same deterministic bot in the same seats on the same deals: every paired difference is 0
    result = run_sprt("heuristic", "heuristic", players=2, test=TEST, seed=1)
    assert result.verdict == "accept H0" and result.status["win"].mean == 0


def test_three_players_focus_seat_against_opponents(tmp_path):
    result = run_sprt("heuristic", "greedy", players=3, test=SPRT(0, 10, batch=3, max_deals=99), seed=2,
                      opponents="heuristic", out_dir=tmp_path / "t")
    assert result.verdict == "accept H1"
    df = load_results(tmp_path / "t")
    # game 2k-1 and 2k: one deal, the focus seat (k-1) mod 3 holds the candidate, then the baseline
    for deal in (1, 2, 3):
        a = df[df.game == 2 * deal - 1].sort_values("seat")
        b = df[df.game == 2 * deal].sort_values("seat")
        focus = (deal - 1) % 3
        assert a.game_seed.iloc[0] == b.game_seed.iloc[0]
        assert a.spec.iloc[focus] == "heuristic" and b.spec.iloc[focus] == "greedy"
        assert list(a.spec.drop(a.index[focus])) == ["heuristic"] * 2 == list(b.spec.drop(b.index[focus]))
    saved = json.loads((tmp_path / "t" / "sprt.json").read_text())
    assert saved["test"]["elo1"] == 10 and saved["primary"] == "win" and set(saved["status"]) == {"win", "win_share"}


def test_resume_gives_the_verdict_of_an_uninterrupted_test(tmp_path):
    test = SPRT(elo0=0, elo1=20, batch=2, max_deals=100)
    whole = run_sprt("heuristic", "greedy", players=2, test=test, seed=4)
    # stop after the first look, then resume
    class Stop(Exception):
        pass

    seen = []

    def stop_after_two_looks(result):
        seen.append(result.deals)
        if len(seen) == 2:
            raise Stop
    with pytest.raises(Stop):
        run_sprt("heuristic", "greedy", players=2, test=test, seed=4, out_dir=tmp_path / "r",
                 on_look=stop_after_two_looks)
    resumed = run_sprt("heuristic", "greedy", players=2, test=test, seed=4, out_dir=tmp_path / "r", resume=True)
    assert whole.deals > 4
    assert (resumed.verdict, resumed.deals, resumed.line) == (whole.verdict, whole.deals, whole.line)
    with pytest.raises(TournamentError, match="declared before"):
        run_sprt("heuristic", "greedy", players=2, test=SPRT(0, 5, batch=2, max_deals=100), seed=4,
                 out_dir=tmp_path / "r", resume=True)


def test_same_seed_same_games(tmp_path):
    test = SPRT(elo0=0, elo1=20, batch=4, max_deals=100)
    a = run_sprt("heuristic", "greedy", players=3, test=test, seed=7, opponents="random", out_dir=tmp_path / "a")
    b = run_sprt("heuristic", "greedy", players=3, test=test, seed=7, opponents="random", out_dir=tmp_path / "b")
    assert a.line == b.line
    assert load_results(tmp_path / "a").equals(load_results(tmp_path / "b"))
