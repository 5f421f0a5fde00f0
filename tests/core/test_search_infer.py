"""Hands inferred from the opponents' moves (mcts(infer=policy); docs/search-budget.md): the play loop's hook
that tells a bot of the other players' moves (Bot.inform, Table.inform), the evidence a move gives under the
policy model (_search.hand_evidence, thurn_ai.bots.infer.HandBeliefs) and the weighted deal of the hidden
cards (_search.weighted_determinization, what a Tree with hand_weights samples)."""
import math
import random
from collections import Counter

import pytest

import thurn_ai
from thurn_ai import _search
from thurn_ai.bots import Observation, make_bot
from thurn_ai.bots.base import Bot
from thurn_ai.bots.infer import FLOOR, HandBeliefs
from thurn_ai.bots.search_options import SearchOptions
from thurn_ai.errors import BotSpecError
from thurn_ai.game.notation import move_kind
from thurn_ai.game.rules import Rules
from thurn_ai.learned.model import model_from
from thurn_ai.learned.prior import prior_from
from thurn_ai.play.match import Table, play_game
from tests.helpers import build, cities

FAST = "iterations=60,horizon=1"


def random_position(rng: random.Random):
    """A position of a random game (2-4 players) after a random number of random moves, not over."""
    g = thurn_ai.new_game(players=rng.choice((2, 3, 4)), seed=rng.getrandbits(32))
    for _ in range(rng.randrange(0, 400)):
        if g.is_terminal():
            break
        g.apply(rng.choice(g.legal_moves()))
    return g


def public_facts(g, observer: int) -> dict:
    """Everything `observer` may know: its view of the position, and per player the hand's size and its known
    cards, and the number of cards in the deck; and the total of each city over the hidden places."""
    d = g.export()
    n = g.n_players
    hidden = [d["deck"][x] + sum(d["hand"][p][x] - d["known"][p][x] for p in range(n) if p != observer)
              for x in range(len(d["deck"]))]
    return {"view": g.to_dict(viewer=observer), "own_hand": d["hand"][observer], "known": d["known"],
            "hand_n": [sum(h) for h in d["hand"]], "deck_n": d["deck_n"], "hidden_totals": hidden}


def test_a_weighted_deal_keeps_every_public_fact():
    rng = random.Random(69)
    for _ in range(150):
        g = random_position(rng)
        if g.is_terminal():
            continue
        observer = rng.randrange(g.n_players)
        cities_n = len(g.board.cities)
        # weights from nearly nothing to the most, the observer's row too (it must not be read)
        weights = [[rng.choice((1e-6, 0.1, 0.5, 1.0, 50.0)) for _ in range(cities_n)] for _ in range(g.n_players)]
        dealt = _search.weighted_determinization(g, observer, rng.getrandbits(64), weights)
        assert public_facts(dealt, observer) == public_facts(g, observer)
        d = dealt.export()
        assert all(h >= k for hand, known in zip(d["hand"], d["known"]) for h, k in zip(hand, known))
        assert sum(d["deck"]) == d["deck_n"]
        if g.current_player == observer:
            assert dealt.legal_moves() == g.legal_moves()


def one_hidden_card_position():
    """Seat 1 holds one hidden card (Passau) and one known (Ulm); seat 0 is to move and cannot see it."""
    return build(players=2, current=0, phase="draw", hands={0: ["Basel"], 1: ["Ulm", "Passau"]},
                 known={1: ["Ulm"]}, routes={1: ["Stuttgart", "Ingolstadt"]})


def test_a_weighted_deal_draws_by_count_times_weight():
    g = one_hidden_card_position()
    n_cities = len(g.board.cities)
    favoured = cities(g, ["Lodz"])[0]
    weights = [[1.0] * n_cities, [0.1] * n_cities]
    weights[1][favoured] = 1.0
    facts = public_facts(g, 0)
    pool = facts["hidden_totals"]
    expected = pool[favoured] / sum(c * w for c, w in zip(pool, weights[1]))
    deals = 3000
    got = sum(_search.weighted_determinization(g, 0, seed, weights).export()["hand"][1][favoured]
              for seed in range(deals)) / deals
    uniform = pool[favoured] / sum(pool)
    assert got == pytest.approx(expected, abs=0.03)
    assert got > 3 * uniform


def abandoned_route_beliefs():
    """Seat 0's beliefs after seat 1, whose route is Stuttgart-Ingolstadt and who holds two hidden cards,
    abandoned its route for a new one at Passau (far from both ends)."""
    g = build(players=2, current=1, phase="play", hands={0: ["Basel"], 1: ["Passau", "Lodz"]},
              routes={1: ["Stuttgart", "Ingolstadt"]})
    beliefs = HandBeliefs(plan_prior=0.8, temp=3.0)
    beliefs.observe(Observation(g, 0, 5), 1, g.parse_move("new Passau"))
    after = g.clone()
    after.apply("new Passau")
    fits = {x for x in range(len(g.board.cities))
            if {f"left {g.board.cities[x]}", f"right {g.board.cities[x]}"} & set(map(g.move_str, legal_with(g, x)))}
    return beliefs, after, fits


