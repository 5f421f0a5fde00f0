"""The review's validation numbers (thurn_ai.studies.review_validation), from small hand-made tables."""
import pandas as pd
import pytest

from thurn_ai.play.review_rating import accuracy_of
from thurn_ai.studies.review_order import order_numbers
from thurn_ai.studies.review_validation import order_confirm_numbers


def test_the_confirmed_share_counts_deep_losses_of_a_mistake_or_more_by_bot():
    c = pd.DataFrame({"bot": ["heuristic"] * 4 + ["greedy"] * 2,
                      "loss_points": [2.0, 1.5, 3.0, 1.0, 1.2, 4.0],
                      "deep_loss_points": [1.0, 0.2, 2.5, -0.3, 1.1, 0.9]})
    n = order_confirm_numbers(c)
    assert n["confirm.heuristic.confirmed"].value == 0.5 and n["confirm.heuristic.confirmed"].games == 4
    assert n["confirm.greedy.confirmed"].value == 0.5                   # 0.9 is under the 1-point threshold
    assert n["confirm.heuristic.review_loss"].value == 1.875
    assert abs(n["confirm.heuristic.deep_loss"].value - 0.85) < 1e-12


def test_the_order_counts_games_where_the_weaker_bot_is_last_in_accuracy_and_loss():
    rows = []
    for game, (weak_loss, other_loss) in enumerate([(9.0, 3.0), (2.0, 5.0)]):
        for seat, (bot, loss) in enumerate([("greedy", weak_loss), ("heuristic", other_loss)]):
            rows.append({"kind": "order", "players": 2, "game": game, "seat": seat, "bot": bot, "weaker": "greedy",
                         "move": seat + 1, "loss_points": loss, "loss_win": 0.0, "accuracy": 100 - 10 * loss})
    n = order_numbers(pd.DataFrame(rows))
    assert n["order.greedy.loss"].value == 0.5 and n["order.greedy.loss"].games == 2
    assert n["order.greedy.accuracy"].value == 0.5


def _decision(review, kind, game, seat, bot, move, turn, best, played, score, loss_margin=0.0):
    return {"review": review, "kind": kind, "players": 3, "game": game, "seat": seat, "bot": bot,
            "weaker": "greedy" if kind == "greedy" else "", "move": move, "turn": turn, "best_points": best,
            "played_points": played, "loss_points": max(best - played, 0.0), "loss_margin": loss_margin,
            "loss_win": 0.0, "accuracy": 100.0 - 10 * max(best - played, 0.0), "score": score}


def test_a_seats_game_splits_into_parts_that_add_up_to_its_score():
    # turn 0: two decisions (the first loses 1, the next starts 0.5 higher than the first left it); turn 3: one
    # decision starting 4 higher than turn 0 ended (the other players' turns), and the score 1 under its value
    d = pd.DataFrame([_decision("default", "greedy", 0, 0, "greedy", 1, 0, 20.0, 19.0, 23),
                      _decision("default", "greedy", 0, 0, "greedy", 2, 0, 19.5, 19.5, 23),
                      _decision("default", "greedy", 0, 0, "greedy", 9, 3, 23.5, 24.0, 23)])
    from thurn_ai.studies.review_validation import DRIFT_PARTS, drift_table
    row = drift_table(d).iloc[0]
    assert tuple(row[p] for p in DRIFT_PARTS) == (20.0, -0.5, 0.5, 4.0, -1.0)
    assert sum(row[p] for p in DRIFT_PARTS) == row.score == 23
    assert row.loss == 1.0                      # the review's total counts no gain


def test_the_drift_numbers_compare_the_searchs_seat_at_a_heuristic_table_with_self_play():
    from thurn_ai.studies.review_validation import drift_numbers
    rows = []
    for game, gain in enumerate([6.0, 8.0, 7.0]):        # the search's seat gains between turns at a heuristic table
        rows += [_decision("default", "one_search", game, 0, "mcts", 1, 0, 20.0, 20.0, 27),
                 _decision("default", "one_search", game, 0, "mcts", 2, 3, 20.0 + gain, 20.0 + gain, 27)]
    for game, gain in enumerate([-2.0, -1.0, -3.0]):     # ... and loses in self-play
        rows += [_decision("default", "selfplay", game, 1, "mcts", 1, 0, 20.0, 20.0, 17),
                 _decision("default", "selfplay", game, 1, "mcts", 2, 3, 20.0 + gain, 20.0 + gain, 17)]
    for seat, (bot, margin) in enumerate([("greedy", 3.0), ("heuristic", 5.0)]):
        rows.append(_decision("default", "greedy", 0, seat, bot, seat + 1, 0, 20.0, 18.0 + seat, 10, margin))
    n = drift_numbers(pd.DataFrame(rows))
    assert n["drift.default.one_search.mcts.between"].value == 7.0
    assert n["drift.default.selfplay.mcts.between"].value == -2.0
    assert n["drift.test.difference"].value == 9.0 and n["drift.test.p"].value < 0.01
    assert n["drift.greedy.margin"].value == 0.0            # heuristic lost the more margin
    assert n["drift.greedy.default.both"].value == 1.0      # greedy lost 2 points, heuristic 1


