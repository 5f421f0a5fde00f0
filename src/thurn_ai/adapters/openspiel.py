"""Thurn und Taxis as an OpenSpiel game: importing this module registers `thurn_und_taxis` with pyspiel.

    import pyspiel
    import thurn_ai.adapters.openspiel
    game = pyspiel.load_game("thurn_und_taxis", {"players": 3})
    state = game.new_initial_state()
    state.apply_action(state.legal_actions()[0])

Needs the optional extra: pip install "thurn-ai[openspiel]". docs/openspiel.md describes the parameters,
the action ids, the observation tensor, the returns and what is hidden.

A move in OpenSpiel is one decision of the engine (draw, play a card, each house, each discard, ...), so
the game has the engine's turn structure. Chance is *sampled*: a card drawn from the deck is chosen inside
the move by the state's own seeded generator, as in the engine, so there are no chance nodes (the engine
draws inside moves that do other things too, and keeps the deck as counts with no order to expose). The
adapter adds no rules: it maps action ids to engine moves and reads the engine's own view of a player.
"""
from __future__ import annotations

import random
import secrets

import numpy as np

try:
    import pyspiel
    from open_spiel.python.algorithms import ismcts, mcts
except ImportError as e:        # the optional extra is missing: say how to get it
    raise ImportError(f"thurn_ai.adapters.openspiel needs OpenSpiel ({e}): pip install \"thurn-ai[openspiel]\"") from e

from ..game.board import BUILTIN_BOARDS
from .. import _search
from ..bots.base import Observation
from ..bots.spec import make_bot
from ..errors import RulesError
from ..fileio import short_repr
from ..game.state import GameState, new_game
from .encoding import (PRIVATE_ALL, PRIVATE_NONE, PRIVATE_SINGLE, RETURNS, Encoding, encoding_for,
                                 returns_of_finished, view_string)
from ..position import position_to_dict
from ..game.rules import ALL_PROVINCES_READINGS, VARIANTS, Rules

GAME_NAME = "thurn_und_taxis"
MAX_PLAYERS = 4
MIN_PLAYERS = 2

#: The game's parameters and their defaults (OpenSpiel takes each parameter's type from its default).
PARAMETERS = {
    "players": Rules.players,
    "board": Rules.board,
    "variant": "default",                       # the board's own: classic (South), horses (North)
    "all_provinces_tile": Rules.all_provinces_tile,
    "max_turns": Rules.max_turns,
    "returns": RETURNS[0],
    "rng_seed": -1,                             # -1 (the default): a fresh seed from the operating system
}
MAX_RNG_SEED = (1 << 31) - 1                    # OpenSpiel's integer parameters are 32-bit

# A bound on the decisions in one turn, for OpenSpiel's max_game_length: two draws and the Administrator,
# two cards, close or stop, a house per city and done, the Cartwright, and at most every card discarded.
_FIXED_DECISIONS_PER_TURN = 8


def _game_type(utility) -> pyspiel.GameType:
    return pyspiel.GameType(
        short_name=GAME_NAME,
        long_name="Thurn und Taxis",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.SAMPLED_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=utility,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=MAX_PLAYERS,
        min_num_players=MIN_PLAYERS,
        # no perfect-recall information state: the observation is the view the engine's sampler keeps
        # fixed (docs/openspiel.md, "What a player knows")
        provides_information_state_string=False,
        provides_information_state_tensor=False,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=PARAMETERS,
        default_loadable=True,
        provides_factored_observation_string=False)


MAX_RNG_SEED = 2 ** 31 - 1