def legal_with(g, x):
    """Seat 1's legal moves had its hand been one card of city x."""
    h = g.clone()
    d = h.export()
    d["hand"][1] = [0] * len(d["hand"][1])
    d["hand"][1][x] = 1
    h.load(d)
    return h.legal_moves()


def test_abandoning_a_route_speaks_against_the_cards_that_would_have_extended_it():
    beliefs, after, fits = abandoned_route_beliefs()
    assert len(fits) >= 3
    w = beliefs.log_w[1]
    others = [x for x in range(len(w)) if x not in fits and x not in cities(after, ["Stuttgart", "Ingolstadt"])]
    assert max(w[x] for x in fits) < min(w[x] for x in others)
    assert all(math.log(FLOOR) <= v <= 0.0 for v in w)
    assert beliefs.log_w[0] == [0.0] * len(w)        # nothing said about the observer's own hand
    # the deals then give seat 1 fewer cards that fit than the uniform deals do
    obs = Observation(after, 0, 9)
    weights = beliefs.weights(obs)
    uniform = [[1.0] * len(w) for _ in weights]

    def fitting_cards(ws):
        return sum(sum(_search.weighted_determinization(after, 0, s, ws).export()["hand"][1][x] for x in fits)
                   for s in range(400))
    assert fitting_cards(weights) < 0.6 * fitting_cards(uniform)


@pytest.mark.parametrize("hidden_cards", [["Lodz"], ["Lodz", "Pilsen"], []])
def test_evidence_fades_as_the_opponent_draws_hidden_cards(monkeypatch, hidden_cards):
    beliefs, _, _ = abandoned_route_beliefs()
    before = list(beliefs.log_w[1])
    g = build(players=2, current=1, phase="draw", hands={0: ["Basel"], 1: hidden_cards}, routes={1: ["Passau"]})
    hidden = _search.hidden_cards(g, 1)
    assert hidden == len(hidden_cards)
    monkeypatch.setattr(_search, "hand_evidence", lambda *args: None)     # the fade alone
    beliefs.observe(Observation(g, 0, 3), 1, g.parse_move("deck"))
    # the old evidence speaks of `hidden` of the hidden + 1 cards now held; none left: none kept
    assert beliefs.log_w[1] == pytest.approx([v * hidden / (hidden + 1) for v in before])


def test_weights_stay_bounded_over_whole_games():
    bots = [make_bot(f"mcts(infer=policy,{FAST})", 1), make_bot("heuristic", 2), make_bot("heuristic", 3)]
    play_game(Rules(players=3), bots, seed=4)
    assert all(math.log(FLOOR) - 1e-12 <= v <= 0.0 for row in bots[0].beliefs.log_w for v in row)
    assert any(v < 0 for row in bots[0].beliefs.log_w for v in row)      # it learned something


@pytest.mark.parametrize("players", [2, 3, 4])
def test_same_seed_same_game_and_only_legal_moves(players):
    # Table.play refuses an illegal move (ThurnError): a full game is the check
    def game():
        bots = [make_bot(f"mcts(infer=policy,{FAST})", 10 + p) if p % 2 == 0 else make_bot("heuristic", p)
                for p in range(players)]
        return play_game(Rules(players=players), bots, seed=players).to_json()
    assert game() == game()


def test_infer_none_searches_exactly_as_the_uniform_deal():
    g = thurn_ai.new_game(players=3, seed=8)
    while g.turn < 10 or sum(_search.hidden_cards(g, p) for p in range(3) if p != g.current_player) < 2:
        g.apply(_search.policy_choice(g, g.turn, 0, 0.0))
    obs = Observation(g, g.current_player, 11)
    default = make_bot("mcts(iterations=400)", seed=3)
    named = make_bot("mcts(iterations=400,infer=none)", seed=3)
    assert not default.informed and default.beliefs is None
    rows = [r[:4] for r in default.search(obs).trees[0].root_children()]
    assert rows == [r[:4] for r in named.search(obs).trees[0].root_children()]
    # the tree built without the new argument (the path every search took before infer=), the same seed
    tree = _search.Tree(obs.state, random.Random(3).getrandbits(64), ismcts=True, observer=obs.player,
                        officials=_search.OfficialFilter(), value_weights=model_from(None).weights_for(3),
                        prior_weights=prior_from(None).weights_for(3), **default.options.tree_args())
    tree.run(400)
    assert [r[:4] for r in tree.root_children()] == rows
    # with inferred hands the deals are weighted: another search of the same position
    inferred = make_bot("mcts(iterations=400,infer=policy)", seed=3)
    assert [r[:4] for r in inferred.search(obs).trees[0].root_children()] != rows