def _truth(bot, review_losses, table_losses):
    return [{"bot": bot, "phase": "after_play", "played": "stop", "best": "close", "loss_points": r,
             "table_loss": t} for r, t in zip(review_losses, table_losses)]


def test_the_table_loss_tests_accept_when_the_review_overstates_heuristics_losses_only():
    from thurn_ai.studies.review_validation import truth_lines, truth_numbers
    over = pd.DataFrame(_truth("heuristic", [2.0, 1.5, 3.0, 1.2, 2.2], [0.1, -0.5, 0.4, 0.0, -0.2])
                        + _truth("greedy", [1.5, 2.0, 1.1, 1.3, 2.5], [1.7, 2.4, 0.8, 1.0, 2.6]))
    n = truth_numbers(over)
    assert abs(n["truth.heuristic.excess"].value - (9.9 - (-0.2)) / 5) < 1e-12
    assert n["truth.heuristic.real"].value == 0.0 and n["truth.greedy.real"].value == 0.8     # 1.0 is a mistake
    assert n["truth.test.a.accepted"].value == 1 and n["truth.test.b.accepted"].value == 1
    assert n["truth.test.a.p"].value < 0.05
    # the same losses, the table agreeing with the review for both bots: neither test accepts
    agree = over.assign(table_loss=over["loss_points"] + [0.1, -0.1, 0.2, -0.2, 0.0] * 2)
    n = truth_numbers(agree)
    assert n["truth.test.a.accepted"].value == 0 and n["truth.test.b.accepted"].value == 0
    lines = truth_lines(over)
    assert any("| heuristic | after_play: stop for close | 5 | 1.98 | -0.04 |" in line for line in lines), lines


def test_the_table_review_is_adopted_only_if_every_count_meets_its_rule():
    from thurn_ai.studies.review_order import table_order_numbers

    def games(weaker, players, wins, n):
        rows = []
        for game in range(n):
            weak_loss = 9.0 if game < wins else 1.0
            for seat in range(players):
                bot, loss = (weaker, weak_loss) if seat == 0 else ("heuristic", 3.0)
                rows.append({"weaker": weaker, "players": players, "game": game, "seat": seat, "bot": bot,
                             "loss_points": loss, "loss_win": 0.0, "accuracy": 100 - 10 * loss,
                             "rated_by": "table" if seat == 0 else "search"})
        return rows
    met = pd.DataFrame(games("greedy", 3, 4, 5) + games("greedy", 4, 5, 5) + games("random", 3, 5, 5))
    n = table_order_numbers(met)
    assert n["table.greedy.p3.both"].value == 0.8 and n["table.random.p3.both"].value == 1.0
    assert n["table.adopted"].value == 1
    # greedy's seat (seat 0, played on at the table) at 3-4 players: 9 points in 9 games, 1 in one
    assert n["table.greedy.at_table"].value == 8.2 and n["table.greedy.by_search"].value == 0
    assert n["table.heuristic.by_search"].value == 3.0 and n["table.heuristic.at_table"].value == 0
    assert n["table.greedy.zero"].value == 0
    short = pd.DataFrame(games("greedy", 3, 4, 5) + games("random", 3, 4, 5))     # random must be last every game
    assert table_order_numbers(short)["table.adopted"].value == 0
    only_greedy = pd.DataFrame(games("greedy", 3, 5, 5))                             # a pairing not measured
    assert table_order_numbers(only_greedy)["table.adopted"].value == 0


