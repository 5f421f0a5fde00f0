"""Tournament statistics on synthetic results whose answers are known by hand."""
import json
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from thurn_ai.game.officials import OFFICIALS
from thurn_ai.stats.summary import (StatsError, clustered_proportion_interval, format_summary, mean_interval,
                            summarize, summary_to_json, wilson_interval)
from thurn_ai.game.officials import STAGES as PHASES

Z95 = 1.959963984540054


def textbook_wilson(k, n, z=Z95):
    """The Wilson score interval written out from its formula (independent of scipy)."""
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return centre - half, centre + half


def synthetic(games, uses=None, turns=None):
    """Results rows from games given as [(bot, score), ...] per seat. rank/win follow the scores with the
    lowest seat winning ties (a stand-in tie-break); win_share shares tied top scores."""
    rows = []
    for g, seated in enumerate(games, start=1):
        scores = [s for _, s in seated]
        order = sorted(range(len(seated)), key=lambda i: (-scores[i], i))
        top = max(scores)
        for seat, (bot, score) in enumerate(seated):
            row = {"game": g, "game_seed": 1000 + g, "seat": seat, "bot": bot, "spec": bot,
                   "players": len(seated), "score": score, "rank": order.index(seat) + 1,
                   "win": int(order[0] == seat), "win_share": (score == top) / scores.count(top),
                   "turns": (turns or {}).get(g, 100), "truncated": False,
                   "carriage": max(score, 0), "carriage_size": 5, "tile_baden": 3, "tiles": 3,
                   "houses_unplaced": 1, "closes": 4}
            for o in OFFICIALS:
                total = (uses or {}).get((bot, o), 0)
                row[f"uses_{o}"] = total
                for p in PHASES:   # the whole count in the early phase, to check the split
                    row[f"uses_{o}_{p}"] = total if p == "early" else 0
            rows.append(row)
    return pd.DataFrame(rows)


def two_bot_games(a_wins, b_wins, ties=0):
    """A vs B, seats alternating; A scores 20 and B 10 in A's wins, and so on."""
    games = []
    results = [("A",)] * a_wins + [("B",)] * b_wins + [("tie",)] * ties
    for i, (winner,) in enumerate(results):
        a, b = {"A": (20, 10), "B": (10, 20), "tie": (15, 15)}[winner]
        games.append([("A", a), ("B", b)] if i % 2 == 0 else [("B", b), ("A", a)])
    return synthetic(games)


def test_win_rate_and_wilson_interval_match_the_formula():
    s = summarize(two_bot_games(7, 3))
    bots = s["bots"]
    assert bots.loc["A", "win_rate"] == pytest.approx(0.7)
    assert bots.loc["B", "win_rate"] == pytest.approx(0.3)
    low, high = textbook_wilson(7, 10)
    assert bots.loc["A", ["win_low", "win_high"]].tolist() == pytest.approx([low, high], abs=1e-9)
    assert (low, high) == pytest.approx((0.3968, 0.8922), abs=1e-4)   # the published value for 7/10
    assert list(bots.index) == ["A", "B"]                            # best first
    assert bots.loc["A", "games"] == 10


def test_ties_on_the_top_score_are_shared_but_the_tiebreak_win_is_kept():
    df = two_bot_games(2, 0, ties=2)
    s = summarize(df)["bots"]
    assert s.loc["A", "win_rate"] == pytest.approx(3 / 4)     # 2 wins + 2 half wins
    assert s.loc["B", "win_rate"] == pytest.approx(1 / 4)
    # the stand-in tie-break gives each tie to seat 0, which A and B hold once each
    assert s.loc["A", "tiebreak_win_rate"] == pytest.approx(3 / 4)
    # a fractional count (1.5 wins in 3): the interval covers those of 1 and of 2 wins in 3
    odd = summarize(two_bot_games(1, 1, ties=1))["bots"]
    assert odd.loc["B", "win_rate"] == pytest.approx(0.5)
    assert odd.loc["B", "win_low"] == pytest.approx(textbook_wilson(1, 3)[0])
    assert odd.loc["B", "win_high"] == pytest.approx(textbook_wilson(2, 3)[1])


