"""playout=heuristic-tiles: the heuristic playout whose close rule also weighs the route-length tiles (5, 6 and 7
cards on the South board: 2, 3 and 4 points at the top of their stacks). Where the rule of thumb would close,
it waits a turn when a card in hand extends the route for sure and one card more earns a better tile; the
default playout, `heuristic`, is left as it was (tests/core/test_pinned.py pins the default searches)."""
import pytest
from hypothesis import given, settings, strategies as st

from thurn_ai import _search
from thurn_ai.bots import make_bot
from thurn_ai.bots.search_options import SearchOptions
from thurn_ai.game.rules import Rules
from thurn_ai.play.match import play_game

from tests.core.test_search import RULES, played_position
from tests.helpers import build

HEURISTIC = _search.PLAYOUTS["heuristic"]
TILES = _search.PLAYOUTS["heuristic-tiles"]
# a route along the South board's roads, left end first (tests/game/test_rules_examples.py LONG_ROUTE)
ROUTE = ["Basel", "Freiburg", "Carlsruhe", "Mannheim", "Würzburg", "Nürnberg", "Regensburg", "Passau"]


def after_card(length: int, hand: list[str], **kw):
    """Seat 0 of 2 has just played the route's length-th card (ROUTE[:length]) and holds `hand`; the
    Administrator taken this turn, so no second card: close or stop. A 3-carriage held, so the rule of
    thumb's target is the next carriage's 4 cards less the Cartwright's one: it closes from 3 cards on."""
    return build(2, current=0, phase="after_play", routes={0: ROUTE[:length]}, hands={0: hand},
                 carriage={0: 0}, official="administrator", **kw)


def choices(g, kind: int) -> set[str]:
    return {g.move_str(_search.policy_choice(g, seed, 0, 0.0, kind)) for seed in range(8)}


@pytest.mark.parametrize("length, tile_now, tile_later", [(4, 0, 2), (5, 2, 3), (6, 3, 4)])
def test_waits_a_card_for_a_better_route_tile_with_the_card_in_hand(length, tile_now, tile_later):
    """A 4-card route earns no tile, 5 cards the 5-tile (2): with the card that extends it in hand, the tile
    rule stops and closes a card later; the default rule closes now."""
    g = after_card(length, [ROUTE[length]])
    assert sorted(g.move_str(m) for m in g.legal_moves()) == ["close", "stop"]
    assert choices(g, HEURISTIC) == {"close"}
    assert choices(g, TILES) == {"stop"}


@pytest.mark.parametrize("case", ["no card fits", "no better tile", "the end is triggered", "too short for a tile",
                                  "the longer tile is gone"])
def test_closes_as_the_rule_of_thumb_where_waiting_gains_no_tile_or_risks_the_route(case):
    kw: dict = {}
    length, hand = 4, [ROUTE[4]]
    if case == "no card fits":
        hand = ["Lodz"]                           # Lodz joins neither end of Basel-...-Mannheim
    elif case == "no better tile":
        length, hand = 7, [ROUTE[7]]              # 8 cards take the 7-tile too
    elif case == "the end is triggered":
        kw = {"end_player": 1}
    elif case == "too short for a tile":
        length, hand = 3, [ROUTE[3]]              # 4 cards earn no route tile either
    else:
        kw = {"stack_pos": {"route5": 2}}         # the 5-tiles are gone: a 5-card route earns nothing more
    g = after_card(length, hand, **kw)
    assert choices(g, HEURISTIC) == {"close"}
    assert choices(g, TILES) == {"close"}


@pytest.mark.parametrize("horses, tiles_rule", [(["Stettin"], "close"), (["Stettin", "Lübeck"], "stop")])
def test_in_the_horses_variant_it_waits_only_when_the_longer_route_has_its_horses(horses, tiles_rule):
    """North board, horses variant: a route of L cards closes with 2 + the laid horses >= L. Five cards with
    Stettin's 3 horses laid may close, six would need another horse card: close now; with Lübeck's 2 more,
    six cards can close too: wait for the 6-tile (3 points against the 5-tile's 2)."""
    route = ["Berlin", "Halle", "Magdeburg", "Hannover", "Münster", "Cöln"]
    g = build(2, rules=Rules(players=2, board="north", variant="horses"), current=0, phase="after_play",
              routes={0: route[:5]}, hands={0: [route[5]]}, official="administrator", horse_cards={0: horses})
    assert choices(g, HEURISTIC) == {"close"}
    assert choices(g, TILES) == {tiles_rule}


@settings(max_examples=60, deadline=None)
@given(rule=st.sampled_from([*RULES, Rules(players=3, board="north", variant="horses")]),
       seed=st.integers(0, 10**6), moves=st.integers(0, 500), eps=st.sampled_from([0.0, 0.05]))
def test_the_tile_playout_plays_legal_moves_and_differs_only_at_a_close(rule, seed, moves, eps):
    g = played_position(rule, seed, moves)
    if g.is_terminal():
        return
    m = _search.policy_choice(g, seed, 0, eps, TILES)
    assert g.is_legal(m)
    assert _search.policy_choice(g, seed, 0, eps, TILES) == m                     # same seed, same move
    if "close" not in {g.move_str(x) for x in g.legal_moves()}:
        assert m == _search.policy_choice(g, seed, 0, eps, HEURISTIC)


def test_the_option_is_opt_in_and_named_like_the_other_playouts():
    assert SearchOptions().playout == "heuristic"
    assert make_bot("mcts").options.playout == "heuristic"
    assert make_bot("anchor-1k").options.playout == "heuristic"
    assert make_bot("mcts(playout=heuristic-tiles)").options.tree_args()["playout"] == TILES
    with pytest.raises(ValueError):
        _search.policy_choice(build(2), 1, 0, 0.0, max(_search.PLAYOUTS.values()) + 1)


@pytest.mark.parametrize("players, board", [(2, "south"), (3, "north")])
def test_a_search_with_the_tile_playout_plays_legal_games_and_the_same_seed_the_same_game(players, board):
    # Table.check_bot_move refuses an illegal move
    rules = Rules(players=players, board=board)

    def game():
        bots = [make_bot("mcts(playout=heuristic-tiles,iterations=30)", seed=7)]
        return play_game(rules, bots + [make_bot("greedy", seed=i) for i in range(players - 1)], 3)
    a = game()
    assert not a.truncated
    assert game().moves == a.moves