def test_at_table_puts_the_played_on_decisions_back_into_the_games_gone_through():
    from thurn_ai.studies.review_order import at_table
    o = pd.DataFrame([{"weaker": "greedy", "players": 2, "game": game, "move": move, "seat": move % 2,
                       "loss_points": 1.5 * move, "accuracy": 50.0, "label": "mistake", "uncertainty": ""}
                      for game in (0, 1) for move in (1, 2)])
    t = pd.DataFrame([{"weaker": "greedy", "players": 2, "game": 0, "move": 2, "seat": 0, "loss_search": 3.0,
                       "loss_points": 0.0, "label": "", "uncertainty": 0.8, "accuracy": 100.0}])
    games = pd.DataFrame([{"weaker": "greedy", "players": 2, "game": 0, "played_on": 1}])
    got = at_table(o, t, games).set_index("move")
    assert list(got["game"]) == [0, 0]                       # game 1 was not gone through
    assert got.loc[2, "rated_by"] == "table" and got.loc[2, "loss_points"] == 0.0 and got.loc[2, "label"] == ""
    assert got.loc[2, "loss_search"] == 3.0 and got.loc[2, "accuracy"] == 100.0 and got.loc[2, "uncertainty"] == 0.8
    assert got.loc[1, "rated_by"] == "search" and got.loc[1, "loss_points"] == 1.5 and got.loc[1, "label"] == "mistake"


def _seat_rows(game, players, losses, table=None):
    """One decision a seat (seat 0 greedy) of a greedy game: its search loss, and where `table` gives one, the
    table's (mean, standard error)."""
    rows, played_on = [], []
    for seat, loss in enumerate(losses):
        row = {"weaker": "greedy", "players": players, "game": game, "move": seat + 1, "seat": seat,
               "bot": "greedy" if seat == 0 else "heuristic", "loss_points": loss, "loss_win": 0.0,
               "accuracy": accuracy_of(loss)}
        rows.append(row)
        if table and seat in table:
            played_on.append({**row, "loss_search": loss, "table_loss": table[seat][0], "table_se": table[seat][1]})
    return rows, played_on


def test_a_decision_played_on_counts_as_each_rule_says_and_the_rest_keep_the_searchs_loss():
    from thurn_ai.studies.review_order import rated_at_table
    rows, on = _seat_rows(0, 3, [2.0, 1.0, 0.3], table={0: (1.5, 0.5), 1: (-0.8, 0.6)})
    extra, _ = _seat_rows(1, 3, [1.0, 1.0, 1.0])                  # a game the table did not go through
    o, t = pd.DataFrame(rows + extra), pd.DataFrame(on)
    for count, want in (("clamped", [1.5, 0.0]), ("smaller", [1.0, 0.0]), ("mean", [1.5, -0.8])):
        got = rated_at_table(o, t, count).set_index("seat")
        assert list(got["game"].unique()) == [0]
        assert list(got.loc[[0, 1], "loss_points"]) == pytest.approx(want)
        assert got.loc[2, "loss_points"] == 0.3 and got.loc[2, "accuracy"] == accuracy_of(0.3)   # the search's
        assert list(got.loc[[0, 1], "accuracy"]) == pytest.approx([accuracy_of(w) for w in want])


def test_table_all_chooses_the_count_that_orders_most_games_and_the_plainest_on_a_tie():
    from thurn_ai.studies.review_order import table_all_choice, table_all_numbers
    rows, on = [], []
    # greedy (seat 0) lost 1 point by the search and 2 at the table; heuristic (seat 1) 2 by the search, at the
    # table -0.5 +- 0.1 (a move that did better there): clamped counts it 0 and orders greedy last; so does mean
    for game in range(4):
        r, t = _seat_rows(game, 3, [1.0, 2.0, 0.0], table={0: (2.0, 0.2), 1: (-0.5, 0.1)})
        rows, on = rows + r, on + t
    o, t = pd.DataFrame(rows), pd.DataFrame(on)
    assert table_all_choice(o, t) == "clamped"                   # clamped, smaller, mean all order every game
    n = table_all_numbers(o, t)
    assert n["table_all.clamped.p3"].value == 1 and n["table_all.mean.p3"].value == 1
    assert n["table_all.greedy.table"].value == 2.0 and n["table_all.heuristic.search"].value == 2.0
    # heuristic's table loss 2.5 +- 2.0 instead: clamped and mean count it above greedy's 2.0; only `smaller`
    # (0.5 against 2.0 - 0.2) leaves greedy last
    t2 = t.assign(table_loss=[2.0 if s == 0 else 2.5 for s in t["seat"]],
                  table_se=[0.2 if s == 0 else 2.0 for s in t["seat"]])
    assert table_all_choice(o, t2) == "smaller"
    n = table_all_numbers(o, t2)
    assert n["table_all.clamped.p3"].value == 0 and n["table_all.smaller.p3"].value == 1