def test_mean_score_interval_is_the_t_interval():
    scores = [20, 22, 19, 25, 30, 18, 21, 24]
    games = [[("A", a), ("B", 0)] for a in scores]
    s = summarize(synthetic(games))["bots"]
    n = len(scores)
    m = sum(scores) / n
    sd = math.sqrt(sum((x - m) ** 2 for x in scores) / (n - 1))
    t7 = 2.364624251592784          # Student's t, 97.5% quantile, 7 degrees of freedom
    assert s.loc["A", "mean_score"] == pytest.approx(m)
    assert s.loc["A", "score_low"] == pytest.approx(m - t7 * sd / math.sqrt(n))
    assert s.loc["A", "score_high"] == pytest.approx(m + t7 * sd / math.sqrt(n))
    assert s.loc["B", "score_low"] == s.loc["B", "score_high"] == 0      # no spread, no width


def test_seat_advantage_shows_a_seat_that_always_wins():
    # identical bots; seat 0 always scores more
    games = [[("A", 20), ("B", 10)], [("B", 20), ("A", 10)]] * 5
    s = summarize(synthetic(games))
    seats = s["seats"]
    assert seats.loc[0, "win_rate"] == 1.0 and seats.loc[1, "win_rate"] == 0.0
    assert seats.loc[0, "fair"] == 0.5
    assert seats.loc[0, "win_low"] == pytest.approx(textbook_wilson(10, 10)[0])
    assert s["seat_bots"].loc["A"].tolist() == [1.0, 0.0]
    assert s["bots"].loc["A", "win_rate"] == s["bots"].loc["B", "win_rate"] == 0.5


def test_components_officials_and_game_length():
    games = [[("A", 20), ("B", -3)], [("B", 5), ("A", 7)], [("A", 9), ("B", 1)]]
    uses = {("A", "postmaster"): 4, ("B", "cartwright"): 2}
    s = summarize(synthetic(games, uses=uses, turns={1: 100, 2: 50, 3: 90}))
    comp = s["components"]
    assert comp.loc["A", "carriage"] == pytest.approx((20 + 7 + 9) / 3)
    assert comp.loc["B", "carriage"] == pytest.approx((0 + 5 + 1) / 3)
    assert comp.loc["A", "tile_baden"] == 3
    off = s["officials"]
    assert off.loc["A", "postmaster"] == 4 and off.loc["A", "postmaster_early"] == 4
    assert off.loc["A", "postmaster_late"] == 0 and off.loc["B", "postmaster"] == 0
    assert off.loc["B", "cartwright"] == 2
    length = s["length"]
    assert length.loc["all games", "games"] == 3          # games, not rows
    assert length.loc["all games", "mean_turns"] == pytest.approx(80)
    assert length.loc["all games", "median_turns"] == 90
    assert (length.loc["all games", "min_turns"], length.loc["all games", "max_turns"]) == (50, 100)


def test_pairwise_table_for_three_bots():
    # A > B > C in every game, seats rotated; one game where B and C tie
    games = [[("A", 30), ("B", 20), ("C", 10)], [("B", 20), ("C", 10), ("A", 30)],
             [("C", 10), ("A", 30), ("B", 20)], [("A", 30), ("C", 15), ("B", 15)]]
    s = summarize(synthetic(games))
    pw = s["pairwise"].set_index(["bot", "opponent"])
    assert pw.loc[("A", "B"), "share"] == 1.0 and pw.loc[("B", "A"), "share"] == 0.0
    assert pw.loc[("B", "C"), "share"] == pytest.approx(3.5 / 4)
    assert pw.loc[("C", "B"), "share"] == pytest.approx(0.5 / 4)
    assert pw.loc[("A", "C"), "meetings"] == 4
    assert len(pw) == 6
    assert "pairwise" not in summarize(two_bot_games(3, 3))       # only for three or more bots


def test_ratings_order_bots_by_strength_and_are_symmetric_for_equal_results():
    games = [[("A", 30), ("B", 20), ("C", 10)], [("B", 20), ("C", 10), ("A", 30)],
             [("C", 10), ("A", 30), ("B", 20)]] * 4
    r = summarize(synthetic(games))["ratings"]
    assert r.loc["A", "mu"] > r.loc["B", "mu"] > r.loc["C", "mu"]
    assert (r["rating"] == r["mu"] - 3 * r["sigma"]).all()
    # A wins the first five games, B the last five: a single online pass would favour B by about 8
    # points; averaged over game orders the two are close
    even = summarize(two_bot_games(5, 5))["ratings"]
    assert even.loc["A", "mu"] == pytest.approx(even.loc["B", "mu"], abs=2.0)
    assert even.loc["A", "sigma"] < 25 / 3                  # evidence narrows the prior


