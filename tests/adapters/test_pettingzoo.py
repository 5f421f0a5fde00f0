"""The PettingZoo adapter (thurn_ai.adapters.pettingzoo): PettingZoo's API and seed tests, masks, rewards, what an
agent observes, bad arguments, and the example of docs/pettingzoo.md."""
import re
import warnings
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("pettingzoo", reason="PettingZoo is an optional extra: pip install 'thurn-ai[pettingzoo]'")

from pettingzoo.test import api_test, seed_test  # noqa: E402

import thurn_ai  # noqa: E402
from thurn_ai.errors import IllegalMoveError, RulesError  # noqa: E402
from thurn_ai.adapters.encoding import encoding_for  # noqa: E402
from thurn_ai.adapters.pettingzoo import env, raw_env  # noqa: E402

DOC = Path(__file__).resolve().parents[2] / "docs" / "pettingzoo.md"


def _play(e, seed, rng, limit=100_000):
    """Play random legal actions to the end; returns (steps, last() of each agent as it leaves)."""
    e.reset(seed=seed)
    steps, finals = 0, {}
    for agent in e.agent_iter(limit):
        obs, reward, terminated, truncated, info = e.last()
        if terminated or truncated:
            finals[agent] = (reward, terminated, truncated)
            e.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        e.step(int(rng.choice(legal)))
        steps += 1
    return steps, finals


@pytest.fixture(autouse=True)
def _quiet():
    # PettingZoo's checks warn that a dict observation is not a Box (as for its own card games)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        yield


def test_api_test_through_a_whole_two_player_game():
    from pettingzoo.utils import wrappers
    ended = []

    class Watched(raw_env):
        def step(self, action):
            super().step(action)
            if self.game.is_terminal() and not ended:
                ended.append(self.game.turn)

    # a random 2-player game takes about 5,000 decisions (one in a few hundred over 10,000): with the action
    # spaces seeded, the play test's random actions are always the same and reach the end
    e = wrappers.OrderEnforcingWrapper(Watched(players=2))
    for i, agent in enumerate(e.possible_agents):
        e.action_space(agent).seed(i)
    api_test(e, num_cycles=10_000)
    assert ended


@pytest.mark.parametrize("kwargs", [{"players": 3, "max_turns": 30}, {"players": 4, "board": "north", "max_turns": 20},
                                    {"players": 3, "returns": "margin", "max_turns": 30}])
def test_api_test_on_other_rule_sets(kwargs):
    api_test(env(**kwargs), num_cycles=2000)


@pytest.mark.parametrize("players", [2, 3])
def test_seed_test(players):
    seed_test(lambda: env(players=players), num_cycles=300)


def test_the_same_seed_gives_the_same_game_and_another_seed_another():
    rng = np.random.default_rng(0)
    e = raw_env(players=3)
    e.reset(seed=5)
    first = e.game.to_dict()
    e.reset(seed=5)
    assert e.game.to_dict() == first
    e.reset(seed=6)
    assert e.game.to_dict() != first
    e.reset()                   # the next game of the seed-6 sequence
    assert e.game.to_dict() != first
    _play(e, 5, rng, limit=50)


def test_masks_are_the_legal_moves_of_the_agent_to_move_only():
    e = raw_env(players=3)
    e.reset(seed=2)
    enc = e.encoding
    rng = np.random.default_rng(1)
    for _ in range(300):
        g = e.game
        for agent in e.agents:
            mask = e.observe(agent)["action_mask"]
            if agent == e.agent_selection:
                assert sorted(np.flatnonzero(mask)) == sorted(enc.action_of(m) for m in g.legal_moves())
                assert e.possible_agents[g.current_player] == agent
            else:
                assert not mask.any()
        e.step(int(rng.choice(np.flatnonzero(e.observe(e.agent_selection)["action_mask"]))))


def test_rewards_come_at_the_end_and_follow_the_returns():
    rng = np.random.default_rng(4)
    for returns in ("win", "margin"):
        e = raw_env(players=2, returns=returns)
        steps, finals = _play(e, 3, rng)
        g = e.game
        assert g.is_terminal() and steps > 100
        expected = encoding_for(g.rules).returns(g, returns)
        assert {a: r for a, (r, _, _) in finals.items()} == {f"player_{p}": expected[p] for p in range(2)}
        assert all(t and not c for _, t, c in finals.values())


def test_a_game_cut_by_max_turns_ends_as_truncated():
    rng = np.random.default_rng(5)
    e = raw_env(players=3, max_turns=10)
    _, finals = _play(e, 8, rng)
    assert len(finals) == 3 and all(c and not t for _, t, c in finals.values())


