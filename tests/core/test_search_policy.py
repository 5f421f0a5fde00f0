"""The compiled planning policy (playouts, prior and evaluation of `mcts`) and the search's own checks of
its parameters: legal and forbid-respecting moves on every board, variant and player count, the
planner's judgment in positions with one right answer, and no number that could make the compiled tree
read out of bounds or run forever."""
import math

import pytest
from hypothesis import given, settings, strategies as st

import thurn_ai
from thurn_ai.learned import default_model
from thurn_ai import _search
from thurn_ai.bots import Observation, make_bot
from thurn_ai.game.officials import official_of
from thurn_ai.bots.search_options import EVALUATIONS, PLAYOUTS, REWARDS, SELECTS, SearchOptions
from thurn_ai.errors import BotSpecError
from thurn_ai.play.match import play_game
from thurn_ai.game.rules import HOUSES, Rules

from tests.core.test_search import RULES, closing_position, played_position

EVERY_OFFICIAL = _search.official_mask(["postmaster", "administrator", "postal_carrier", "cartwright"])


@settings(max_examples=60, deadline=None)
@given(rule=st.sampled_from(RULES), seed=st.integers(0, 10**6), moves=st.integers(0, 500),
       forbid=st.sampled_from([0, EVERY_OFFICIAL]))
def test_plan_policy_move_is_legal_deterministic_and_respects_forbid(rule, seed, moves, forbid):
    g = played_position(rule, seed, moves)
    if g.is_terminal():
        return
    before = g.export()
    m = _search.plan_policy_choice(g, forbid)
    assert g.is_legal(m)
    assert g.export() == before                       # the policy only looks
    assert _search.plan_policy_choice(g, forbid) == m   # no randomness
    if forbid and any(official_of(g, x) is None for x in g.legal_moves()):
        assert official_of(g, m) is None


@pytest.mark.parametrize("rules", [Rules(players=2), Rules(players=3), Rules(players=4),
                                   Rules(players=3, board="north"),
                                   Rules(players=2, board="north", variant="classic")])
def test_plan_policy_plays_whole_games_and_scores(rules):
    """Self-play of the planning policy ends naturally, and it closes routes and places houses (the
    one-step policy it replaced left most houses unplaced)."""
    for seed in range(3):
        g = thurn_ai.new_game(rules=rules, seed=seed)
        while not g.is_terminal():
            g.apply(_search.plan_policy_choice(g))
        d = g.export()
        assert not d["truncated"]
        placed = [HOUSES - d["houses_left"][p] for p in range(rules.players)]
        assert max(placed) >= 10


def test_plan_policy_closes_the_route_that_wins_the_game():
    g = closing_position()
    assert g.move_str(_search.plan_policy_choice(g)) == "close"


def test_plan_policy_extends_the_route_rather_than_abandon_it():
    """With a card in hand that extends the route, the planner extends; the one that starts over loses
    the route's cards."""
    g = thurn_ai.new_game(players=2, seed=3)
    for _ in range(2000):
        if g.is_terminal():
            g = thurn_ai.new_game(players=2, seed=g.turn + 7)
        if g.phase == "play" and len(g.export()["route"][g.current_player]) >= 2:
            kinds = {g.move_str(m).split()[0] for m in g.legal_moves()}
            if {"left", "right"} & kinds and "new" in kinds:
                m = g.move_str(_search.plan_policy_choice(g))
                assert m.split()[0] in ("left", "right", "draw", "administrator"), m
        g.apply(_search.plan_policy_choice(g))


@pytest.mark.parametrize("spec", ["mcts(iterations=60,playout=plan,horizon=2)",
                                  "mcts(iterations=60,eval=plan)",
                                  "mcts(iterations=60,select=ucb,prior=0)",
                                  "pimc(iterations=60,worlds=3,playout=plan,horizon=1)"])
def test_plan_options_play_legal_games(spec):
    rules = Rules(players=3)
    bots = [make_bot(spec, seed=1), make_bot("heuristic"), make_bot("greedy")]
    rec = play_game(rules, bots, seed=8)     # raises on an illegal move
    assert not rec.truncated


@pytest.mark.parametrize("spec", ["mcts(iterations=150,playout=plan,horizon=2,eval=plan)", "mcts(iterations=150)"])
def test_plan_search_reproduces_with_the_same_seed(spec):
    g = played_position(Rules(players=4), 5, 90)
    obs = Observation(g, g.current_player, seed=3)
    assert make_bot(spec, seed=9).analyse(obs) == make_bot(spec, seed=9).analyse(obs)


# ---------------------------------------------------------------- parameters: checked at the edge and in the tree

BAD_VALUES = ["nan", "inf", "-inf", "1e300", "-1", "99999999999999999999"]
OPTIONS = ["iterations", "time", "c", "eps", "widen", "temp", "horizon", "tiles", "scale", "prior", "workers"]


@pytest.mark.parametrize("value", BAD_VALUES)
@pytest.mark.parametrize("key", OPTIONS)
def test_search_options_out_of_range_are_one_clear_error(key, value):
    with pytest.raises(BotSpecError) as e:
        make_bot(f"mcts({key}={value})")
    assert "\n" not in str(e.value) and key in str(e.value)


