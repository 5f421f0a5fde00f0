"""Hostile input to the OpenSpiel and PettingZoo adapters (issue 26, item 12): a seed the C++ side cannot
hold, an action number out of range, an agent that does not exist — each one message naming the problem."""
from __future__ import annotations

import pytest

pyspiel = pytest.importorskip("pyspiel")
pytest.importorskip("pettingzoo")

import thurn_ai.adapters.openspiel  # noqa: E402,F401  (registers the game)
from thurn_ai.errors import RulesError  # noqa: E402
from thurn_ai.adapters.openspiel import MAX_RNG_SEED, ThurnUndTaxisGame  # noqa: E402
from thurn_ai.adapters.pettingzoo import raw_env  # noqa: E402


@pytest.mark.parametrize("seed", [2 ** 31, 2 ** 63, -2])
def test_an_rng_seed_beyond_a_cpp_int_is_refused_by_name(seed):
    # made directly (before: pybind11's "Unable to cast Python instance" from the base class); through
    # pyspiel.load_game the C++ side converts the parameters before this package sees them
    with pytest.raises(RulesError, match=f"rng_seed must be a whole number from -1 .* to {MAX_RNG_SEED}"):
        ThurnUndTaxisGame({"rng_seed": seed})
    assert ThurnUndTaxisGame({"rng_seed": MAX_RNG_SEED}).new_initial_state() is not None
    assert pyspiel.load_game("thurn_und_taxis", {"rng_seed": MAX_RNG_SEED}).new_initial_state() is not None


@pytest.mark.parametrize("action", [-1, -5, 10 ** 6])
def test_an_action_number_out_of_range_has_no_name(action):
    state = pyspiel.load_game("thurn_und_taxis").new_initial_state()
    with pytest.raises(ValueError, match="out of range"):      # before: -1 was 'discard Lodz'
        state.action_to_string(state.current_player(), action)
    legal = state.legal_actions()[0]
    assert state.action_to_string(state.current_player(), legal)


@pytest.mark.parametrize("agent", ["player_9", "player_-1", 0, None])
def test_observing_an_unknown_agent_names_the_agents(agent):
    e = raw_env(players=2)
    e.reset(seed=1)
    with pytest.raises(RulesError, match="player_0, player_1"):
        e.observe(agent)
    assert e.observe("player_1")["observation"].shape