class Recorder(Bot):
    """A bot that plays the heuristic's move and keeps what it was told of the others' moves."""
    informed = True

    def __init__(self, seed=0):
        super().__init__(seed)
        self.heard: list[tuple] = []
        self.heuristic = make_bot("heuristic", seed)

    def choose(self, obs):
        return self.heuristic.choose(obs)

    def inform(self, obs, player, move):
        self.heard.append((obs.player, obs.state.export(), obs.state.to_dict(viewer=obs.player), player, move))


def test_the_play_loop_informs_only_the_bots_that_ask_of_the_others_moves():
    recorder = Recorder()
    other = make_bot("heuristic", 1)
    record = play_game(Rules(players=2), [other, recorder], seed=5)
    replay = thurn_ai.new_game(rules=Rules(players=2), seed=5)
    others_moves = []
    for text in record.moves:
        if replay.current_player == 0:
            others_moves.append(replay.parse_move(text))
        replay.apply(text)
    assert [h[4] for h in recorder.heard] == others_moves
    assert all(h[0] == 1 and h[3] == 0 for h in recorder.heard)


def test_a_bot_without_the_attribute_is_not_informed():
    class Plain:                        # a plugin bot need not derive from Bot: only choose()
        spec = "plain"

        def choose(self, obs):
            return obs.legal_moves()[0]
    recorder = Recorder()
    play_game(Rules(players=2), [Plain(), recorder], seed=6)
    assert recorder.heard


def test_the_hook_gives_nothing_hidden():
    """Two true states that differ only in what seat 0 cannot see (seat 1's hidden cards, the deck's order)
    inform seat 0 of the same data, for every move seat 1 can make in both."""
    rng = random.Random(7)
    checked = Counter()
    for k in range(30):
        g = random_position(rng)
        if g.is_terminal() or g.current_player == 0 or g.n_players != 2:
            continue
        twin = g.determinize(0, rng.getrandbits(64))      # seat 0's view of g, dealt again
        assert twin.to_dict(viewer=0) == g.to_dict(viewer=0)
        if twin.export()["hand"] == g.export()["hand"] and twin.export()["deck"] == g.export()["deck"]:
            continue
        for move in sorted(set(g.legal_moves()) & set(twin.legal_moves())):
            heard = []
            for state in (g, twin):
                recorder = Recorder()
                Table(state.clone(), seed=k, seats=["heuristic", "recorder"]).inform([recorder, None], move)
                heard.append(recorder.heard)
            (a,), (b,) = heard
            assert a[0] == b[0] == 0 and a[3:] == b[3:]
            assert a[1] == b[1] and a[2] == b[2]
            checked[move_kind(move)] += 1
    # the deck draw, the face-up draws and card plays (of cards in both hands) among them
    assert checked["deck"] > 0 and checked["draw"] > 0 and checked["new"] + checked["right"] > 0


def test_infer_is_checked_and_pinned_off_by_the_anchors():
    assert SearchOptions().infer == "none"
    with pytest.raises(BotSpecError):
        make_bot("mcts(infer=everything)")
    with pytest.raises(BotSpecError):
        make_bot("pimc(infer=policy)")
    assert make_bot("anchor-1k").options.infer == "none" and not make_bot("anchor-1k").informed


def test_a_web_game_tells_the_bot_only_the_moves_that_stand():
    """The board's games: a person's move that is taken back (undo) is no news; the bot hears the moves that
    stand, at its next step, each once."""
    from thurn_ai.web.sessions import GameSession
    g = GameSession(["human", "heuristic"], seed=5)
    recorder = Recorder()
    g.bots[1] = recorder
    g.play("draw deck")
    before = g.play("draw deck")["view"]
    new_cards = [m["move"] for m in before["legal"] if m["kind"] == "new"]
    g.play(new_cards[0])
    g.undo()
    assert recorder.heard == []                      # nothing told before the bot's step
    g.play(new_cards[-1])
    g.step()
    told = [g.state.move_str(h[4]) for h in recorder.heard]
    assert told == ["draw deck", "draw deck", new_cards[-1]] and len(new_cards) > 1
    assert all(h[0] == 1 and h[3] == 0 for h in recorder.heard)


def test_the_gym_environment_tells_its_opponents_of_the_others_moves():
    pytest.importorskip("gymnasium")
    import numpy as np
    from thurn_ai.adapters.gym import env
    e = env(opponents=f"mcts(infer=policy,{FAST}),heuristic", seat=0)
    obs, _ = e.reset(seed=3)
    searcher = e._bots[1]
    heard = []
    searcher.beliefs.observe = lambda seen, player, move: heard.append((seen.player, player))
    rng = np.random.default_rng(0)
    for _ in range(40):
        obs, _, terminated, truncated, _ = e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        if terminated or truncated:
            break
    assert {p for _, p in heard} == {0, 2} and all(seat == 1 for seat, _ in heard)
