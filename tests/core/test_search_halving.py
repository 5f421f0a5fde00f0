"""The halving root (mcts(root=halving)): Sequential Halving over the prior's top candidates with common
random numbers, chosen by value. It spends exactly the budget it is given, pairs its candidates on the same
determinizations, halves by the score it reports, finds clear wins, plays only legal moves and reproduces
with the same seed; the frozen anchors are pinned."""
from collections import Counter, defaultdict

import pytest
from hypothesis import given, settings, strategies as st

import thurn_ai
from thurn_ai import _search
from thurn_ai.bots import Observation, make_bot
from thurn_ai.bots.anchors import ANCHORS, FROZEN
from thurn_ai.fileio import sha256_of
from thurn_ai.bots.search_options import SearchOptions
from thurn_ai.errors import BotSpecError
from thurn_ai.game.rules import Rules
from thurn_ai.play.match import play_game

from .test_search import closing_position


def midgame(players: int, seed: int, moves: int):
    """A position after `moves` moves of heuristic play (a decision with at least two moves)."""
    g = thurn_ai.new_game(players=players, seed=seed)
    bots = [make_bot("heuristic", seed=seed + i) for i in range(players)]
    done = 0
    while not g.is_terminal():
        if done >= moves and len(g.legal_moves()) > 1:
            return g
        g.apply(bots[g.current_player].choose(Observation(g, g.current_player, seed)))
        done += 1
    pytest.skip("the game ended first")


def tree(g, seed=1, **options):
    opts = SearchOptions(**{"policy": "learned", "mix": 0.5, "eval": "learned", "root": "halving", **options})
    from thurn_ai.learned.model import model_from
    from thurn_ai.learned.prior import prior_from
    return _search.Tree(g, seed, observer=g.current_player,
                        value_weights=model_from(None).weights_for(g.n_players),
                        prior_weights=prior_from(None).weights_for(g.n_players), **opts.tree_args())


@settings(max_examples=12)
@given(players=st.sampled_from([2, 3, 4]), seed=st.integers(0, 10_000), moves=st.integers(0, 60),
       budget=st.sampled_from([1, 2, 3, 7, 50, 333, 1000]), m=st.integers(1, 9))
def test_halving_spends_exactly_its_budget(players, seed, moves, budget, m):
    g = midgame(players, seed, moves)
    t = tree(g, seed, candidates=m)
    assert t.run(budget) == budget
    assert t.iterations == budget
    assert sum(r[1] for r in t.root_children()) == budget        # every iteration went through a candidate
    cands = t.root_candidates()
    assert 1 <= len(cands) <= m
    moves_in_tree = {r[0] for r in t.root_children()}
    assert moves_in_tree <= {c[0] for c in cands} <= set(g.legal_moves())


