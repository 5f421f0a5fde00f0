"""The network value (mcts(eval=net)): compiled and numpy inference agree, the file is checked, the search plays
with it, and its fit (studies/expert/value_net.py) has the gradient it claims."""
from __future__ import annotations

import json
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import thurn_ai
from thurn_ai import _policy
from thurn_ai.bots import make_bot
from thurn_ai.errors import BotSpecError
from thurn_ai.learned.model import ModelError, ValueModel
from thurn_ai.learned.net import DENSE, NetLayer, ValueNet, net_from
from thurn_ai.learned.features import N_TERMS
from thurn_ai.play.match import play_game
from thurn_ai.studies.expert import value_net as VN
from thurn_ai.studies.expert import value_rank as V

from tests.learned.test_learned import played

REWARDS = {"win": 0, "margin": 1, "mixed": 2}


def cities_of(board: str) -> int:
    return thurn_ai.Rules(players=2, board=board).load_board().n_cities


def random_net(seed: int, board: str | None = "south", hidden: int = 8, players=(2, 3, 4)) -> ValueNet:
    rng = np.random.default_rng(seed)
    cities = cities_of(board) if board else 0
    width = DENSE + 2 * cities
    layers = {n: NetLayer(W=rng.normal(0, 0.3, (hidden, width)), b=rng.normal(0, 0.3, hidden),
                          win_h=rng.normal(0, 0.5, hidden), win_x=rng.normal(0, 0.1, width),
                          score_h=rng.normal(0, 2, hidden), score_x=rng.normal(0, 0.3, width),
                          score0=float(rng.normal(0, 3)), cities=cities) for n in players}
    return ValueNet(layers=layers, board=board)


@settings(max_examples=40, deadline=None)
@given(players=st.sampled_from([2, 3, 4]), board=st.sampled_from(["south", "north"]),
       net_board=st.sampled_from(["south", "north", None]), seed=st.integers(0, 10_000),
       moves=st.integers(0, 300), reward=st.sampled_from(sorted(REWARDS)))
def test_compiled_and_numpy_networks_agree(players, board, net_board, seed, moves, reward):
    net = random_net(seed, net_board, hidden=1 + seed % 64)
    g = played(players, seed, moves, board)
    if g.is_terminal():
        return
    layer = net.layer_for(players, board)
    assert layer.cities == (cities_of(board) if net_board == board else 0)   # another board's cities: left out
    win_c, score_c, r_c = _policy.net_value(g, layer, REWARDS[reward], 8.0)
    win_n, score_n, r_n = net.predict(g, reward, 8.0)
    assert np.allclose(win_c, win_n, rtol=0, atol=1e-9)
    assert np.allclose(score_c, score_n, rtol=0, atol=1e-9)
    assert np.allclose(r_c, r_n, rtol=0, atol=1e-9)
    assert sum(win_c) == pytest.approx(1.0)


def test_the_city_inputs_change_the_value():
    # the same network with and without its city inputs differs where a player holds houses or a route
    net = random_net(3, "south")
    g = played(2, 1, 120)
    _, _, houses, route = _policy.net_inputs_of(g)
    assert any(houses) or any(route)
    full = _policy.net_value(g, net.layers[2])[0]
    dense = _policy.net_value(g, net.layers[2].without_cities())[0]
    assert not np.allclose(full, dense)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_fit_starts_at_the_linear_evaluation_exactly(players):
    # hidden output weights 0 and city weights 0: the network is the linear model it starts from
    rng = np.random.default_rng(players)
    base = ValueModel(win={n: rng.normal(0, 0.2, N_TERMS) for n in (2, 3, 4)},
                      score={n: rng.normal(0, 0.5, N_TERMS + 2) for n in (2, 3, 4)})
    layer = VN.start_layer(base, players, cities_of("south"), hidden=4)
    w, s = base.weights_for(players)
    for seed in range(4):
        g = played(players, seed, 50 * seed)
        net = _policy.net_value(g, layer)
        lin = _policy.learned_value(g, w, s, 2, 8.0)
        for a, b in zip(net, lin):
            assert np.allclose(a, b, rtol=0, atol=1e-9)