def read_parameters(params: dict) -> tuple[Rules, str, int]:
    """(rules, returns, rng_seed) from OpenSpiel game parameters; RulesError naming the bad one."""
    unknown = sorted(set(params) - set(PARAMETERS))
    if unknown:
        raise RulesError(f"{GAME_NAME}: unknown parameter {short_repr(unknown[0])} "
                         f"(parameters: {', '.join(PARAMETERS)})")
    p = {**PARAMETERS, **params}
    board, variant, returns, seed = p["board"], p["variant"], p["returns"], p["rng_seed"]
    if board not in BUILTIN_BOARDS:
        raise RulesError(f"{GAME_NAME}: board must be {' or '.join(BUILTIN_BOARDS)}, not {short_repr(board)}")
    if variant != "default" and variant not in VARIANTS:
        raise RulesError(f"{GAME_NAME}: variant must be default, {' or '.join(VARIANTS)}, not {short_repr(variant)}")
    if p["all_provinces_tile"] not in ALL_PROVINCES_READINGS:
        raise RulesError(f"{GAME_NAME}: all_provinces_tile must be {' or '.join(ALL_PROVINCES_READINGS)}, "
                         f"not {short_repr(p['all_provinces_tile'])}")
    if returns not in RETURNS:
        raise RulesError(f"{GAME_NAME}: returns must be {', '.join(RETURNS)}, not {short_repr(returns)}")
    if isinstance(seed, bool) or not isinstance(seed, int) or not -1 <= seed <= MAX_RNG_SEED:
        raise RulesError(f"{GAME_NAME}: rng_seed must be a whole number from -1 (a fresh seed) to "
                         f"{MAX_RNG_SEED}, not {short_repr(seed)}")
    try:
        rules = Rules(players=p["players"], board=board, variant=None if variant == "default" else variant,
                      all_provinces_tile=p["all_provinces_tile"], max_turns=p["max_turns"])
    except RulesError as e:
        raise RulesError(f"{GAME_NAME}: {e}") from None
    return rules, returns, seed


class ThurnUndTaxisGame(pyspiel.Game):
    """The OpenSpiel game. pyspiel.load_game("thurn_und_taxis", {...}) makes one."""

    def __init__(self, params=None):
        rules, returns, rng_seed = read_parameters(dict(params or {}))
        enc = encoding_for(rules)
        low, high = enc.utility_range(returns)
        constant_sum = returns != "margin"
        n = rules.players
        turn_bound = _FIXED_DECISIONS_PER_TURN + enc.n_cities + enc.board.n_cards
        info = pyspiel.GameInfo(
            num_distinct_actions=enc.num_actions, max_chance_outcomes=0, num_players=n,
            min_utility=low, max_utility=high, utility_sum=1.0 if constant_sum else 0.0,
            max_game_length=rules.max_turns * n * turn_bound)
        utility = (pyspiel.GameType.Utility.CONSTANT_SUM if constant_sum
                   else pyspiel.GameType.Utility.ZERO_SUM)
        super().__init__(_game_type(utility), info, {**PARAMETERS, **dict(params or {})})
        self.rules = rules
        self.returns_mode = returns
        self.encoding: Encoding = enc
        self._tables = _Tables.of(rules, returns)
        self._params = {**PARAMETERS, **dict(params or {})}
        self._rng_seed = secrets.randbits(63) if rng_seed == -1 else rng_seed
        self._dealt = 0

    def __reduce__(self):
        # pickled as its parameters: the unpickled game starts its sequence of deals again (with
        # rng_seed=-1, a fresh one). OpenSpiel's own pickling asks for the generator of a sampled game
        # (GetRNGState), which its bridge to Python games does not forward.
        return (_load_game, (self._params,))

    def new_initial_state(self, seed=None):
        """A new game. Without `seed`, the deal is the next one of the game's sequence (rng_seed): the
        n-th game dealt has the same seed in every run. A seed (a whole number) picks a deal directly:
        the same seed gives the same game as thurn_ai.new_game(seed=seed) with these rules."""
        if seed is not None:
            if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
                raise RulesError(f"{GAME_NAME}: a seed is a whole number, not {short_repr(seed)}")
            return ThurnUndTaxisState(self, new_game(rules=self.rules, seed=int(seed)))
        return ThurnUndTaxisState(self)

    def state_from_engine(self, engine: GameState) -> "ThurnUndTaxisState":
        """An OpenSpiel state at a thurn_ai position (a copy of it; its history starts empty), e.g. one
        read with thurn_ai.position.load_position. Its rules must be this game's."""
        if not isinstance(engine, GameState):
            raise RulesError(f"{GAME_NAME}: expected a thurn_ai GameState, not {short_repr(engine)}")
        if engine.rules != self.rules:
            raise RulesError(f"{GAME_NAME}: the position's rules ({engine.rules.to_dict()}) are not this "
                             f"game's ({self.rules.to_dict()})")
        return ThurnUndTaxisState(self, engine.clone())

    def _deal(self) -> GameState:
        # called when a state made without a seed is first used, so the clones OpenSpiel makes (through
        # new_initial_state) do not use up deals: the n-th game played is the same in every run
        seed = _mix(self._rng_seed, self._dealt)
        self._dealt += 1
        return new_game(rules=self.rules, seed=seed)

    def make_py_observer(self, iig_obs_type=None, params=None):
        return Observer(self._tables, iig_obs_type, params)


