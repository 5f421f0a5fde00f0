"""The review's validation numbers (thurn_ai.studies.review_validation), from small hand-made tables."""
import pandas as pd

from thurn_ai.studies.review_validation import order_confirm_numbers, order_numbers


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
    from thurn_ai.studies.review_validation import table_order_numbers

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
    from thurn_ai.studies.review_validation import at_table
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
