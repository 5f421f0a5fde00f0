"""The Gymnasium environment (thurn_ai.adapters.gym): Gymnasium's check_env, seeds, opponents, rewards, illegal
actions, bad arguments, and the example of docs/gym.md."""
import re
import warnings
from pathlib import Path

import numpy as np
import pytest

gymnasium = pytest.importorskip("gymnasium",
                                reason="Gymnasium comes with the optional extra: pip install 'thurn-ai[gym]'")

from gymnasium.utils.env_checker import check_env  # noqa: E402

import thurn_ai  # noqa: E402
from thurn_ai.errors import BoardError, BotSpecError, RulesError  # noqa: E402
from thurn_ai.adapters.gym import ENV_ID, env  # noqa: E402

DOC = Path(__file__).resolve().parents[2] / "docs" / "gym.md"


def _play(e, seed, rng):
    """A game of random legal actions: (observations, rewards, terminated, truncated, info)."""
    obs, info = e.reset(seed=seed)
    seen, rewards = [obs], []
    done = False
    while not done:
        obs, reward, terminated, truncated, info = e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        seen.append(obs)
        rewards.append(reward)
        done = terminated or truncated
    return seen, rewards, terminated, truncated, info


@pytest.mark.parametrize("kwargs", [{"opponents": "heuristic,heuristic"}, {"opponents": "greedy", "observation": "raw"},
                                    {"opponents": ["random", "random", "greedy"], "board": "north", "seat": 3}])
def test_check_env_passes(kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)      # "no spec": it is made directly, not by gymnasium.make
        check_env(env(**kwargs), skip_render_check=True)


def test_gymnasium_make_finds_it():
    e = gymnasium.make(ENV_ID, opponents="greedy", disable_env_checker=True)
    obs, info = e.reset(seed=3)
    assert e.unwrapped.rules.players == 2 and obs["action_mask"].any()


def test_the_agent_moves_only_on_its_own_decisions_and_sees_only_its_view():
    e = env(opponents="random,random")
    rng = np.random.default_rng(1)
    obs, info = e.reset(seed=2)
    enc = e.encoding
    for _ in range(300):
        g = e.game
        if g.is_terminal():
            break
        assert g.current_player == e.seat == info["seat"]
        assert (obs["observation"] == enc.normalised_tensor(g, e.seat)).all()
        assert (obs["action_mask"] == enc.action_mask(g)).all()
        obs, reward, terminated, truncated, info = e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert e.game.turn > 20


def test_the_same_seed_gives_the_same_game_and_another_seed_another():
    a = _play(env(opponents="greedy", max_turns=60), 5, np.random.default_rng(0))
    b = _play(env(opponents="greedy", max_turns=60), 5, np.random.default_rng(0))
    c = _play(env(opponents="greedy", max_turns=60), 6, np.random.default_rng(0))
    assert len(a[0]) == len(b[0]) and all((x["observation"] == y["observation"]).all() for x, y in zip(a[0], b[0]))
    assert a[1] == b[1] and a[4] == b[4]
    assert len(a[0]) != len(c[0]) or any((x["observation"] != y["observation"]).any() for x, y in zip(a[0], c[0]))


def test_seats_are_drawn_unless_fixed():
    drawn = {env(opponents="random,random").reset(seed=k)[1]["seat"] for k in range(30)}
    assert drawn == {0, 1, 2}
    assert {env(opponents="random,random", seat=1).reset(seed=k)[1]["seat"] for k in range(10)} == {1}


@pytest.mark.parametrize("returns", ["win", "margin"])
def test_the_reward_comes_at_the_end_and_is_the_seats_return(returns):
    e = env(opponents="heuristic", returns=returns)
    _, rewards, terminated, truncated, info = _play(e, 8, np.random.default_rng(2))
    g = e.game
    assert g.is_terminal() and terminated and not truncated
    assert all(r == 0 for r in rewards[:-1])
    assert rewards[-1] == e.encoding.returns(g, returns)[info["seat"]]
    if returns == "win":
        assert rewards[-1] == (1.0 if g.winner() == info["seat"] else 0.0)


def test_a_game_cut_by_max_turns_ends_as_truncated():
    e = env(opponents="random", max_turns=5)
    _, _, terminated, truncated, _ = _play(e, 1, np.random.default_rng(3))
    assert truncated and not terminated and e.game.to_dict()["truncated"]


def test_an_illegal_action_ends_the_episode_as_lost_and_changes_nothing():
    e = env(opponents="greedy", returns="margin")
    obs, _ = e.reset(seed=4)
    before = e.game.to_dict()
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    obs, reward, terminated, truncated, info = e.step(illegal)
    assert terminated and not truncated and info["illegal_action"]
    assert reward == e.reward_range[0] < 0 and e.game.to_dict() == before
    obs, reward, terminated, truncated, info = e.step(e.action_space.n + 5)    # out of range: the same
    assert terminated and info["illegal_action"]


@pytest.mark.parametrize("kwargs, error, words", [
    ({"opponents": "randm"}, BotSpecError, "randm"),
    ({"opponents": ""}, BotSpecError, "bad list of bots"),
    ({"opponents": "random,random,random,random"}, RulesError, "one to three bot specs"),
    ({"seat": 2}, RulesError, "seat must be None (a random seat each game) or 0 to 1"),
    ({"returns": "points"}, RulesError, "returns must be win, share, margin"),
    ({"observation": "scaled"}, RulesError, "observation must be raw or normalised"),
    ({"render_mode": "human"}, RulesError, "render_mode must be ansi or None"),
    ({"board": "west"}, BoardError, "unknown board 'west'"),
])
def test_bad_arguments_get_one_clear_message(kwargs, error, words):
    with pytest.raises(error, match=re.escape(words)):
        env(**kwargs)


def test_stepping_a_finished_game_is_refused():
    e = env(opponents="greedy", max_turns=3)
    _play(e, 1, np.random.default_rng(0))
    with pytest.raises(RulesError, match="call reset"):
        e.step(0)


def test_render_ansi_prints_the_position():
    e = env(opponents="greedy", render_mode="ansi")
    e.reset(seed=1)
    text = e.render()
    assert isinstance(text, str) and any(c in text for c in thurn_ai.load_board("south").cities)


def test_the_example_in_the_docs_runs(capsys):
    example = re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)[0]
    exec(compile(example, str(DOC), "exec"), {})
    assert re.match(r"seat \d reward [01]\.0 after \d+ turns", capsys.readouterr().out)
