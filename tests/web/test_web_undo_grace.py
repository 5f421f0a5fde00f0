"""Undo until the turn is yours no more (issue 71): a person's card play that passes the turn to a bot stays
undoable until that bot moves; the next person's turn (hot seat) or the bot's move ends it."""
from __future__ import annotations

from thurn_ai.web.sessions import GameSession


def first_card_of_turn_1(seats):
    """Turn 1: the forced Postmaster's two draws, then a new route's first card, which ends the turn."""
    g = GameSession(seats, seed=5)
    g.play("draw deck")
    before = g.play("draw deck")["view"]
    card = next(m["move"] for m in before["legal"] if m["kind"] == "new")
    after = g.play(card)["view"]
    assert after["to_move"] == 1
    return g, before, after


def test_a_card_that_ends_the_turn_can_be_taken_back_until_the_bot_moves():
    g, before, after = first_card_of_turn_1(["human", "heuristic"])
    assert after["waiting_for"] == "bot" and after["undo"] == 1
    back = g.undo()
    assert back["undone"]["kind"] == "new" and back["view"]["waiting_for"] == "person"
    for k in ("position", "phase", "log", "legal", "scores"):
        assert back["view"][k] == before[k], k
    # once the bot has moved, nothing of the turn can be taken back
    card = next(m["move"] for m in before["legal"] if m["kind"] == "new")
    g.play(card)
    g.step()
    assert g.view()["undo"] == 0


def test_the_next_persons_turn_ends_it_at_once():
    g, _, after = first_card_of_turn_1(["human", "human"])
    assert after["waiting_for"] == "person" and after["undo"] == 0
