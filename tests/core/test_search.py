"""ISMCTS and PIMC (thurn_ai._search, bots mcts/pimc): they find clear wins, never leak or contradict what
the searcher knows, never play illegal or forbidden moves, and reproduce with the same seed."""
import pickle

import pytest
from hypothesis import given, settings, strategies as st

import thurn_ai
from thurn_ai import _search
from thurn_ai.bots import Observation, make_bot
from thurn_ai.bots.search_options import SearchOptions
from thurn_ai.game.officials import official_of
from thurn_ai.bots.spec import BotSpec
from thurn_ai.errors import BotSpecError
from thurn_ai.play.match import play_game
from thurn_ai.game.notation import move_kind
from thurn_ai.game.rules import Rules


def city(g, name):
    return g.board.city_index(name)


def closing_position():
    """South board, 2 players, both with one house left and a 5-carriage. Seat 0 (to move, after playing
    a card) can close Ulm-Stuttgart-Carlsruhe: the last house ends the game and the game-end tile wins it
    by one point (seat 1 still gets the last turn, but can only draw level without the tile). If seat 0
    stops instead, seat 1 closes Nürnberg-Stuttgart-Würzburg with its known Würzburg card, takes the
    game-end tile and wins: 'close' wins, 'stop' loses."""
    g = thurn_ai.new_game(players=2, seed=1)
    d = g.export()
    n = g.board.n_cities
    ulm, stu, car, nur, wur, lodz = (city(g, c) for c in ("Ulm", "Stuttgart", "Carlsruhe", "Nürnberg",
                                                          "Würzburg", "Lodz"))
    d["route"] = [[ulm, stu, car], [nur, stu]]
    d["houses"] = [[x for x in range(n) if x != car], [x for x in range(n) if x != wur]]
    d["houses_left"] = [1, 1]
    d["carriage"] = [2, 2]
    province_stacks = [t for t, s in enumerate(g.board.tiles) if s.kind in ("each_province", "all_cities")]
    d["tiles_n"] = [[1 if t in province_stacks else 0 for t in range(len(g.board.tiles))] for _ in range(2)]
    d["tiles_pts"] = [[0] * len(g.board.tiles) for _ in range(2)]
    d["hand"] = [[0] * n, [0] * n]
    d["known"] = [[0] * n, [0] * n]
    d["hand"][0][lodz] = 1
    d["hand"][1][wur] = 1
    d["known"][1][wur] = 1          # seat 1 took Würzburg face up: seat 0 knows it
    d["hand"][1][lodz] = 1          # and holds one card seat 0 cannot see
    d["discard"] = [0] * n
    used = [d["display"][x] + d["hand"][0][x] + d["hand"][1][x] + sum(r.count(x) for r in d["route"])
            for x in range(n)]
    d["deck"] = [3 - u for u in used]
    d.update(current=0, phase=2, official=0, forced_pm=0, draws=1, plays=1, turn=100,
             deck_n=sum(d["deck"]), discard_n=0, display_n=sum(d["display"]))
    g.load(d)
    assert sorted(g.move_str(m) for m in g.legal_moves()) == ["close", "stop"]
    return g


def test_closing_position_is_what_the_test_claims():
    g = closing_position()
    won = g.clone()
    won.apply("close")
    won.apply("house Carlsruhe")
    assert won.current_player == 1           # seat 1's last turn, then the game is over
    lost = g.clone()
    lost.apply("stop")
    for text in ("draw deck", "right Würzburg", "close", "house Würzburg"):
        lost.apply(text)
    assert lost.is_terminal() and lost.winner() == 1


@pytest.mark.parametrize("spec", ["mcts(iterations=400)", "mcts(iterations=400,horizon=0)",
                                  "mcts(iterations=400,select=ucb,c=0.2,reward=win)",
                                  "mcts(iterations=200,playout=plan,horizon=0)", "pimc(iterations=400)"])