def _fresh_rows(players, ordered, n, unordered_loss=3.0):
    """fresh.csv's rows of n games: greedy (seat 0) 1 by the search, 2 at the table; heuristic (seat 1) 2 by
    the search, and at the table 0.5 in the first `ordered` games, `unordered_loss` in the others."""
    rows = []
    for game in range(n):
        r, t = _seat_rows(game, players, [1.0, 2.0] + [0.0] * (players - 2),
                          table={0: (2.0, 0.1), 1: (0.5 if game < ordered else unordered_loss, 0.1)})
        for row in r:
            row.update(table_loss=float("nan"), table_se=float("nan"))
            row.update(next(({"table_loss": x["table_loss"], "table_se": x["table_se"]} for x in t
                              if x["seat"] == row["seat"]), {}))
        rows += r
    return rows


def test_the_fresh_games_pass_only_if_the_chosen_count_orders_enough_games_at_3_and_at_4_players():
    from thurn_ai.studies.review_order import fresh_numbers
    f = pd.DataFrame(_fresh_rows(3, 8, 10) + _fresh_rows(4, 9, 10))
    n = fresh_numbers(f, "clamped")
    assert n["fresh.clamped.p3"].value == 0.8 and n["fresh.clamped.p4"].value == 0.9
    assert n["fresh.default.p3"].value == 0 and n["fresh.default.p3"].games == 10     # the search ranks heuristic last
    assert n["fresh.passed"].value == 1
    f = pd.DataFrame(_fresh_rows(3, 7, 10) + _fresh_rows(4, 10, 10))
    assert fresh_numbers(f, "clamped")["fresh.passed"].value == 0
    assert fresh_numbers(pd.DataFrame(_fresh_rows(3, 10, 10)), "clamped")["fresh.passed"].value == 0   # 4 missing
    # fresh_small's numbers by the same rule, under their own names; a run short of its games has not passed
    f = pd.DataFrame(_fresh_rows(3, 8, 10) + _fresh_rows(4, 9, 10))
    n = fresh_numbers(f, "clamped", "fresh_small", complete=10)
    assert n["fresh_small.passed"].value == 1 and n["fresh_small.clamped.p4"].value == 0.9
    assert "fresh.passed" not in n and "fresh_small" in n["fresh_small.default.p3"].says
    assert fresh_numbers(f, "clamped", "fresh_small", complete=20)["fresh_small.passed"].value == 0


def test_more_deals_pool_into_each_decision_and_the_deep_check_reads_the_games_gone_through_whole(tmp_path):
    from thurn_ai.studies.review_order import fresh_deep_frames, fresh_deep_lines, fresh_deep_numbers
    # 16 deals: heuristic's decision loses 3.0 at the table in games 6-9 (greedy not last: 60%); 48 more deals
    # say -1.0 there: pooled (16 * 3 - 48) / 64 = 0, below greedy's 2.0 (greedy last: 100%)
    f = pd.DataFrame(_fresh_rows(3, 6, 10))
    f.to_csv(tmp_path / "fresh.csv", index=False)
    on = f.dropna(subset=["table_loss"])
    more = on.assign(more_loss=[-1.0 if (s == 1 and g >= 6) else x for s, g, x in
                                zip(on["seat"], on["game"], on["table_loss"])], more_se=0.1, more_deals=48)
    assert fresh_deep_frames(tmp_path) is None                       # the stage has not run
    more[~((more["game"] == 9) & (more["seat"] == 0))].to_csv(tmp_path / "fresh_deep.csv", index=False)
    few, many = fresh_deep_frames(tmp_path)
    assert sorted(many["game"].unique()) == list(range(9))           # game 9 lacks a decision's more deals
    row = many[(many["game"] == 7) & (many["seat"] == 1)].iloc[0]
    assert row["table_loss"] == pytest.approx(0.0) and 0.1 < row["table_se"] < 0.5   # the two parts disagree
    assert many[many["seat"] == 2]["table_loss"].isna().all()       # not played on stays so
    n = fresh_deep_numbers(few, many)
    assert n["fresh_deep.few.p3"].value == pytest.approx(6 / 9) and n["fresh_deep.many.p3"].value == 1
    assert n["fresh_deep.passed"].value == 1 and n["fresh_deep.many.p3"].games == 9
    assert n["fresh_deep.few.largest_loss.p3"].value == pytest.approx(6 / 9)
    assert n["fresh_deep.many.largest_loss.p3"].value == 1
    assert n["fresh_deep.many.worst_accuracy.p3"].value == 1 and n["fresh_deep.many.greedy.total"].value == 2.0
    assert n["fresh_deep.few.heuristic.spread"].value > n["fresh_deep.many.heuristic.spread"].value
    # at 16 deals the table is sure heuristic's 3.0 (+- 0.1) exceeds greedy's 2.0 (+- 0.1) in games 6-8; at 64 not
    assert n["fresh_deep.few.sure"].value == pytest.approx(3 / 9) and n["fresh_deep.many.sure"].value == 0
    noisy = few.assign(table_se=few["table_se"] * 5)                  # 1.0 apart, 0.71 standard errors
    assert fresh_deep_numbers(noisy, many)["fresh_deep.few.sure"].value == 0
    assert "| 64 | 3 players: 100% | 0% | heuristic | 9 |" in "\n".join(fresh_deep_lines(few, many))


