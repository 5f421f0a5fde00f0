"""Where the search spends its budget (docs/search-budget.md): the tree kept through a turn (Tree.reroot,
reuse=), the early stop once the best move cannot be caught (Tree.run(settle=True), spend=phase), the budget
by phase, and the decisions left to the planner (planned=houses)."""
import pytest

import thurn_ai
from thurn_ai import _search
from thurn_ai.bots import Observation, make_bot
from thurn_ai.bots.search_options import SearchOptions
from thurn_ai.errors import BotSpecError
from thurn_ai.game.rules import Rules
from thurn_ai.play.match import Table, play_game

FAST = "iterations=300,horizon=1"


def card_play_position(seed=3):
    """A position where the player to move plays a card and then decides again (after_play): the
    searched tree's best move reveals nothing, so its subtree is the next decision's tree."""
    g = thurn_ai.new_game(players=2, seed=seed)
    while True:
        g.apply(_search.policy_choice(g, g.turn, 0, 0.0))
        if g.phase != "play" or g.turn < 6 or g.is_terminal():
            continue
        t = _search.Tree(g, 5, **SearchOptions(horizon=2).tree_args())
        t.run(1500)
        plays = [r for r in t.root_children() if g.move_str(r[0]).split()[0] in ("left", "right", "new")]
        for move, *_ in sorted(plays, key=lambda r: -r[1]):
            after = g.clone()
            after.apply(move)
            if after.current_player == g.current_player and after.phase == "after_play":
                return g, t, move, after


def test_a_rerooted_tree_holds_the_statistics_its_child_had():
    g, tree, move, after = card_play_position()
    below = {tuple(path): children for path, children in tree.own_nodes()}[(move,)]
    visits = next(r[1] for r in tree.root_children() if r[0] == move)
    carried = tree.reroot(after, [move])
    assert carried == visits > 0
    assert sorted(tree.root_children()) == sorted(below)
    assert tree.n_nodes <= visits + 1
    # searching on from there: legal moves of the new position only, the visits adding up
    done = tree.run(400)
    assert done == 400
    rows = tree.root_children()
    assert {m for m, *_ in rows} <= set(after.legal_moves())
    # the iteration that added the kept node stopped there: its children hold one visit fewer than it
    assert sum(r[1] for r in rows) == carried - 1 + done


def test_a_line_the_tree_does_not_hold_starts_afresh():
    g, tree, move, after = card_play_position()
    absent = next(m for m in after.legal_moves())       # an after_play move is no root move of the tree
    assert tree.reroot(after, [absent]) == 0
    assert tree.n_nodes == 1 and tree.root_children() == []
    assert tree.run(50) == 50


def test_reroot_refuses_what_it_cannot_keep():
    g, tree, move, after = card_play_position()
    other = g.clone()
    while other.current_player == g.current_player:
        other.apply(_search.policy_choice(other, other.turn, 0, 0.0))
    with pytest.raises(ValueError, match="observer"):
        tree.reroot(other, [])
    pimc = _search.Tree(g, 5, ismcts=False, **SearchOptions().tree_args())
    with pytest.raises(ValueError, match="ISMCTS"):
        pimc.reroot(after, [move])


def test_settle_stops_only_when_the_best_move_cannot_be_caught():
    g, *_ = card_play_position()
    stopped = []
    for seed in range(4):
        full = _search.Tree(g, seed, **SearchOptions(horizon=2).tree_args())
        settled = _search.Tree(g, seed, **SearchOptions(horizon=2).tree_args())
        assert full.run(2000) == 2000
        done = settled.run(2000, settle=True)
        assert done <= 2000
        best = max(full.root_children(), key=lambda r: r[1])[0]
        assert max(settled.root_children(), key=lambda r: r[1])[0] == best
        visits = sorted((r[1] for r in settled.root_children()), reverse=True) + [0]
        if done < 2000:
            stopped.append(done)
            assert visits[0] - visits[1] > 2000 - done
    assert stopped          # the position has a clear favourite: some searches stop early


def _observer_searches(spec, players=2, seed=11):
    """Play one game of `spec` against heuristic; [(phase, budget, SearchResult)] of each search it made."""
    rules = Rules(players=players)
    table = Table.new(rules, seed, [spec] + ["heuristic"] * (players - 1))
    bot = make_bot(spec, seed=seed)
    other = make_bot("heuristic", seed=seed)
    out = []
    while not table.over:
        obs = table.observation()
        if table.to_move == 0:
            move = bot.choose(obs)
            result = bot.last_search(obs)
            if result is not None:
                out.append((obs.state.phase, bot.budget(obs.state), result))
        else:
            move = other.choose(obs)
        table.check_bot_move(move)
        table.apply(move)
    return out