def test_a_bot_holding_two_seats_gains_from_both():
    # A holds two seats of each 3-player game and both finish above B
    games = [[("A", 20), ("A", 15), ("B", 5)], [("B", 5), ("A", 20), ("A", 15)]] * 3
    s = summarize(synthetic(games))
    assert s["bots"].loc["A", "games"] == 12 and s["bots"].loc["B", "games"] == 6
    assert s["bots"].loc["A", "win_rate"] == pytest.approx(0.5)   # one of its two seats wins
    assert s["ratings"].loc["A", "mu"] > s["ratings"].loc["B", "mu"]


def test_bad_results_are_refused_with_a_clear_error():
    df = two_bot_games(2, 2)
    with pytest.raises(StatsError, match="lack the columns"):
        summarize(df.drop(columns=["win_share"]))
    with pytest.raises(StatsError, match="no games"):
        summarize(df.iloc[0:0])
    mixed = pd.concat([df, synthetic([[("A", 1), ("B", 2), ("C", 3)]]).assign(game=99)])
    with pytest.raises(StatsError, match="mix player counts"):
        summarize(mixed)


def test_text_and_json_output():
    s = summarize(synthetic([[("A", 30), ("B", 20), ("C", 10)], [("B", 20), ("C", 10), ("A", 30)]]))
    text = format_summary(s, "title line")
    assert text.startswith("title line")
    for name in ("A", "B", "C", "pairwise", "seat 2", "officials"):
        assert name in text
    data = json.loads(json.dumps(summary_to_json(s)))        # NaN becomes null, everything serialises
    assert {r["bot"] for r in data["bots"]} == {"A", "B", "C"}
    assert data["overview"][0]["games"] == 2


@given(st.integers(1, 300).flatmap(lambda n: st.tuples(st.just(n), st.integers(0, n))))
def test_wilson_interval_agrees_with_the_formula(nk):
    n, k = nk
    low, high = wilson_interval(k, n)
    assert 0 <= low <= k / n <= high <= 1
    assert (low, high) == pytest.approx(textbook_wilson(k, n), abs=1e-9)


def test_interval_edge_cases():
    assert all(math.isnan(x) for x in wilson_interval(0, 0))
    assert all(math.isnan(x) for x in mean_interval([3.0]))
    low, high = mean_interval(np.array([1.0, 3.0]))
    assert low < 2 < high


def test_clustered_interval_widens_when_games_decide_alike():
    """200 decisions in 20 games of 10: spread evenly over the games the clustered interval is the Wilson
    one; when each game's decisions all agree (10 games all right, 10 all wrong) only 20 independent
    answers remain, and the interval must be clearly wider."""
    even = clustered_proportion_interval([5] * 20, [10] * 20)
    lumped = clustered_proportion_interval([10] * 10 + [0] * 10, [10] * 20)
    wilson = wilson_interval(100, 200)
    assert even == pytest.approx(wilson, abs=0.02)
    assert lumped[0] < wilson[0] - 0.08 and lumped[1] > wilson[1] + 0.08
    assert lumped[0] < 0.5 < lumped[1]
    assert clustered_proportion_interval([10] * 10 + [0] * 10, [10] * 20) == lumped     # seeded: reproducible


@given(st.lists(st.integers(0, 12).flatmap(lambda m: st.tuples(st.integers(0, m), st.just(m))),
                min_size=1, max_size=30))
def test_clustered_interval_holds_the_pooled_share_and_the_wilson_interval(games):
    k = [a for a, _ in games]
    m = [b for _, b in games]
    if sum(m) == 0:
        assert all(math.isnan(x) for x in clustered_proportion_interval(k, m))
        return
    low, high = clustered_proportion_interval(k, m)
    w_low, w_high = wilson_interval(sum(k), sum(m))
    assert 0 <= low <= w_low <= sum(k) / sum(m) <= w_high <= high <= 1
