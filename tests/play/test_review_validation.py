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