def test_search_closes_the_route_that_wins_the_game(spec):
    g = closing_position()
    bot = make_bot(spec, seed=3)
    obs = Observation(g, 0, seed=11)
    rows = bot.analyse(obs)
    assert rows[0].notation == "close"
    assert rows[0].win_prob > 0.9
    # UCB tries every move, and learns that stopping loses; PUCT may never visit a move its prior rules
    # out, or visit it a few times (a learned prior leaves it some mass) and rate it below the close
    stop = next((r for r in rows if r.notation == "stop"), None)
    if "ucb" in spec:
        assert stop.win_prob < 0.5
    else:
        assert stop is None or (stop.visits < rows[0].visits and stop.win_prob < rows[0].win_prob)
    assert bot.choose(obs) == g.parse_move("close")
    assert [g.move_str(m) for m in bot.principal_variation(obs)] == ["close", "house Carlsruhe"]


@pytest.mark.parametrize("spec", ["mcts(iterations=300)", "pimc(iterations=300)"])
def test_search_places_the_house_that_ends_the_game_with_a_win(spec):
    g = closing_position()
    g.apply("close")
    assert sorted(g.move_str(m) for m in g.legal_moves()) == ["done", "house Carlsruhe"]
    obs = Observation(g, 0, seed=4)
    rows = make_bot(spec, seed=5).analyse(obs)
    assert rows[0].notation == "house Carlsruhe" and rows[0].win_prob > 0.9
    done = next((r for r in rows if r.notation == "done"), None)   # PUCT may never try it
    assert done is None or done.win_prob < 0.5


# ---------------------------------------------------------------- determinizations

RULES = [Rules(players=2), Rules(players=3), Rules(players=4), Rules(players=2, board="north"),
         Rules(players=3, board="north", variant="classic")]


def conserved_counts(d, rules):
    """Cards of each city anywhere in the game (must be the board's cards per city)."""
    n = len(d["deck"])
    out = []
    for x in range(n):
        k = d["deck"][x] + d["display"][x] + d["discard"][x]
        k += sum(h[x] for h in d["hand"]) + sum(h[x] for h in d["horse_cards"])
        k += sum(r.count(x) for r in d["route"])
        out.append(k)
    return out


def played_position(rules, seed, moves):
    g = thurn_ai.new_game(rules=rules, seed=seed)
    for i in range(moves):
        if g.is_terminal():
            break
        g.apply(_search.policy_choice(g, seed * 7919 + i, 0, 0.3))
    return g


@settings(max_examples=40)
@given(rule=st.sampled_from(RULES), seed=st.integers(0, 10**6), moves=st.integers(0, 400),
       det_seed=st.integers(0, 2**64 - 1), observer=st.integers(0, 3))
def test_determinization_keeps_everything_the_observer_knows(rule, seed, moves, det_seed, observer):
    g = played_position(rule, seed, moves)
    p = observer % rule.players
    a, b = g.export(), g.determinize(p, det_seed).export()
    public = ("display", "discard", "route", "houses", "houses_left", "carriage", "horse_cards",
              "tiles_n", "tiles_pts", "stack_pos", "known", "closes", "official_uses")
    for key in public:
        assert a[key] == b[key], key
    assert b["hand"][p] == a["hand"][p]                                   # own hand
    assert [sum(h) for h in b["hand"]] == [sum(h) for h in a["hand"]]     # hand sizes
    assert sum(b["deck"]) == sum(a["deck"]) == b["deck_n"]
    for q in range(rule.players):                                         # cards known to be held
        assert all(h >= k for h, k in zip(b["hand"][q], b["known"][q]))
    cpc = g.board.cards_per_city
    assert conserved_counts(b, rule) == conserved_counts(a, rule) == [cpc] * g.board.n_cities
    assert g.determinize(p, det_seed).export() == b                        # a function of the seed