def tree(g, seed, **changes):
    """A compiled tree with the default options' arguments, some replaced."""
    return _search.Tree(g, seed, **dict(SearchOptions().tree_args(), **changes))


@pytest.mark.parametrize("kwargs", [dict(observer=4), dict(observer=-2), dict(forbid=-1), dict(forbid=32),
                                    dict(playout=4), dict(playout=-1), dict(reward=3), dict(select=2),
                                    dict(evaluation=3), dict(evaluation=2)])
def test_the_compiled_tree_refuses_what_would_break_its_memory(kwargs):
    """Codes and seats index the tree's arrays and tables: the tree refuses them itself (evaluation 2,
    the learned one, without its weights too)."""
    g = thurn_ai.new_game(players=3, seed=1)
    with pytest.raises(ValueError):
        tree(g, 1, **kwargs)


@pytest.mark.parametrize("select", SELECTS)
@pytest.mark.parametrize("kwargs", [dict(c=math.nan), dict(c=-1.0), dict(widen=1e10), dict(widen=math.inf),
                                    dict(eps=2.0), dict(prior_temp=math.nan), dict(prior_temp=0.0),
                                    dict(horizon=-1), dict(horizon=2**31 - 1), dict(scale=0.0),
                                    dict(scale=math.inf), dict(plan_prior=1.5), dict(tile_weight=math.nan)])
def test_numbers_outside_the_options_bounds_make_a_bad_search_but_a_legal_one(kwargs, select):
    """The bounds of the numbers have one home, SearchOptions (tested above); the compiled tree given a
    NaN, an infinity or an absurd number still only ever plays legal moves (its selection always picks
    a move, and the playout's stop turn does not overflow)."""
    g = played_position(Rules(players=3), 2, 30)
    t = tree(g, 3, **kwargs, select=_search.SELECTS[select])
    assert t.run(200) == 200
    children = t.root_children()
    assert children and all(g.is_legal(r[0]) for r in children)
    assert sum(r[1] for r in children) == 200


def test_the_compiled_tree_has_no_defaults_of_its_own():
    """The options are defaulted in one place (SearchOptions): a tree made without them is refused."""
    with pytest.raises(TypeError):
        _search.Tree(thurn_ai.new_game(players=2, seed=1), 1)


def test_option_names_match_the_compiled_codes():
    """SearchOptions names the choices with the compiled tree's own tables: the tree accepts exactly the
    codes tree_args() gives for them."""
    g = thurn_ai.new_game(players=2, seed=1)
    weights = default_model().weights_for(2)      # the learned evaluation's model
    for key, names in (("playout", PLAYOUTS), ("reward", REWARDS), ("select", SELECTS), ("evaluation", EVALUATIONS)):
        option = "eval" if key == "evaluation" else key
        codes = {SearchOptions(**{option: name}).tree_args()[key] for name in names}
        assert len(codes) == len(names)
        for code in codes:
            tree(g, 1, **{key: code}, value_weights=weights)
        with pytest.raises(ValueError):
            tree(g, 1, **{key: max(codes) + 1}, value_weights=weights)
    with pytest.raises(ValueError, match="needs value_weights"):
        tree(g, 1, evaluation=_search.EVALUATIONS["learned"])


@pytest.mark.parametrize("args", [(0, math.nan), (0, math.inf), (0, -1.0), (-1, 0.0), (0, 0.0)])
def test_tree_run_refuses_endless_or_empty_budgets(args):
    t = tree(thurn_ai.new_game(players=2, seed=1), 1)
    with pytest.raises((ValueError, OverflowError)):
        t.run(*args)


def test_widening_with_the_largest_allowed_value_searches_legally():
    """widen=1e10 once overflowed the node's move count and read out of bounds; the largest value the
    tree accepts now simply considers every move."""
    g = played_position(Rules(players=3), 2, 50)
    t = tree(g, 3, widen=1000.0, select=_search.SELECTS["ucb"])
    assert t.run(300) == 300
    assert all(g.is_legal(r[0]) for r in t.root_children())


# ---------------------------------------------------------------- hint: the default search, named

@pytest.mark.parametrize("players", [2, 3, 4])
def test_hint_searches_with_the_default_search_and_names_it(players):
    from thurn_ai.bots.default_search import DEFAULT_SEARCH
    from thurn_ai.bots.spec import BotSpec
    from thurn_ai.play.analysis import bot_spec as search_spec
    spec = search_spec(BotSpec.parse("mcts"), 300, None, players)
    assert spec.name == "mcts" and spec.option("iterations") == 300
    assert spec.without("iterations") == DEFAULT_SEARCH.without("iterations")
    assert BotSpec.parse(str(spec)) == spec          # the text it is saved as reads back as the same spec
    # options the user sets win over the configuration's
    mine = search_spec(BotSpec.parse("mcts(c=0.3,reward=win)"), None, None, players)
    assert mine.option("c") == 0.3 and mine.option("reward") == "win"
    assert mine.option("select") == DEFAULT_SEARCH.option("select")
    # other bots are searched as given
    pimc = search_spec(BotSpec.parse("pimc(worlds=4)"), 100, None, players)
    assert pimc == BotSpec("pimc", {"worlds": 4, "iterations": 100})
