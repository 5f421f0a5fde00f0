"""Thurn und Taxis as a single-agent Gymnasium environment: you against thurn-ai's bots.

    from thurn_ai.adapters.gym import env
    e = env(opponents="heuristic,heuristic")          # a 3-player game: you and two heuristic bots
    obs, info = e.reset(seed=1)
    terminated = truncated = False
    while not (terminated or truncated):
        action = e.action_space.sample(obs["action_mask"])
        obs, reward, terminated, truncated, info = e.step(action)

Needs the optional extra: pip install "thurn-ai[gym]" (the pettingzoo extra brings Gymnasium too).
docs/gym.md describes it. The actions and the observation tensor are those of the OpenSpiel and PettingZoo adapters
(thurn_ai.adapters.encoding); the opponents' decisions are played inside step(), so the agent sees only
its own decisions. The environment adds no rules: it maps actions to engine moves.
"""
from __future__ import annotations

import numpy as np

try:
    import gymnasium
    from gymnasium import spaces
except ImportError as e:        # the optional extra is missing: say how to get it
    raise ImportError(f"thurn_ai.adapters.gym needs Gymnasium ({e}): pip install \"thurn-ai[gym]\"") from e

from ..bots.base import Observation
from ..render.text import render_view
from ..bots.spec import make_bot, split_specs
from ..errors import RulesError
from ..fileio import short_repr
from ..game.state import GameState, new_game
from .encoding import check_env_options, encoding_for
from ..game.rules import Rules

ENV_ID = "thurn_ai/ThurnUndTaxis-v0"


class ThurnUndTaxisGymEnv(gymnasium.Env):
    """One seat of a game against bots (bot specs, docs/bots.md). Observations are
    {"observation": float32 tensor, "action_mask": int8 mask over the action ids}; the reward is the
    seat's return at the end of the game (`returns`: win, share or margin), 0 before. An illegal action
    ends the episode as lost (terminated, the lowest return, info["illegal_action"] = True), so that an
    agent that ignores the mask learns from it and never moves the game on by a wrong move."""

    metadata = {"render_modes": ["ansi"]}

    def __init__(self, opponents="heuristic", seat: int | None = None, board: str = "south",
                 variant: str | None = None, all_provinces_tile: str = "german", max_turns: int = Rules.max_turns,
                 returns: str = "win", observation: str = "normalised", render_mode: str | None = None):
        specs = split_specs(opponents) if isinstance(opponents, str) else list(opponents)
        if not 1 <= len(specs) <= 3:
            raise RulesError(f"opponents: one to three bot specs, not {short_repr(opponents)}")
        for spec in specs:
            make_bot(spec, 0)               # BotSpecError names a bad spec now, not at reset()
        check_env_options(returns, observation, render_mode, self.metadata["render_modes"])
        players = len(specs) + 1
        if seat is not None and (isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < players):
            raise RulesError(f"seat must be None (a random seat each game) or 0 to {players - 1}, "
                             f"not {short_repr(seat)}")
        self.rules = Rules(players=players, board=board, variant=variant, all_provinces_tile=all_provinces_tile,
                           max_turns=max_turns)
        self.opponent_specs = specs
        self.fixed_seat = seat
        self.returns_mode = returns
        self.observation_kind = observation
        self.render_mode = render_mode
        self.encoding = enc = encoding_for(self.rules)
        high = np.ones(enc.tensor_size, np.float32) if observation == "normalised" else enc.high.copy()
        self.observation_space = spaces.Dict({
            "observation": spaces.Box(low=np.zeros(enc.tensor_size, np.float32), high=high, dtype=np.float32),
            "action_mask": spaces.Box(low=0, high=1, shape=(enc.num_actions,), dtype=np.int8)})
        self.action_space = spaces.Discrete(enc.num_actions)
        low, high = enc.utility_range(returns)
        self.reward_range = (low, high)
        self.game: GameState | None = None
        self.seat = 0
        self._bots: dict = {}

    # ---- the Gymnasium API

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        rng = self.np_random
        n = self.rules.players
        self.seat = int(rng.integers(n)) if self.fixed_seat is None else self.fixed_seat
        self.game = new_game(rules=self.rules, seed=int(rng.integers(0, 1 << 63)))
        others = [p for p in range(n) if p != self.seat]
        self._bots = {p: make_bot(spec, int(rng.integers(0, 1 << 63))) for p, spec in zip(others, self.opponent_specs)}
        self._play_opponents()
        return self._observe(), self._info()

    def step(self, action):
        g = self.game
        if g is None or g.is_terminal():
            raise RulesError("the game is over (or was never started): call reset()")
        try:
            move = self.encoding.move_of(action)
        except ValueError:
            move = None
        if move is None or not g.is_legal(move):
            low = self.reward_range[0]
            return self._observe(), float(low), True, False, {**self._info(), "illegal_action": True}
        self._inform(move)
        g.apply(move)
        self._play_opponents()
        reward = 0.0
        terminated = truncated = False
        if g.is_terminal():
            reward = float(self.encoding.returns(g, self.returns_mode)[self.seat])
            cut = g.to_dict()["truncated"]       # the max_turns safeguard ended the game
            terminated, truncated = not cut, cut
        return self._observe(), reward, terminated, truncated, self._info()

    def render(self):
        if self.render_mode is None:
            gymnasium.logger.warn("render() was called without a render_mode; use env(render_mode='ansi')")
            return None
        return render_view(self.game)

    # ---- helpers

    def _play_opponents(self) -> None:
        g = self.game
        assert g is not None            # reset() has dealt it
        rng = self.np_random
        while not g.is_terminal() and g.current_player != self.seat:
            p = g.current_player
            move = self._bots[p].choose(Observation(g, p, int(rng.integers(0, 1 << 63))))
            self._inform(move)
            g.apply(move)

    def _inform(self, move: int) -> None:
        """Tell the other opponents' bots that ask (Bot.informed) of `move`, about to be made, as the play loop
        does (thurn_ai.play.match.Table.inform): each its own observation of the position before it."""
        g = self.game
        assert g is not None            # reset() has dealt it
        for p, bot in self._bots.items():
            if p != g.current_player and getattr(bot, "informed", False):
                bot.inform(Observation(g, p, int(self.np_random.integers(0, 1 << 63))), g.current_player, move)

    def action_mask(self) -> np.ndarray:
        """The legal actions of the agent now (all zeros once the game is over)."""
        assert self.game is not None    # reset() has dealt it
        return self.encoding.action_mask(self.game)

    def _observe(self) -> dict:
        enc, g = self.encoding, self.game
        assert g is not None            # reset() has dealt it
        x = enc.normalised_tensor(g, self.seat) if self.observation_kind == "normalised" else enc.tensor(g, self.seat)
        return {"observation": x, "action_mask": enc.action_mask(g)}

    def _info(self) -> dict:
        assert self.game is not None    # reset() has dealt it
        return {"seat": self.seat, "turn": self.game.turn}


def env(**kwargs) -> ThurnUndTaxisGymEnv:
    """The environment (see ThurnUndTaxisGymEnv for the arguments)."""
    return ThurnUndTaxisGymEnv(**kwargs)


def _register() -> None:
    if ENV_ID not in gymnasium.registry:
        gymnasium.register(id=ENV_ID, entry_point="thurn_ai.adapters.gym:ThurnUndTaxisGymEnv")


_register()