_MASK = (1 << 64) - 1


def _mix(seed: int, k: int) -> int:
    """The k-th deal's seed of a sequence: splitmix64's finalizer over the two numbers (fast, and
    neighbouring k give unrelated seeds)."""
    z = (seed * 0x9E3779B97F4A7C15 + (k + 1) * 0xBF58476D1CE4E5B9) & _MASK
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
    return z ^ (z >> 31)


class _Tables:
    """What every state of one game shares (the encoding, the returns): copied by reference when
    OpenSpiel clones a state, rebuilt from the rules when a state is unpickled."""

    _cache: dict = {}

    def __init__(self, rules: Rules, returns: str):
        self.rules = rules
        self.returns = returns
        self.enc = encoding_for(rules)

    @classmethod
    def of(cls, rules: Rules, returns: str) -> "_Tables":
        key = (rules, returns)
        t = cls._cache.get(key)
        if t is None:
            t = cls._cache[key] = cls(rules, returns)
        return t

    def __deepcopy__(self, memo):
        return self

    def __reduce__(self):
        return (_Tables.of, (self.rules, self.returns))


class _Engine:
    """The engine state of an OpenSpiel state, and what was read from it so far: view strings and
    tensors (OpenSpiel's checks and ISMCTS ask for the same ones several times a move; a move clears
    them). OpenSpiel clones a Python state by deep-copying its attributes: this makes that one compiled
    clone. A state made without a seed is dealt when first used (see ThurnUndTaxisGame._deal)."""

    __slots__ = ("state", "game", "read")

    def __init__(self, state: GameState | None = None, game: ThurnUndTaxisGame | None = None):
        self.state = state
        self.game = game
        self.read: dict = {}

    def get(self) -> GameState:
        s = self.state
        if s is None:
            assert self.game is not None    # a state without an engine has its game to deal from
            s = self.state = self.game._deal()
            self.game = None
        return s

    def __deepcopy__(self, memo):
        twin = _Engine(self.get().clone())
        twin.read = dict(self.read)         # strings, and tensors nobody writes to (see Observer.set_from)
        return twin

    def __reduce__(self):
        return (_Engine, (self.get(),))