def test_reuse_carries_visits_and_tops_up_to_the_budget():
    searches = _observer_searches(f"mcts({FAST},reuse=silent)")
    carried = [r.carried for _p, _b, r in searches]
    assert sum(c > 0 for c in carried) >= 5
    for _phase, (iterations, _s), result in searches:
        # the budget is the root's visits: what was carried counts, the rest is searched
        assert result.iterations == max(iterations - result.carried, 0)


def test_reuse_silent_keeps_nothing_across_a_card_it_did_not_foresee():
    # the searcher draws from the deck: its search's world drew some card, the game another
    for seed in range(40):
        g = thurn_ai.new_game(players=2, seed=seed)
        deck = g.parse_move("draw deck")
        if g.is_legal(deck):
            break
    bots = {mode: make_bot(f"mcts({FAST},reuse={mode})", seed=1) for mode in ("silent", "turn")}
    kept = {}
    for mode, bot in bots.items():
        for obs_seed in range(20):
            obs = Observation(g, 0, obs_seed)
            bot.search(obs)
            bot._note(obs, deck)
            world = bot._line.state
            true = g.clone()
            true.apply(deck)
            if world.observation(0) != true.observation(0):
                break
        kept[mode] = bot._reused_jobs(Observation(true, 0, 99)) is not None
    assert kept == {"silent": False, "turn": True}


def test_the_phase_budget_spends_what_it_is_given_and_never_more():
    searches = _observer_searches(f"mcts({FAST},spend=phase,draws=3)")
    assert {p for p, _b, _r in searches} >= {"draw", "play"}
    early = 0
    for phase, (iterations, seconds), result in searches:
        assert seconds == 0.0
        assert iterations == (900 if phase == "draw" else 300)
        assert 1 <= result.iterations <= iterations
        early += result.iterations < iterations
    assert early > 0        # clear favourites stop early
    flat = _observer_searches(f"mcts({FAST})")
    assert all(r.iterations == 300 for _p, _b, r in flat)


def test_planned_houses_are_the_planners_and_searched_nowhere():
    rules = Rules(players=2)
    bot = make_bot(f"mcts({FAST},planned=houses)", seed=2)
    table = Table.new(rules, 5, ["x", "heuristic"])
    other = make_bot("heuristic", seed=0)
    planned = 0
    while not table.over:
        obs = table.observation()
        if table.to_move == 0:
            move = bot.choose(obs)
            if obs.state.phase in ("houses", "cartwright") and len(obs.legal_moves()) > 1:
                planned += 1
                assert bot.last_search(obs) is None
                assert move == _search.plan_policy_choice(obs.state, 0)
        else:
            move = other.choose(obs)
        table.check_bot_move(move)
        table.apply(move)
    assert planned > 0


@pytest.mark.parametrize("players,workers", [(2, 1), (3, 1), (2, 2)])
def test_the_budgeted_search_plays_legal_reproducible_games(players, workers):
    spec = f"mcts({FAST},reuse=turn,planned=houses,spend=phase,hand_prior=node,workers={workers})"
    rules = Rules(players=players)
    records = [play_game(rules, [make_bot(spec, seed=s) for s in range(players)], seed=21) for _ in range(2)]
    assert records[0].moves == records[1].moves       # play_game checks every move is legal
    assert records[0].turns > 10


@pytest.mark.parametrize("spec", ["mcts(reuse=sometimes)", "mcts(spend=all)", "mcts(planned=closes)",
                                  "mcts(draws=0)", "pimc(reuse=silent)",
                                  "mcts(hand_prior=yes)"])
def test_bad_budget_options_are_refused(spec):
    with pytest.raises(BotSpecError):
        make_bot(spec)


def test_anchors_pin_the_budget_options():
    anchor = make_bot("anchor-1k")
    options = anchor.options
    assert (options.reuse, options.planned, options.spend, options.hand_prior) == ("none", "none", "flat", "visit")


def _prior_tree(g, cache, ismcts, seed=7):
    bot = make_bot(f"mcts(hand_prior={'node' if cache else 'visit'})")
    return bot._tree(g, seed, ismcts=ismcts)


def test_the_kept_hand_set_prior_is_the_fresh_one_in_a_single_world():
    # one fixed world (ismcts=False): every node sees one position, so the prior asked once per node is the
    # prior asked at every visit, and the two searches are the same search
    g, *_ = card_play_position()
    world = g.determinize(g.current_player, 3)
    trees = [_prior_tree(world, cache, ismcts=False) for cache in (False, True)]
    for t in trees:
        t.run(1500)
    assert sorted(trees[0].root_children()) == sorted(trees[1].root_children())


def test_the_kept_hand_set_prior_changes_the_search_across_worlds_only():
    g, *_ = card_play_position()
    trees = [_prior_tree(g, cache, ismcts=True) for cache in (False, True)]
    for t in trees:
        t.run(1500)
    assert trees[1].hand_cache and not trees[0].hand_cache
    assert sorted(trees[0].root_children()) != sorted(trees[1].root_children())
    assert {m for m, *_ in trees[1].root_children()} <= set(g.legal_moves())
