"""The field: the racer and the closer (frozen heuristic variants), and FIELD's names."""
from __future__ import annotations

import pytest

from thurn_ai.bots import make_bot
from thurn_ai.bots.field import FIELD, FIELD_ANCHOR, FIELD_SPECS
from thurn_ai.errors import BotSpecError
from thurn_ai.game.rules import Rules
from thurn_ai.play.match import play_game
from tests.bots.test_bots_rulebased import choose, play_turn, position

# The racer holds the 6-carriage (the next is the last: 7 cards, 5 with the Cartwright) and has played a fifth
# card; Passau in hand would extend the route. Closing now with the Cartwright ends the game.
ROUTE = ["Ulm", "Augsburg", "München", "Salzburg", "Linz"]
#: houses that put the other player ahead of what the racer's close would bring
AHEAD = ["Mannheim", "Carlsruhe", "Freiburg", "Stuttgart", "Würzburg", "Nürnberg", "Regensburg", "Ingolstadt",
         "Basel", "Zürich", "Innsbruck", "Kempten"]


def racer_position(other_ahead: bool = False):
    other = {"hand_size": 3, "carriage": 6, "houses": AHEAD} if other_ahead else {"hand_size": 3}
    return position([{"hand": ["Passau", "Basel"], "route": ROUTE, "carriage": 6}, other],
                    display=["Pilsen", "Würzburg", "Carlsruhe", "Mannheim", "Kempten", "Freiburg"])


def test_racer_takes_the_last_carriage_when_ahead():
    g = racer_position()
    moves = play_turn("racer", g)
    assert moves[0] == "close" and moves[-1] == "cartwright"
    assert g.export()["carriage"][0] == 4 and g.export()["end_triggered"]


def test_racer_does_not_end_the_game_when_behind():
    g = racer_position(other_ahead=True)
    moves = play_turn("racer", g)
    assert "cartwright" not in moves and not g.export()["end_triggered"]


def test_racer_ends_games_by_the_last_carriage_and_heuristic_does_not():
    """Seat-swapped games: the racer takes the 7-carriage in some, heuristic in fewer (review 6: heuristic
    never did against searches)."""
    rules = Rules(players=2)
    took = {"racer": 0, "heuristic": 0}
    for seed in range(10):
        for order in (("racer", "heuristic"), ("heuristic", "racer")):
            rec = play_game(rules, [make_bot(s, i) for i, s in enumerate(order)], seed=seed)
            for seat, spec in enumerate(order):
                took[spec] += rec.details[seat]["carriage_size"] == 7
    assert took["racer"] >= 2 and took["racer"] > took["heuristic"]


@pytest.mark.parametrize("spec", ["racer", "closer"])
@pytest.mark.parametrize("players", [2, 3, 4])
def test_legal_whole_games_and_same_seed_same_game(spec, players):
    rules = Rules(players=players)
    specs = [spec, "heuristic", "random", "greedy"][:players]
    a = play_game(rules, [make_bot(s, i) for i, s in enumerate(specs)], seed=players)     # raises on an illegal move
    b = play_game(rules, [make_bot(s, i) for i, s in enumerate(specs)], seed=players)
    assert not a.truncated and a.moves == b.moves and a.scores == b.scores
    assert a.details[0]["closes"] >= 2


def test_closer_closes_at_four_cards():
    g = position([{"hand": ["Salzburg", "Basel"], "route": ["Ulm", "Augsburg", "München"]}, {"hand_size": 3}],
                 phase="after_play", turn_state={"draws": 1, "plays": 1, "official_used": "postmaster"})
    assert choose("closer", g) != "close"          # three cards: it plays on (heuristic's own choice)
    g = position([{"hand": ["Basel"], "route": ["Kempten", "Ulm", "Augsburg", "München"]}, {"hand_size": 3}],
                 display=["Salzburg", "Würzburg", "Carlsruhe", "Mannheim", "Passau", "Linz"])
    assert choose("closer", g) == "close"


@pytest.mark.parametrize("spec", ["racer", "closer"])
def test_frozen_bots_take_no_options(spec):
    with pytest.raises(BotSpecError):
        make_bot(f"{spec}(close_at=5)")
    assert make_bot(f"{spec}(forbid=postmaster)").forbid == {"postmaster"}


def test_field_names_bots_that_exist_each_with_a_line():
    assert FIELD_ANCHOR in FIELD_SPECS and len(set(FIELD_SPECS)) == len(FIELD_SPECS)
    for bot in FIELD:
        assert make_bot(bot.spec, 0) is not None
        assert bot.plays_for and "\n" not in bot.plays_for