def test_the_spread_beyond_the_noise_is_what_the_noise_does_not_explain():
    from thurn_ai.studies.review_order import _beyond_noise
    totals = pd.DataFrame({"total": [0.0, 2.0, 4.0], "noise": [1.0, 1.0, 1.0]})      # variance 4 of which 1 noise
    assert _beyond_noise(totals) == pytest.approx(3 ** 0.5)
    assert _beyond_noise(totals.assign(noise=5.0)) == 0.0


def _small_games(n):
    """fresh.csv's rows of n 3-player games: each seat one decision played on (greedy 2.0 at the table,
    heuristic 0.5) and one not, whose search loss is greedy's 0.4 and heuristic's 2.0."""
    rows = _fresh_rows(3, n, n)
    for game in range(n):
        for seat, loss in enumerate([0.4, 2.0, 0.0]):
            rows.append({**next(r for r in rows if r["game"] == game and r["seat"] == seat), "move": 10 + seat,
                         "loss_points": loss, "accuracy": accuracy_of(loss), "table_loss": float("nan"),
                         "table_se": float("nan")})
    return pd.DataFrame(rows)


def test_the_smaller_losses_count_at_their_bots_ratio_of_table_to_search_loss():
    from thurn_ai.studies.review_order import scaled_below_table, small_lines, small_numbers, small_ratios
    from thurn_ai.studies.review_validation import truth_numbers
    # the sample: heuristic's smaller losses vanish at the table (ratio 0), greedy's stay (ratio 1)
    s = pd.DataFrame([{"bot": "heuristic", "loss_points": 0.3, "table_loss": t} for t in (0.1, -0.1, 0.0, 0.0)]
                     + [{"bot": "greedy", "loss_points": x, "table_loss": x} for x in (0.2, 0.3, 0.4)])
    r = small_ratios(s)
    assert r["heuristic"].value == pytest.approx(0.0) and r["greedy"].value == pytest.approx(1.0)
    assert r["heuristic"].lo <= 0.0 <= r["heuristic"].hi and r["heuristic"].games == 4
    f = _small_games(5)
    scaled = scaled_below_table(f, {"heuristic": 0.5, "greedy": 1.0}).set_index(["game", "move"])
    assert scaled.loc[(0, 11), "loss_points"] == 1.0 and scaled.loc[(0, 11), "accuracy"] == accuracy_of(1.0)
    assert scaled.loc[(0, 10), "loss_points"] == 0.4 and scaled.loc[(0, 2), "loss_points"] == 2.0   # played on: kept
    n = small_numbers(s, f, None)
    # counted in full, heuristic's 0.5 + 2.0 exceeds greedy's 2.0 + 0.4; at heuristic's ratio 0 greedy is last
    assert n["small.both_0.few.p3"].value == 1 and n["small.heuristic_0.few.p3"].value == 1
    assert n["small.sampled.few.p3"].value == 1 and n["small.sampled.few.p3"].games == 5
    assert small_numbers(s.assign(table_loss=s["loss_points"]), f, None)["small.sampled.few.p3"].value == 0
    assert "| sampled: greedy 1.00, heuristic 0.00 | 16 | 3 players: 100% |" in "\n".join(small_lines(s, f, None))
    t = truth_numbers(s.assign(phase="play", played="x", best="y"), "small", "smaller losses")
    assert t["small.heuristic.excess"].value == pytest.approx(0.3) and "small.test.a.accepted" in t
    assert t["small.greedy.loss_points"].says.startswith("greedy's smaller losses: mean loss by the review")