class ThurnUndTaxisState(pyspiel.State):
    """One position. `engine` is the thurn_ai GameState it wraps (the whole state, hidden cards too)."""

    def __init__(self, game: ThurnUndTaxisGame, engine: GameState | None = None):
        super().__init__(game)
        self._e = _Engine(engine, None if engine is not None else game)
        self._t = game._tables

    @property
    def engine(self) -> GameState:
        """The thurn_ai GameState (complete: reading it shows every hand; a player's view is
        information_state_string / observation_tensor, or thurn_ai's GameState.observation)."""
        return self._e.get()

    # ---- the OpenSpiel state API

    def current_player(self):
        g = self._e.get()
        return pyspiel.PlayerId.TERMINAL if g.is_terminal() else g.current_player

    def _legal_actions(self, player):
        return self._t.enc.legal_actions(self._e.get())

    def _apply_action(self, action):
        # the engine checks legality: an illegal move raises IllegalMoveError and changes nothing
        e = self._e
        e.get().apply(self._t.enc.move_of(action))
        e.read.clear()

    def _action_to_string(self, player, action):
        self._t.enc.move_of(action)              # ValueError for a number that is no action id
        return self._t.enc.action_names[action]

    def __reduce__(self):
        # pickled through OpenSpiel's own serialization (the history and the engine state, exactly)
        return (_state_from_text, (self.get_game()._params, self.serialize()))

    def is_terminal(self):
        return self._e.get().is_terminal()

    def returns(self):
        return self._t.enc.returns(self._e.get(), self._t.returns)

    def __str__(self):
        # the complete position (hidden cards and the generators too): equal strings, equal states
        e = self._e
        text = e.read.get("complete")
        if text is None:
            text = e.read["complete"] = view_string(position_to_dict(e.get()))
        return text

    def information_state_string(self, player=None):
        raise RulesError(_NO_PERFECT_RECALL)

    def information_state_tensor(self, player=None):
        raise RulesError(_NO_PERFECT_RECALL)

    def observation_string(self, player=None):
        return self._view_string(player, PRIVATE_SINGLE)

    def _view_string(self, player, private):
        e = self._e
        g = e.get()
        p = _seat(g, player)
        key = ("string", p, private)
        text = e.read.get(key)
        if text is None:
            text = e.read[key] = view_string(self._t.enc.view(g, p, private))
        return text

    def normalised_observation_tensor(self, player=None) -> np.ndarray:
        """observation_tensor(player) with every value in [0, 1]: each piece divided by its scale
        (docs/openspiel.md, "Tensor layout"). A new array."""
        return self._tensor(player, PRIVATE_SINGLE, normalised=True).copy()

    def _tensor(self, player, private, normalised=False) -> np.ndarray:
        e = self._e
        g = e.get()
        p = _seat(g, player)
        key = ("tensor", p, private, normalised)
        x = e.read.get(key)
        if x is None:
            enc = self._t.enc
            x = e.read[key] = enc.normalised_tensor(g, p, private) if normalised else enc.tensor(g, p, private)
        return x

    def resample_from_infostate(self, player_id, probability_sampler):
        """A state `player_id` cannot tell from this one: the engine's determinize() re-deals what that
        player cannot see (the deck and the other hands' unknown cards) and reseeds chance. The seed is
        taken from probability_sampler (a callable returning a number in [0, 1))."""
        g = self._e.get()
        p = _seat(g, player_id)
        seed = int(probability_sampler() * (1 << 53))
        other = self.clone()         # keeps the history (every action is public)
        other._e = _Engine(g.determinize(p, seed))
        return other


_NO_PERFECT_RECALL = (
    f"{GAME_NAME}: no perfect-recall information state is provided (the game's view of a player is the "
    "position as that player may know it, not the history of what the player saw): use observation_string "
    "/ observation_tensor, and ISMCTSBot(..., use_observation_string=True) or thurn_ai.adapters.openspiel.ismcts_bot")


def _seat(g: GameState, player) -> int:
    if player is None:
        if g.is_terminal():
            raise RulesError(f"{GAME_NAME}: the game is over, so no player is to move; name a player")
        return g.current_player
    if isinstance(player, bool) or not isinstance(player, (int, np.integer)) or not 0 <= player < g.n_players:
        raise RulesError(f"{GAME_NAME}: a player is a seat from 0 to {g.n_players - 1}, not {short_repr(player)}")
    return int(player)