def test_rounds_halve_the_candidates_and_pair_them_on_the_same_worlds():
    g = midgame(3, 5, 20)
    t = tree(g, 2, candidates=8)
    t.run(2000)
    cands = t.root_candidates()
    n = len(cands)
    assert n >= 4, "this position should have enough moves"
    stages = Counter(c[2] for c in cands)
    rounds = max(stages)
    # each round keeps the better half (rounded up): ceil(n / 2^r) candidates reached round r or further
    for r in range(1, rounds + 1):
        reached = sum(k for s, k in stages.items() if s >= r)
        assert reached == -(-n // 2 ** r)
    assert sum(k for s, k in stages.items() if s == rounds) == 1
    # common random numbers: each determinization seed is used by every candidate alive at that moment,
    # once each, and by no other
    by_world = defaultdict(list)
    for move, world in t.halving_trace():
        by_world[world].append(move)
    sizes = Counter(len(v) for v in by_world.values())
    assert all(len(set(v)) == len(v) for v in by_world.values())
    assert set(sizes) <= {-(-n // 2 ** r) for r in range(rounds + 1)} | {1}
    assert sizes[n] > 0 and sizes[1] <= 1 + 2 ** rounds       # a round's paired iterations, a remainder at most
    # visits within a round are equal: the final survivor has the most, the first-round losers the fewest
    visits = {r[0]: r[1] for r in t.root_children()}
    first_out = [c[0] for c in cands if c[2] == 0]
    assert max(visits[m] for m in first_out) - min(visits[m] for m in first_out) <= 1


def test_the_move_played_is_the_best_survivor_by_score():
    g = midgame(4, 11, 30)
    bot = make_bot("mcts(root=halving,candidates=6,iterations=1200)", seed=4)
    result = bot.search(Observation(g, g.current_player, 1))
    (t,) = result.trees
    cands = t.root_candidates()
    last = max(c[2] for c in cands)
    survivors = [c for c in cands if c[2] == last]
    assert result.best.move == survivors[0][0] if len(survivors) == 1 else result.best.move in {c[0] for c in survivors}
    # the order the bot reports is the tree's: by round reached, then by score over the root's statistics
    rows = {r.move: r for r in result.moves}
    visited = [r for r in result.moves if r.visits > 0]
    lo, hi = min(r.value for r in visited), max(r.value for r in visited)
    most = max(r.visits for r in visited)
    stage = {c[0]: c[2] for c in cands}
    keys = [(-stage[c[0]], -_search.root_score(c[1], rows[c[0]].value, lo, hi, most)) for c in cands]
    order = [c[0] for _, c in sorted(zip(keys, cands), key=lambda kc: kc[0])]
    assert [r.move for r in result.moves[:len(order)]] == order


def test_score_weighs_value_more_as_visits_grow():
    # the same value gap outweighs a larger prior gap once the candidates are well visited
    assert _search.root_score(-1.0, 1.0, 0.0, 1.0, 100) > _search.root_score(0.0, 0.9, 0.0, 1.0, 100)
    assert _search.root_score(-3.0, 1.0, 0.0, 1.0, 0) < _search.root_score(0.0, 0.5, 0.0, 1.0, 0)
    assert _search.root_score(0.0, 0.3, 0.3, 0.3, 10) == _search.root_score(0.0, 0.9, 0.9, 0.9, 10)


def test_halving_finds_the_closing_win():
    g = closing_position()
    for seed in range(3):
        bot = make_bot("mcts(root=halving,iterations=400)", seed=seed)
        assert g.move_str(bot.choose(Observation(g, 0, seed))) == "close"


@pytest.mark.parametrize("spec, players, board", [("mcts(root=halving,iterations=30)", 3, "south"),
                                                   ("mcts(root=halving,iterations=30,workers=2)", 2, "north"),
                                                   ("mcts(root=halving,time=0.001,clock=cpu)", 2, "south")])
def test_halving_games_are_legal_and_reproducible(spec, players, board):
    # Table.check_bot_move refuses an illegal move; with an iteration budget the same seed is the same game
    rules = Rules(players=players, board=board)
    def game():
        return play_game(rules, [make_bot(spec, seed=7)] + [make_bot("greedy", seed=i) for i in range(players - 1)], 3)
    a = game()
    if "time" not in spec:
        assert game().moves == a.moves


def test_halving_options_are_checked():
    with pytest.raises(BotSpecError, match="select=puct"):
        make_bot("mcts(root=halving,select=ucb)")
    with pytest.raises(BotSpecError, match="candidates"):
        make_bot("mcts(root=halving,candidates=0)")
    with pytest.raises(BotSpecError, match="root"):
        make_bot("mcts(root=gumbel)")
    with pytest.raises(ValueError, match="candidates"):
        tree(midgame(2, 1, 5), candidates=1000)


# ---------------------------------------------------------------- the frozen anchors

def test_anchors_pin_every_option_and_their_files():
    fields = set(SearchOptions.names())
    for anchor in ANCHORS.values():
        assert set(anchor.options) | set(anchor.files) == fields, anchor.name
        for name, sha256 in anchor.files.values():
            assert sha256_of(FROZEN / name) == sha256
        options = make_bot(anchor.name).options
        assert options == anchor.search_options()


def test_anchors_take_no_options_and_refuse_a_changed_file(tmp_path, monkeypatch):
    with pytest.raises(BotSpecError, match="no option"):
        make_bot("anchor-1k(iterations=5)")
    import thurn_ai.bots.anchors as A
    bad = tmp_path / "prior_2026_11.json"
    bad.write_text((FROZEN / "prior_2026_11.json").read_text().replace("1", "2", 1))
    (tmp_path / "value_2026_11.json").write_bytes((FROZEN / "value_2026_11.json").read_bytes())
    monkeypatch.setattr(A, "FROZEN", tmp_path)
    with pytest.raises(BotSpecError, match="pinned"):
        make_bot("anchor-1k")


def test_anchor_1k_searches_as_the_frozen_default():
    # anchor-1k is the November 2026 default: the same search as the default `mcts` with the frozen weights
    spec = ("mcts(iterations=1000,eval=learned,policy=learned,mix=0.5,root=puct,"
            f"model={FROZEN / 'value_2026_11.json'},pmodel={FROZEN / 'prior_2026_11.json'})")
    for moves in (4, 25):
        g = midgame(3, 2, moves)
        a = make_bot("anchor-1k", seed=5).analyse(Observation(g, g.current_player, 1))
        b = make_bot(spec, seed=5).analyse(Observation(g, g.current_player, 1))
        assert a == b


@pytest.mark.parametrize("root", ["puct", "halving"])
def test_ctrl_c_stops_a_search_in_the_main_thread(root):
    # a signal's handler runs between two slices of iterations and its exception ends the search
    import os
    import signal
    import threading
    if threading.current_thread() is not threading.main_thread():
        pytest.skip("Python runs signal handlers in the main thread only")
    g = midgame(2, 3, 10)
    t = tree(g, 1, root=root)
    # a test runner's worker may ignore SIGINT (then the search would run its whole budget): Python's own
    # handler for this test, and a budget that ends in seconds even if the signal never came
    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    timer = threading.Timer(0.3, os.kill, (os.getpid(), signal.SIGINT))
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            t.run(2_000_000)
    finally:
        timer.cancel()
        signal.signal(signal.SIGINT, before)
    assert 0 < t.iterations < 2_000_000