def test_the_file_round_trips_and_bad_files_are_refused(tmp_path):
    net = random_net(1)
    path = tmp_path / "net.json"
    net.save(path)
    back = ValueNet.load(path)
    assert back.board == "south" and back.players() == (2, 3, 4)
    for n in (2, 3, 4):
        assert np.array_equal(back.layers[n].W, net.layers[n].W) and back.layers[n].score0 == net.layers[n].score0
    good = json.loads(path.read_text())
    bad = [
        ({**good, "format": "x"}, "not a thurn-ai value network"),
        ({**good, "version": 2}, "version"),
        ({**good, "features": ["score"]}, "other features"),
        ({**good, "cities": 99}, "city inputs"),
        ({**good, "models": {}}, "models"),
        ({**good, "models": {"5": good["models"]["2"]}}, "5"),
        ({**good, "models": {"2": {**good["models"]["2"], "b": [1.0]}}}, "b"),
        ({**good, "models": {"2": {**good["models"]["2"], "score0": float("nan")}}}, "score0"),
        ({**good, "models": {"2": {**good["models"]["2"], "W": [[0.0] * 3]}}}, "W row"),
        ({**good, "models": {"2": {**good["models"]["2"], "W": [good["models"]["2"]["W"][0]] * 65}}}, "hidden"),
        ({**good, "models": {"2": {k: v for k, v in good["models"]["2"].items() if k != "b"}}}, "malformed"),
    ]
    for data, message in bad:
        with pytest.raises(ModelError, match=message):
            ValueNet.from_dict(json.loads(json.dumps(data, allow_nan=True)))


def test_a_network_without_a_player_count_says_so():
    net = random_net(2, players=(2,))
    with pytest.raises(ModelError, match="no weights for 3 players"):
        net.layer_for(3, "south")


# ---------------------------------------------------------------- the search with it


@pytest.fixture
def net_file(tmp_path):
    path = tmp_path / "net.json"
    random_net(5, hidden=16).save(path)
    return path


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_search_with_the_network_plays_legal_reproducible_games(players, net_file):
    rules = thurn_ai.Rules(players=players)
    spec = f"mcts(iterations=30,eval=net,nmodel={net_file})"
    recs = [play_game(rules, [make_bot(spec, 10 + i) for i in range(players)], seed=4) for _ in range(2)]
    assert recs[0].moves == recs[1].moves and not recs[0].truncated   # play_game refuses an illegal move


def test_the_network_steers_the_search(net_file, tmp_path):
    # the search's numbers come from the network: other weights, other statistics; its win chances are the net's
    from thurn_ai.bots.base import Observation
    other = tmp_path / "other.json"
    random_net(6, hidden=16).save(other)
    g = thurn_ai.new_game(players=3, seed=5)

    def said(path):
        return [(r.move, r.visits, round(r.win_prob, 12))
                for r in make_bot(f"mcts(iterations=200,eval=net,horizon=1,nmodel={path})", 3)
                .analyse(Observation(g, 0, 5))]
    assert said(net_file) == said(net_file)
    assert said(net_file) != said(other)
    assert all(0 < p < 1 for _, _, p in said(net_file))


@pytest.mark.parametrize("spec, message", [
    ("mcts(eval=net,nmodel=no/such/file.json)", "nmodel=no/such/file.json"),
    ("mcts(eval=learned,nmodel=net.json)", "needs eval=net"),
    ("mcts(eval=net,nmodel=a;b)", "not a file path"),
])
def test_a_bad_network_file_in_a_spec_is_one_clear_error(spec, message):
    with pytest.raises(BotSpecError, match=message.replace(".", r"\.")):
        make_bot(spec, 1)


