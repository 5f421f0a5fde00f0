"""The compiled search's whole-turn restriction of the officials (Tree(officials=OfficialFilter(turn_uses=,
turn_avoids=)), SearchBot.restrict_turn): every decision of the root player's current turn is held to one choice of
official, in the tree and in the playout's rest of the turn; later turns are free."""
import pytest

import thurn_ai
from thurn_ai import _policy, _search
from thurn_ai.bots import make_bot
from thurn_ai.bots.base import Observation
from thurn_ai.bots.search_options import SearchOptions
from thurn_ai.errors import BotSpecError
from thurn_ai.game.officials import OFFICIALS, official_of

ALL = _search.official_mask(OFFICIALS)
BIT = {o: _search.official_mask([o]) for o in OFFICIALS}


def turn_start(players=2, seed=3, after=6):
    """A game at the first decision of a turn (draw phase, no card drawn) with a card in hand, so no
    Postmaster is forced, after at least `after` turns."""
    g = thurn_ai.new_game(players=players, seed=seed)
    while True:
        t = g.turn_state()
        if t.turn >= after and t.phase == 0 and t.draws == 0 and not t.forced_pm:
            return g
        g.apply(_search.policy_choice(g, g.turn, 0, 0.0))


def tree(g, seed=5, iterations=1500, **kw):
    t = _search.Tree(g, seed, officials=_search.OfficialFilter(**kw), **SearchOptions(horizon=2).tree_args())
    t.run(iterations)
    return t


def with_(official):
    return {"turn_uses": BIT[official], "turn_avoids": ALL & ~BIT[official]}


def test_an_unrestricted_turn_tries_several_officials():
    # the baseline the restricted searches are told apart from
    used = tree(turn_start()).turn_officials()
    assert BIT["postmaster"] in used and len(used) >= 2


def test_a_turn_with_no_official_never_expands_one():
    g = turn_start()
    t = tree(g, turn_avoids=ALL)
    assert t.turn_officials() == {}
    assert all(bit == 0 for _m, bit in t.principal_variation(officials=True))
    assert not any(official_of(g, m) for m, *_ in t.root_children())


@pytest.mark.parametrize("official", OFFICIALS)
def test_a_turn_with_one_official_expands_no_other(official):
    t = tree(turn_start(), **with_(official))
    assert set(t.turn_officials()) <= {BIT[official]}


def test_with_the_administrator_the_root_replaces_the_display():
    # offered at the root, so the root keeps only the moves that use it
    g = turn_start()
    root = tree(g, **with_("administrator")).root_children()
    assert root and all(official_of(g, m) == "administrator" for m, *_ in root)


def test_with_the_postmaster_the_second_draw_is_taken():
    # the root draws (the Administrator is avoided); the next decision offers the Postmaster, which is taken
    g = turn_start()
    t = tree(g, **with_("postmaster"))
    assert all(official_of(g, m) is None for m, *_ in t.root_children())
    line = t.principal_variation(officials=True)
    assert len(line) >= 2 and line[1][1] == BIT["postmaster"]
    assert t.turn_officials().get(BIT["postmaster"], 0) > 0


def test_the_restriction_ends_with_the_turn():
    # the next turn of the same player (4 turns on at 2 players: past the opponent) may use officials:
    # the search's own tree only reaches past the turn through the playouts, so check the playout helper
    g = turn_start()
    before = [list(u) for u in g.export()["official_uses"]]
    _policy.policy_turn_playout(g, 7, 0, ALL)
    p = 1 - g.current_player
    assert g.export()["official_uses"][p] == before[p]      # the rest of the turn: no official
    assert g.turn_state().draws == 0                         # and it stopped at the next turn's start


@pytest.mark.parametrize("official", ["postmaster", "postal_carrier"])
def test_the_playouts_rest_of_the_turn_obeys_the_restriction(official):
    # from the turn's start, many seeds: "none" never uses an official, "with X" never another and uses
    # X on some seeds (it is taken wherever offered)
    used_x = 0
    for seed in range(20):
        for uses, avoids in ((0, ALL), (BIT[official], ALL & ~BIT[official])):
            g = turn_start(seed=seed % 5 + 1)
            p = g.current_player
            before = g.official_uses(p)
            _policy.policy_turn_playout(g, seed, uses, avoids)
            delta = {o: k - before[o] for o, k in g.official_uses(p).items()}
            assert not any(d for o, d in delta.items() if o != official)
            if uses:
                used_x += delta[official]
            else:
                assert not any(delta.values())
    assert used_x > 0
    if official == "postmaster":      # always on offer after the first draw: always taken
        assert used_x == 20


def test_a_turn_restricted_search_is_reproducible_by_seed():
    g = turn_start()
    a, b = tree(g, seed=9, **with_("postal_carrier")), tree(g, seed=9, **with_("postal_carrier"))
    assert a.root_children() == b.root_children() and a.n_nodes == b.n_nodes
    assert tree(g, seed=9).root_children() != a.root_children()


def test_bad_turn_restrictions_are_refused():
    g = turn_start()
    args = SearchOptions().tree_args()
    pm = BIT["postmaster"]
    with pytest.raises(ValueError, match="turn_uses and turn_avoids must be disjoint"):
        _search.OfficialFilter(turn_uses=pm, turn_avoids=pm)
    # the turn's and the root's restrictions together leave the root nothing: an error, not a silent search
    with pytest.raises(ValueError, match="no move of the root decision"):
        _search.Tree(g, 1, officials=_search.OfficialFilter(turn_avoids=ALL, root_uses=BIT["administrator"]), **args)
    bot = make_bot("mcts(iterations=10)", seed=1)
    with pytest.raises(BotSpecError, match="no official 'mayor'"):
        bot.restrict_turn("mayor")
    with pytest.raises(BotSpecError, match="forbids the postmaster"):
        make_bot("mcts(iterations=10,forbid=postmaster)", seed=1).restrict_turn("postmaster")


@pytest.mark.parametrize("spec", ["mcts(iterations=200)", "pimc(iterations=200)"])
def test_restrict_turn_on_the_bots_and_lifting_it(spec):
    g = turn_start()
    obs = Observation(g, g.current_player, seed=1)
    bot = make_bot(spec, seed=1)
    bot.restrict_turn("none")
    assert bot.line_officials(obs) == ()
    assert all(official_of(g, r.move) is None for r in bot.analyse(obs))
    bot = make_bot(spec, seed=1)
    bot.restrict_turn("postmaster")
    assert bot.line_officials(obs)[:1] == ("postmaster",)
    lifted = make_bot(spec, seed=1)
    lifted.restrict_turn("postmaster")
    lifted.restrict_turn(None)
    assert lifted.analyse(obs) == make_bot(spec, seed=1).analyse(obs)