class Observer:
    """OpenSpiel's observer interface (tensor, dict, set_from, string_from) over the encoding.

    The information state and the observation are the same: the position as the player may know it,
    the view the engine's determinize() keeps fixed (docs/openspiel.md says why it is not a history).
    private_info picks what is seen of the hands: the player's own (the default), all of them, none."""

    def __init__(self, tables: _Tables, iig_obs_type=None, params=None):
        params = dict(params or {})
        normalised = params.pop("normalised", False)
        if params or not isinstance(normalised, bool):
            raise RulesError(f"{GAME_NAME}: an observer takes one parameter, normalised (True or False), "
                             f"not {short_repr(dict(params or {'normalised': normalised}))}")
        private = PRIVATE_SINGLE
        if iig_obs_type is not None:
            if iig_obs_type.perfect_recall:
                raise RulesError(_NO_PERFECT_RECALL)
            if not iig_obs_type.public_info:
                raise RulesError(f"{GAME_NAME}: an observation without the public information is not "
                                 "supported (every observation holds the public part of the position)")
            kinds = {pyspiel.PrivateInfoType.SINGLE_PLAYER: PRIVATE_SINGLE,
                     pyspiel.PrivateInfoType.ALL_PLAYERS: PRIVATE_ALL,
                     pyspiel.PrivateInfoType.NONE: PRIVATE_NONE}
            private = kinds[iig_obs_type.private_info]
        self.private = private
        self.normalised = normalised
        self._enc = tables.enc
        self.tensor = np.zeros(self._enc.tensor_size, np.float32)
        self.dict = self._enc.split(self.tensor)

    def set_from(self, state: ThurnUndTaxisState, player: int) -> None:
        # copied: the state's own stays unchanged
        self.tensor[:] = state._tensor(player, self.private, self.normalised)

    def string_from(self, state: ThurnUndTaxisState, player: int) -> str:
        return state._view_string(player, self.private)


PLAYOUTS = ("heuristic", "random")
PRIORS = ("plan", "uniform")


class Evaluator(mcts.Evaluator):
    """thurn-ai's playouts and planner as an OpenSpiel evaluator, for OpenSpiel's MCTSBot and ISMCTSBot.

    evaluate(state): the returns (the game's `returns`) of `n_rollouts` games played to the end from the
    state in compiled code, averaged: `playout="heuristic"` plays the policy of `mcts`'s playouts (the
    heuristic rule of thumb, a random move with probability `eps`), `"random"` uniform random moves.
    prior(state): `prior="plan"` puts `prior_mass` on the move of the planner that `mcts` uses as its PUCT
    prior and spreads the rest evenly over every legal move; `"uniform"` spreads it all evenly.
    What `mcts` does after its playouts (a 3-turn horizon, then a score evaluation) is not exposed:
    these playouts run to the end of the game.

    It reads the state it is given, which in ISMCTS is already a resampled one; its own generator
    (`random_state`) picks the playouts' chance and moves."""

    def __init__(self, playout: str = "heuristic", prior: str = "plan", prior_mass: float = 0.8,
                 eps: float = 0.05, n_rollouts: int = 1, random_state: np.random.RandomState | None = None):
        if playout not in PLAYOUTS:
            raise RulesError(f"playout must be {' or '.join(PLAYOUTS)}, not {short_repr(playout)}")
        if prior not in PRIORS:
            raise RulesError(f"prior must be {' or '.join(PRIORS)}, not {short_repr(prior)}")
        for name, x in (("prior_mass", prior_mass), ("eps", eps)):
            if isinstance(x, bool) or not isinstance(x, (int, float)) or not 0 <= x <= 1:
                raise RulesError(f"{name} must be a number from 0 to 1, not {short_repr(x)}")
        if isinstance(n_rollouts, bool) or not isinstance(n_rollouts, int) or n_rollouts < 1:
            raise RulesError(f"n_rollouts must be a whole number from 1, not {short_repr(n_rollouts)}")
        self.playout, self.prior_kind = playout, prior
        self.prior_mass, self.eps, self.n_rollouts = float(prior_mass), float(eps), n_rollouts
        self._rng = random_state or np.random.RandomState()

    def evaluate(self, state: ThurnUndTaxisState):
        mode = state._t.returns
        total = None
        for _ in range(self.n_rollouts):
            g = state.engine.clone()
            seed = int(self._rng.randint(0, 1 << 62))
            g.reseed(seed)                  # its own chance and moves, not the state's
            if self.playout == "heuristic":
                _search.policy_playout(g, seed, self.eps)
            else:
                g.playout()
            r = np.array(returns_of_finished(g, mode))
            total = r if total is None else total + r
        assert total is not None            # n_rollouts >= 1
        return total / self.n_rollouts

    def prior(self, state: ThurnUndTaxisState):
        legal = state.legal_actions()
        even = 1.0 / len(legal)
        if self.prior_kind == "uniform":
            return [(a, even) for a in legal]
        planned = state._t.enc.action_of(_search.plan_policy_choice(state.engine))
        rest = (1.0 - self.prior_mass) * even
        return [(a, rest + (self.prior_mass if a == planned else 0.0)) for a in legal]