@settings(max_examples=25)
@given(seed=st.integers(0, 10**6), moves=st.integers(20, 300), det_seed=st.integers(0, 2**64 - 1))
def test_determinization_does_not_depend_on_hidden_cards(seed, moves, det_seed):
    """Swapping an opponent's unseen card with a deck card changes nothing the observer can know, so the
    determinization (and hence the search) must not change either."""
    g = played_position(Rules(players=3), seed, moves)
    d = g.export()
    hidden = [x for x in range(len(d["deck"])) if d["hand"][1][x] > d["known"][1][x]]
    in_deck = [x for x in range(len(d["deck"])) if d["deck"][x] > 0]
    swaps = [(x, y) for x in hidden for y in in_deck if x != y]
    if not swaps:
        return
    x, y = swaps[0]
    d["hand"][1][x] -= 1
    d["hand"][1][y] += 1
    d["deck"][x] += 1
    d["deck"][y] -= 1
    h = g.clone()
    h.load(d)
    assert h.export() != g.export()
    assert h.determinize(0, det_seed).export() == g.determinize(0, det_seed).export()


# ---------------------------------------------------------------- legality, forbid, reproducibility

@settings(max_examples=40)
@given(rule=st.sampled_from(RULES), seed=st.integers(0, 10**6), moves=st.integers(0, 500),
       pseed=st.integers(0, 2**64 - 1))
def test_policy_move_is_legal_and_avoids_forbidden_officials(rule, seed, moves, pseed):
    g = played_position(rule, seed, moves)
    if g.is_terminal():
        return
    everything = _search.official_mask(["postmaster", "administrator", "postal_carrier", "cartwright"])
    m = _search.policy_choice(g, pseed, everything, 0.5)
    assert g.is_legal(m)
    if any(official_of(g, x) is None for x in g.legal_moves()):
        assert official_of(g, m) is None


GAMES = [
    (Rules(players=2), "mcts(iterations=40)", "pimc(iterations=40,worlds=4)"),
    (Rules(players=2, board="north"), "mcts(iterations=40,select=puct)", "pimc(iterations=40)"),
    (Rules(players=2, board="north", variant="classic"), "pimc(iterations=30,reward=margin)",
     "mcts(iterations=30,playout=random,horizon=2)"),
    (Rules(players=3), "mcts(iterations=30,workers=2)", "pimc(iterations=30,worlds=3)"),
    (Rules(players=4, board="north"), "mcts(iterations=20,reward=margin)", "pimc(iterations=20,worlds=2)"),
]


@pytest.mark.parametrize("seed", [17, 18])
@pytest.mark.parametrize("rules,a,b", GAMES)
def test_search_bots_play_only_legal_moves(rules, a, b, seed):
    specs = ([a, b] if seed % 2 else [b, a]) * rules.players
    bots = [make_bot(s, seed=seed + i) for i, s in enumerate(specs[:rules.players])]
    rec = play_game(rules, bots, seed=seed)    # raises if any bot chooses an illegal move
    assert rec.turns > 0 and not rec.truncated
    assert len(rec.ranking) == rules.players


def test_forbidden_officials_are_never_used():
    banned = "postmaster+administrator+postal_carrier+cartwright"
    for spec in (f"mcts(iterations=40,forbid={banned})", f"pimc(iterations=40,forbid={banned})"):
        bots = [make_bot(spec, seed=1), make_bot("mcts(iterations=40)", seed=2)]
        rec = play_game(Rules(players=2), bots, seed=5)
        assert all(v == 0 for per_phase in rec.official_uses[0].values() for v in per_phase.values())
        # the unrestricted opponent does use officials, so the restriction is what made the difference
        assert any(v > 0 for per_phase in rec.official_uses[1].values() for v in per_phase.values())


def test_forbid_keeps_postmaster_out_of_the_analysis():
    g = thurn_ai.new_game(players=2, seed=4)
    while not (g.phase == "play" and any(official_of(g, m) == "postmaster" for m in g.legal_moves())):
        g.apply(_search.policy_choice(g, g.turn, 0, 0.0))
    obs = Observation(g, g.current_player, seed=1)
    free = make_bot("mcts(iterations=300)", seed=1).analyse(obs)
    banned = make_bot("mcts(iterations=300,forbid=postmaster)", seed=1).analyse(obs)
    assert any(official_of(g, r.move) == "postmaster" for r in free)
    assert not any(official_of(g, r.move) == "postmaster" for r in banned)