def test_an_agents_observation_is_its_view_only():
    e = raw_env(players=3)
    e.reset(seed=9)
    rng = np.random.default_rng(2)
    for _ in range(200):
        e.step(int(rng.choice(np.flatnonzero(e.observe(e.agent_selection)["action_mask"]))))
    enc = e.encoding
    g = e.game
    for p, agent in enumerate(e.possible_agents):
        obs = e.observe(agent)["observation"]
        assert obs.dtype == np.float32 and e.observation_space(agent)["observation"].contains(obs)
        assert np.array_equal(obs, enc.tensor(g.determinize(p, 77), p))     # the same whatever it cannot see
        hand = enc.split(obs)["hand"]
        assert list(hand[0]) == g.export()["hand"][p] and not hand[1:].any()


def test_state_is_the_complete_position():
    e = raw_env(players=2)
    e.reset(seed=1)
    pieces = e.encoding.split(e.state())
    assert pieces["deck"].sum() == e.game.export()["deck_n"] and e.state_space.contains(e.state())


def test_render_ansi_prints_the_position():
    e = env(players=2, render_mode="ansi")
    e.reset(seed=1)
    text = e.render()
    assert "seat 0" in text and "display:" in text
    quiet = env(players=2)
    quiet.reset(seed=1)
    assert quiet.render() is None


def test_bad_arguments_and_actions_get_clear_messages():
    with pytest.raises(RulesError, match="players must be 2, 3 or 4"):
        env(players=7)
    with pytest.raises(RulesError, match="returns must be win, share, margin"):
        env(returns="points")
    with pytest.raises(RulesError, match="render_mode must be ansi"):
        env(render_mode="human")
    e = raw_env(players=2)
    e.reset(seed=1)
    mask = e.observe(e.agent_selection)["action_mask"]
    before = e.game.to_dict()
    with pytest.raises(IllegalMoveError, match="illegal move"):
        e.step(int(np.flatnonzero(mask == 0)[0]))
    with pytest.raises(ValueError, match="out of range"):
        e.step(10_000)
    with pytest.raises(RulesError, match="give an action id"):
        e.step(None)
    assert e.game.to_dict() == before


def test_the_raw_environment_before_reset_says_to_reset_first():
    # the raw environment does not enforce the order of calls (env() does): each call that needs the game
    # says so instead of failing inside on a missing game
    e = raw_env(players=2, render_mode="ansi")
    for call in (lambda: e.observe("player_0"), e.state, lambda: e.step(0), e.render):
        with pytest.raises(RulesError, match=r"no game yet: call reset\(\) first"):
            call()
    e.reset(seed=1)
    assert e.render() and e.state().shape == e.state_space.shape


def test_the_example_in_the_docs_runs(capsys):
    example = re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)[0]
    assert len(example.strip().splitlines()) <= 15
    exec(compile(example, str(DOC), "exec"), {})
    assert capsys.readouterr().out.strip()


def test_the_spaces_match_the_openspiel_encoding():
    e = raw_env(players=4, board="north")
    enc = encoding_for(thurn_ai.Rules(players=4, board="north"))
    space = e.observation_space("player_0")
    assert space["observation"].shape == (enc.tensor_size,) and e.action_space("player_3").n == enc.num_actions
    assert e.observation_space("player_1") is e.observation_space("player_1")


def test_an_unknown_agent_gets_a_clear_message():
    e = env(players=2)
    e.reset(seed=1)
    for ask in (e.unwrapped.observe, e.observation_space, e.action_space):
        with pytest.raises(RulesError, match=r"no agent 'player_9': the agents are player_0, player_1"):
            ask("player_9")


def test_the_normalised_observation_is_the_raw_one_scaled():
    raw, scaled = raw_env(players=3), raw_env(players=3, observation="normalised")
    enc = raw.encoding
    rng = np.random.default_rng(4)
    for e in (raw, scaled):
        e.reset(seed=5)
    for _ in range(400):
        agent = raw.agent_selection
        a, b = raw.observe(agent)["observation"], scaled.observe(agent)["observation"]
        assert (b == enc.normalise(a)).all() and b.max() <= 1
        assert scaled.observation_space(agent)["observation"].contains(b)
        action = int(rng.choice(np.flatnonzero(raw.observe(agent)["action_mask"])))
        raw.step(action)
        scaled.step(action)
    with pytest.raises(RulesError, match="observation must be raw or normalised"):
        raw_env(observation="scaled")
    api_test(env(players=2, observation="normalised"), num_cycles=300)
