"""Thurn und Taxis as a PettingZoo AEC environment (turn by turn, with action masks).

    from thurn_ai.adapters.pettingzoo import env
    e = env(players=3)
    e.reset(seed=1)
    for agent in e.agent_iter():
        obs, reward, terminated, truncated, info = e.last()
        e.step(None if terminated or truncated else e.action_space(agent).sample(obs["action_mask"]))

Needs the optional extra: pip install "thurn-ai[pettingzoo]". docs/pettingzoo.md describes the
observations, actions and rewards. The actions and the observation tensor are those of the OpenSpiel
adapter (thurn_ai.adapters.encoding): one action a decision of the engine, the tensor the position as
that player may know it. The environment adds no rules: it maps actions to engine moves.
"""
from __future__ import annotations

from typing import Any

import numpy as np

try:
    import gymnasium
    from gymnasium import spaces
    from pettingzoo import AECEnv
    from pettingzoo.utils import wrappers
except ImportError as e:        # the optional extra is missing: say how to get it
    raise ImportError(f"thurn_ai.adapters.pettingzoo needs PettingZoo ({e}): "
                      "pip install \"thurn-ai[pettingzoo]\"") from e

from ..render.text import render_view
from ..errors import RulesError
from ..fileio import short_repr
from ..game.state import GameState, new_game
from .encoding import PRIVATE_ALL, check_env_options, encoding_for
from ..game.rules import Rules

ENV_NAME = "thurn_und_taxis_v0"


class ThurnUndTaxisEnv(AECEnv):
    """The AEC environment. Agents are "player_0", "player_1", ... (seat 0 starts).

    observe(agent) gives {"observation": float32 tensor, "action_mask": int8 mask over the action ids}; the
    mask is all zeros except for the agent to move. Rewards come at the end of the game: `returns`
    'win' (default: 1 to the winner by the rules' tie-break), 'share' (1 shared by the top scores) or
    'margin' (score minus the mean score). A game cut by the max_turns safeguard ends as truncated."""

    metadata = {"render_modes": ["ansi"], "name": ENV_NAME, "is_parallelizable": False}

    def __init__(self, players: int = 2, board: str = "south", variant: str | None = None,
                 all_provinces_tile: str = "german", max_turns: int = Rules.max_turns, returns: str = "win",
                 observation: str = "raw", render_mode: str | None = None):
        super().__init__()
        check_env_options(returns, observation, render_mode, self.metadata["render_modes"])
        self.rules = Rules(players=players, board=board, variant=variant,
                           all_provinces_tile=all_provinces_tile, max_turns=max_turns)
        self.returns_mode = returns
        self.normalised = observation == "normalised"
        self.render_mode = render_mode
        self.encoding = enc = encoding_for(self.rules)
        self.possible_agents = [f"player_{p}" for p in range(players)]
        self._seat = {a: p for p, a in enumerate(self.possible_agents)}
        high = np.ones(enc.tensor_size, np.float32) if self.normalised else enc.high.copy()
        tensor = spaces.Box(low=np.zeros(enc.tensor_size, np.float32), high=high, dtype=np.float32)
        mask = spaces.Box(low=0, high=1, shape=(enc.num_actions,), dtype=np.int8)
        self.observation_spaces = {a: spaces.Dict({"observation": tensor, "action_mask": mask})
                                   for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(enc.num_actions) for a in self.possible_agents}
        self.state_space = spaces.Box(low=np.zeros(enc.tensor_size, np.float32), high=enc.high.copy(),
                                      dtype=np.float32)
        self._seeds: np.random.Generator | None = None
        self.game: GameState | None = None      # reset() starts one

    # ---- spaces

    def observation_space(self, agent):
        return self.observation_spaces[self._agent(agent)]

    def action_space(self, agent):
        return self.action_spaces[self._agent(agent)]

    def _current(self) -> GameState:
        if self.game is None:           # the raw environment does not enforce the order of calls
            raise RulesError("no game yet: call reset() first")
        return self.game

    def _agent(self, agent) -> str:
        if agent not in self._seat:
            raise RulesError(f"no agent {short_repr(agent)}: the agents are {', '.join(self.possible_agents)}")
        return agent

    # ---- the AEC API

    def reset(self, seed=None, options=None):
        # the games of one environment follow a generator: reset(seed) restarts it, reset() takes its
        # next game (a fresh generator from the operating system if the environment was never seeded)
        if seed is not None or self._seeds is None:
            self._seeds = np.random.default_rng(seed)
        self.game = new_game(rules=self.rules, seed=int(self._seeds.integers(0, 1 << 63)))
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self.agent_selection = self.possible_agents[self.game.current_player]

    def observe(self, agent):
        seat = self._seat[self._agent(agent)]
        g = self._current()
        obs = self.encoding.normalised_tensor(g, seat) if self.normalised else self.encoding.tensor(g, seat)
        if not g.is_terminal() and g.current_player == seat:
            mask = self.encoding.action_mask(g)
        else:
            mask = np.zeros(self.encoding.num_actions, np.int8)
        return {"observation": obs, "action_mask": mask}

    def state(self):
        """The complete position (every hand and the deck) as a tensor of the same layout, seen from seat
        0: for centralized critics, never for a player's decisions."""
        return self.encoding.tensor(self._current(), 0, PRIVATE_ALL)

    def step(self, action):
        g = self._current()
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if action is None:
            raise RulesError(f"{agent} is to move: give an action id (None is only for an agent whose "
                             "game is over)")
        g.apply(self.encoding.move_of(action))      # IllegalMoveError (state unchanged) if not legal
        self._cumulative_rewards[agent] = 0.0
        self.rewards = dict.fromkeys(self.agents, 0.0)
        if g.is_terminal():
            returns = self.encoding.returns(g, self.returns_mode)
            self.rewards = {a: float(returns[self._seat[a]]) for a in self.agents}
            cut = g.to_dict()["truncated"]          # the max_turns safeguard ended the game
            self.terminations = dict.fromkeys(self.agents, not cut)
            self.truncations = dict.fromkeys(self.agents, cut)
        else:
            self.agent_selection = self.possible_agents[g.current_player]
        self._accumulate_rewards()

    def render(self):
        if self.render_mode is None:
            gymnasium.logger.warn("render() was called without a render_mode; use env(render_mode='ansi')")
            return None
        return render_view(self._current())

    def close(self):
        pass


raw_env = ThurnUndTaxisEnv


def env(**kwargs) -> AECEnv:
    """The environment wrapped as PettingZoo's own environments are: calls out of order raise."""
    return wrappers.OrderEnforcingWrapper(ThurnUndTaxisEnv(**kwargs))