def test_a_malformed_network_file_is_one_clear_error(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text('{"format": "thurn-ai value network", "version": 1}')
    with pytest.raises(BotSpecError, match="other features"):
        make_bot(f"mcts(eval=net,nmodel={path})", 1)
    path.write_text("[1, 2")
    with pytest.raises(BotSpecError, match="nmodel="):
        make_bot(f"mcts(eval=net,nmodel={path})", 1)


def test_the_shipped_network_loads_for_every_player_count():
    net = net_from()
    assert net.players() == (2, 3, 4)
    g = played(4, 1, 30)
    win, score, _ = net.predict(g)
    assert np.isfinite(score).all() and sum(win) == pytest.approx(1.0)


# ---------------------------------------------------------------- the fit


def synthetic_siblings(seed: int, players: int = 3, cities: int = 4) -> V.Siblings:
    rng = np.random.default_rng(seed)
    sizes = [3, 2, 4, 3]
    moves, k = sum(sizes), 2
    width = DENSE + 2 * cities
    z = rng.normal(0, 1, (moves, k, players, width))
    value = rng.normal(0.5, 0.05, moves)
    starts = np.concatenate([[0], np.cumsum(sizes)])
    target = np.concatenate([np.exp(v - v.max()) / np.exp(v - v.max()).sum()
                             for v in np.split(value / V.Q_TEMP, starts[1:-1])])
    return V.Siblings(players, z, rng.uniform(0, 1, (moves, k)), rng.integers(0, players, moves), value,
                      np.full(moves, 100.0), target, starts, np.arange(len(sizes)),
                      rng.normal(0, 1, (len(sizes), players, width)), rng.uniform(0, 1, len(sizes)),
                      rng.integers(0, players, len(sizes)))


def test_the_fit_has_the_gradient_it_claims():
    d = synthetic_siblings(1)
    rng = np.random.default_rng(2)
    width = d.z.shape[-1]
    like = NetLayer(W=rng.normal(0, 0.3, (5, width)), b=rng.normal(0, 0.3, 5), win_h=rng.normal(0, 0.5, 5),
                    win_x=rng.normal(0, 0.2, width), score_h=rng.normal(0, 1, 5), score_x=rng.normal(0, 0.5, width),
                    score0=0.0, cities=4)
    theta = VN.pack(like)
    center = rng.normal(0, 0.1, len(theta))
    sigma = rng.uniform(0.5, 2, len(theta))
    loss, grad = VN.loss_and_grad(theta, like, d, center, sigma, 0.3)
    eps = 1e-6
    for i in rng.choice(len(theta), 40, replace=False):
        e = np.zeros(len(theta))
        e[i] = eps
        num = (VN.loss_and_grad(theta + e, like, d, center, sigma, 0.3)[0]
               - VN.loss_and_grad(theta - e, like, d, center, sigma, 0.3)[0]) / (2 * eps)
        assert grad[i] == pytest.approx(num, rel=1e-4, abs=1e-7)


def test_the_fit_lowers_the_loss_and_a_large_penalty_keeps_the_start():
    d = synthetic_siblings(3)
    start = VN.start_layer(ValueModel(win={3: np.zeros(N_TERMS)}, score={3: np.zeros(N_TERMS + 2)}), 3, 4,
                           hidden=4)
    sigma = VN.input_scale(d, start)
    center = VN.center_of(start)
    before = VN.loss_and_grad(VN.pack(start), start, d, center, sigma, 0.0)[0]
    fitted = VN.fit_layer(d, start, 1e-3, sigma)
    assert VN.loss_and_grad(VN.pack(fitted), start, d, center, sigma, 0.0)[0] < before
    held = VN.fit_layer(d, start, 1e6, sigma)
    assert np.allclose(held.win_h, 0, atol=1e-3) and np.allclose(held.win_x, start.win_x, atol=1e-3)