def _first_decision_with(official, players=3, seed=4):
    g = thurn_ai.new_game(players=players, seed=seed)
    while not (any(official_of(g, m) == official for m in g.legal_moves())
               and any(official_of(g, m) != official for m in g.legal_moves())):
        g.apply(_search.policy_choice(g, g.turn, 0, 0.0))
    return g


@pytest.mark.parametrize("official", ["postmaster", "administrator", "postal_carrier"])
@pytest.mark.parametrize("spec", ["mcts(iterations=300)", "pimc(iterations=300)"])
def test_a_root_restricted_search_spends_its_budget_on_one_side(official, spec):
    g = _first_decision_with(official)
    obs = Observation(g, g.current_player, seed=1)
    sides = {}
    for using in (True, False):
        bot = make_bot(spec, seed=1)
        bot.restrict_root(official, using)
        rows = bot.analyse(obs)
        assert sum(r.visits for r in rows) == 300
        assert all((official_of(g, r.move) == official) is using for r in rows)
        sides[using] = rows
    # the unrestricted search covers both sides; lifting the restriction gives it back exactly
    bot = make_bot(spec, seed=1)
    bot.restrict_root(official, True)
    bot.restrict_root(None)
    assert bot.analyse(obs) == make_bot(spec, seed=1).analyse(obs)


def test_root_restriction_binds_the_root_only():
    # the "without" side may still use the Postmaster later in the turn: the tree below the root is free
    g = _first_decision_with("postmaster")
    tree = _search.Tree(g, 3, officials=_search.OfficialFilter(root_avoids=_search.official_mask(["postmaster"])),
                        **SearchOptions().tree_args())
    tree.run(2000)
    root = {m for m, *_ in tree.root_children()}
    assert root and not any(official_of(g, m) == "postmaster" for m in root)
    assert tree.n_nodes > len(root) + 1


def test_bad_root_restrictions_are_refused(monkeypatch):
    g = _first_decision_with("postmaster")
    args = SearchOptions().tree_args()
    pm = _search.official_mask(["postmaster"])
    with pytest.raises(ValueError, match="disjoint"):
        _search.OfficialFilter(root_uses=pm, root_avoids=pm)
    with pytest.raises(ValueError, match="disjoint"):
        _search.OfficialFilter(root_uses=64)
    with pytest.raises(ValueError, match="no move of the root decision"):
        _search.Tree(g, 1, officials=_search.OfficialFilter(root_uses=_search.official_mask(["cartwright"])), **args)
    with pytest.raises(TypeError):
        _search.Tree(g, 1, officials=(pm, 0, 0, 0), **args)      # one value, not loose bit sets
    with pytest.raises(BotSpecError, match="no official 'mayor'"):
        make_bot("mcts(iterations=10)", seed=1).restrict_root("mayor")
    from thurn_ai.play.analysis import analyse
    from thurn_ai.errors import PositionError
    with pytest.raises(PositionError, match="no legal move uses the cartwright"):
        analyse(g, bot=BotSpec.parse("mcts(iterations=10)"), official="cartwright")
    with pytest.raises(BotSpecError, match="cannot analyse"):
        analyse(g, bot=BotSpec.parse("heuristic"), official="postmaster")

    class AnalysesOnly:                      # a bot with analyse() alone does not provide the Analyst capability
        def analyse(self, obs):
            return []
    monkeypatch.setattr("thurn_ai.play.analysis.make_bot", lambda spec, seed: AnalysesOnly())
    with pytest.raises(BotSpecError, match="cannot analyse"):
        analyse(g, bot=BotSpec.parse("mcts(iterations=10)"), official="postmaster")


@pytest.mark.parametrize("spec", ["mcts(iterations=200)", "mcts(iterations=200,workers=2)",
                                  "pimc(iterations=200)"])