class CompiledRolloutEvaluator(Evaluator):
    """OpenSpiel's RandomRolloutEvaluator (uniform random moves to the end of the game, a uniform prior),
    with the rollout played by the engine in compiled code instead of move by move through pyspiel."""

    def __init__(self, n_rollouts: int = 1, random_state: np.random.RandomState | None = None):
        super().__init__(playout="random", prior="uniform", n_rollouts=n_rollouts, random_state=random_state)


def seeded_resampler(random_state: np.random.RandomState):
    """A resampler for ISMCTSBot.set_resampler that draws its worlds from `random_state`. OpenSpiel's
    ISMCTSBot otherwise resamples with a sampler seeded by the operating system on every call, so its
    games never repeat."""
    def resample(state, player):
        return state.resample_from_infostate(player, random_state.uniform)
    return resample


def ismcts_bot(game, evaluator, uct_c: float, max_simulations: int, seed: int, **kwargs) -> ismcts.ISMCTSBot:
    """OpenSpiel's ISMCTSBot set up for this game: keyed by observation strings (the game has no
    perfect-recall information state) and with every random choice from one generator seeded by `seed`:
    its own and its resampler's. With an evaluator seeded too, the same seed plays the same game.
    kwargs go to ISMCTSBot (child_selection_policy=ismcts.ChildSelectionPolicy.PUCT, ...)."""
    rng = np.random.RandomState(seed % (1 << 32))
    bot = ismcts.ISMCTSBot(game, evaluator, uct_c, max_simulations, random_state=rng,
                           use_observation_string=True, **kwargs)
    bot.set_resampler(seeded_resampler(rng))
    return bot


class ThurnBot(pyspiel.Bot):
    """One of thurn-ai's bots (a spec string: "mcts(iterations=1000)", "heuristic", ...) as an OpenSpiel
    bot, so it can play in pyspiel.evaluate_bots against OpenSpiel's bots. It decides as it does in
    thurn-ai: from a determinized copy of the position (thurn_ai.bots.base.Observation), never from the
    hidden cards of the state it is given."""

    def __init__(self, spec: str, seed: int = 0):
        pyspiel.Bot.__init__(self)
        self.bot = make_bot(spec, seed)
        self._seeds = random.Random(seed)

    def step(self, state: ThurnUndTaxisState) -> int:
        g = state.engine
        obs = Observation(g, g.current_player, self._seeds.getrandbits(64))
        return state._t.enc.action_of(self.bot.choose(obs))

    def restart_at(self, state) -> None:
        pass      # it keeps nothing between decisions

    def inform_action(self, state, player_id, action) -> None:
        pass

    def __repr__(self):
        return f"<ThurnBot {self.bot.spec}>"


def load_game(**params) -> ThurnUndTaxisGame:
    """pyspiel.load_game("thurn_und_taxis", params), with keyword parameters."""
    return _load_game(params)


def _load_game(params: dict) -> ThurnUndTaxisGame:
    seed = params.get("rng_seed")
    if isinstance(seed, int) and not isinstance(seed, bool) and not -1 <= seed <= MAX_RNG_SEED:
        # OpenSpiel would refuse it first, with a message about C++ types
        raise RulesError(f"{GAME_NAME}: rng_seed must be a whole number from -1 (a fresh seed) to "
                         f"{MAX_RNG_SEED}, not {short_repr(seed)}")
    return pyspiel.load_game(GAME_NAME, params)


def _state_from_text(params: dict, text: str) -> ThurnUndTaxisState:
    return _load_game(params).deserialize_state(text)


def _register() -> None:
    if any(t.short_name == GAME_NAME for t in pyspiel.registered_games()):
        return          # registered already (the module was reloaded)
    pyspiel.register_game(_game_type(pyspiel.GameType.Utility.CONSTANT_SUM), ThurnUndTaxisGame)


_register()