def test_same_seed_same_search(spec):
    g = played_position(Rules(players=3), 9, 120)
    obs = Observation(g, g.current_player, seed=2)
    a = make_bot(spec, seed=42).analyse(obs)
    b = make_bot(spec, seed=42).analyse(obs)
    assert a == b
    assert sum(r.visits for r in a) == 200
    c = make_bot(spec, seed=43).analyse(obs)
    assert c != a          # another seed samples other worlds and playouts


# ---------------------------------------------------------------- analysis for `hint`

@pytest.mark.parametrize("moves", [0, 37, 80, 151, 230])
def test_analysis_and_principal_variation_are_consistent(moves):
    g = played_position(Rules(players=2), 3, moves)
    obs = Observation(g, g.current_player, seed=5)
    bot = make_bot("mcts(iterations=500)", seed=1)
    rows = bot.analyse(obs)
    legal = set(g.legal_moves())
    assert rows and all(r.move in legal for r in rows)
    assert [r.visits for r in rows] == sorted((r.visits for r in rows), reverse=True)
    assert sum(r.share for r in rows) == pytest.approx(1.0)
    assert all(0 <= r.win_prob <= 1 and r.notation == g.move_str(r.move) for r in rows)
    pv = bot.principal_variation(obs)
    assert pv[0] == rows[0].move
    # the line is the player's own and playable on the observation until a card comes from the deck
    s = obs.state.clone()
    for m in pv:
        assert s.current_player == obs.player and s.is_legal(m)
        s.apply(m)
        if move_kind(m) == "deck":
            break


@pytest.mark.parametrize("spec", ["mcts(iterations=0)", "mcts(time=-1)", "mcts(playout=smart)",
                                  "mcts(reward=points)", "mcts(workers=0)", "mcts(c=-1)",
                                  "mcts(select=best)", "mcts(horizon=-2)", "pimc(worlds=0)",
                                  "mcts(iterations=many)", "mcts(eps=2)"])
def test_bad_search_specs_are_refused(spec):
    with pytest.raises(BotSpecError):
        make_bot(spec)


@pytest.mark.parametrize("spec", ["mcts(time=0.02)", "mcts(time=0.02,workers=2)", "pimc(time=0.02,worlds=3)"])
def test_time_budget_searches_and_answers_legally(spec):
    g = played_position(Rules(players=2), 4, 60)
    obs = Observation(g, g.current_player, seed=1)
    bot = make_bot(spec, seed=1)
    rows = bot.analyse(obs)
    assert sum(r.visits for r in rows) > 0
    assert g.is_legal(bot.choose(obs))


# ---------------------------------------------------------------- what a search returns

def test_a_search_returns_typed_root_moves_and_gives_its_last_search_back():
    g = played_position(Rules(players=3), 5, 40)
    obs = Observation(g, g.current_player, seed=3)
    bot = make_bot("mcts(iterations=300,workers=2)", seed=2)
    assert bot.last_search() is None and bot.last_search(obs) is None       # nothing searched yet
    result = bot.search(obs)
    assert result.iterations == 300 and len(result.trees) == 2
    assert result.best is result.moves[0] and bot.choose(obs) == result.best.move
    assert bot.analyse(obs) == result.moves and bot.search(obs) is result          # one search per observation
    assert bot.last_search(obs) is result and bot.last_search() is result
    assert bot.last_search(Observation(g, g.current_player, seed=3)) is None      # another observation object
    assert sum(m.visits for m in result.moves) == sum(t.iterations for t in result.trees)
    # the JSON form keeps the old keys and values
    d = result.to_dict()
    assert d["iterations"] == 300 and [r["move"] for r in d["analysis"]] == [m.move for m in result.moves]
    assert list(d["analysis"][0]) == ["move", "notation", "visits", "share", "win_prob", "mean_score", "value",
                                     "mean_table"]
    assert d["analysis"][0]["win_prob"] == result.best.win_prob
    bot.restrict_root(None)                   # a changed search forgets the last one
    assert bot.last_search() is None
    assert make_bot("heuristic").last_search(obs) is None                   # a bot that does not search


def test_the_official_filter_is_one_value():
    F = _search.OfficialFilter
    pm, ad = _search.official_mask(["postmaster"]), _search.official_mask(["administrator"])
    f = F(root_uses=pm).with_turn(0, ad)
    assert (f.root_uses, f.root_avoids, f.turn_uses, f.turn_avoids) == (pm, 0, 0, ad)
    assert f == F(pm, 0, 0, ad) and hash(f) == hash(F(pm, 0, 0, ad)) and f != F(pm)
    assert f.with_root() == F(turn_avoids=ad) and not F() and bool(f)
    assert pickle.loads(pickle.dumps(f)) == f
    bot = make_bot("mcts(iterations=10)", seed=1)
    bot.restrict_turn("none")
    bot.restrict_root("postmaster", using=False)        # the root's restriction keeps the turn's
    all_officials = _search.official_mask(["postmaster", "administrator", "postal_carrier", "cartwright"])
    assert bot.official_filter == F(root_avoids=pm, turn_avoids=all_officials)
    bot.restrict_turn(None)
    bot.restrict_root(None)
    assert bot.official_filter == F()


def test_ctrl_c_stops_a_search_in_the_main_thread():
    # a signal's handler runs between two slices of iterations and its exception ends the search
    import os
    import signal
    import threading
    if threading.current_thread() is not threading.main_thread():
        pytest.skip("Python runs signal handlers in the main thread only")
    g = played_position(Rules(players=2), 3, 10)
    t = _search.Tree(g, 1, **SearchOptions().tree_args())
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


def _last_decision(players: int, seed: int):
    """A decision of a random game (seeded) with a move that ends the game, that move, and the final scores."""
    import random
    for k in range(50):                # most games end on a forced move: the first that does not
        rng = random.Random(seed + k)
        g = thurn_ai.new_game(players=players, seed=seed + k)
        while not g.is_terminal():
            moves = g.legal_moves()
            for m in moves if len(moves) > 1 else ():
                h = g.clone()
                h.apply(m)
                if h.is_terminal():
                    return g, m, h.scores()
            g.apply(rng.choice(moves))
    raise AssertionError("no decision ended the game")


@pytest.mark.parametrize("players,seed", [(2, 3), (3, 5), (4, 7)])
def test_a_root_move_keeps_the_tables_mean_score(players, seed):
    # every playout through a move that ends the game scores the final scores: the mover's mean is its own,
    # the table's the mean of the others' (the review's margin over the table reads it)
    g, move, scores = _last_decision(players, seed)
    p = g.current_player
    bot = make_bot("mcts(iterations=200)", 1)
    bot.restrict_root_move(move)
    row = bot.analyse(Observation(g, p, 3))[0]
    others = [s for i, s in enumerate(scores) if i != p]
    assert row.move == move and row.visits > 0
    assert row.mean_score == pytest.approx(scores[p])
    assert row.mean_table == pytest.approx(sum(others) / len(others))
    assert row.mean_margin == pytest.approx(scores[p] - sum(others) / len(others))
    tree = make_bot("mcts(iterations=200)", 1).search(Observation(g, p, 3)).trees[0]
    assert [m for m, _ in tree.root_tables()] == [r[0] for r in tree.root_children()]


@pytest.mark.parametrize("others", ["planner", "search"])
def test_others_planner_plays_the_other_players_decisions_by_the_planner(others):
    # seat 0 stops; with others=planner seat 1's reply in the tree is the planner's move and nothing else,
    # with the default the tree searches seat 1's replies as its own
    g = closing_position()
    stop = g.parse_move("stop")
    after = g.clone()
    after.apply(stop)
    other = after.current_player
    planned = _search.plan_policy_choice(after)
    tree = _search.Tree(g, 5, ismcts=False, root_move=stop, **SearchOptions(others=others).tree_args())
    tree.run(400)
    below = tree.visits_along([(0, stop)])
    replies = {m: tree.visits_along([(0, stop), (other, m)]) for m in after.legal_moves()}
    assert other != 0 and below == 400 and len(replies) > 1
    if others == "planner":
        assert replies[planned] == below - 1 and sum(replies.values()) == below - 1
    else:
        assert sum(v > 0 for v in replies.values()) > 1
