"""The options of the compiled tree searches (mcts, pimc): described once, with their defaults, bounds and
checks: the one home of the bounds of what a user may ask. The compiled tree (thurn_ai._search.Tree)
takes checked numbers and checks only what would break its memory; `tree_args()` turns the named choices
into the codes of the tree's enums, which the compiled module names itself (_search.PLAYOUTS, ...)."""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass, fields

from .. import _search
from ..errors import BotSpecError

# the named choices: the compiled tree's {name: code} tables
PLAYOUTS = tuple(_search.PLAYOUTS)
REWARDS = tuple(_search.REWARDS)
SELECTS = tuple(_search.SELECTS)
EVALUATIONS = tuple(_search.EVALUATIONS)

MAX_ITERATIONS = 10_000_000     # per decision; the tree's nodes must fit in memory
MAX_SECONDS = 3600.0            # per decision
MAX_GAME_ITERATIONS = 1_000_000_000     # a game's (spend=game): a thousand decisions at the per-decision maximum
MAX_GAME_SECONDS = 86_400.0             # a game's (spend=game): a day

# option: (low, high, whole number, low excluded) for numbers; the choices for names
BOUNDS = {
    "iterations": (1, MAX_ITERATIONS, True, False),
    "time": (0.0, MAX_SECONDS, False, True),
    "c": (0.0, 100.0, False, False),
    "prior": (0.0, 1.0, False, False),
    "temp": (0.0, 1000.0, False, True),
    "eps": (0.0, 1.0, False, False),
    "horizon": (0, 1000, True, False),
    "tiles": (0.0, 100.0, False, False),
    "scale": (0.0, 1000.0, False, True),
    "widen": (0.0, 1000.0, False, False),
    "workers": (1, 64, True, False),
    "mix": (0.0, 1.0, False, False),
    "draws": (0.0, 100.0, False, True),
    "game": (1, MAX_GAME_ITERATIONS, True, False),
    "game_time": (0.0, MAX_GAME_SECONDS, False, True),
    "favourite": (0.0, 1.0, False, False),
}
#: the numbers that may be None (not given)
OPTIONAL = ("time", "game", "game_time")
#: the move prior at PUCT's nodes: the hand-set one (rule of thumb + planner), or the learned one
POLICIES = ("handset", "learned")
#: what a time budget counts: wall-clock seconds, or the search thread's CPU seconds (fair on a loaded machine)
CLOCKS = ("wall", "cpu")
#: which later decisions of the searcher's turn start from the last search's subtree (docs/search-budget.md):
#: none (every decision a fresh tree), silent (where the moves since revealed nothing: own card plays, closes,
#: houses), turn (through the whole turn, the searcher's own draws too: the tree's node after a draw holds
#: every card it could have drawn)
REUSES = ("none", "silent", "turn")
#: which decisions the planner makes without a search: none, or houses (the houses and the Cartwright)
PLANNED = ("none", "houses")
#: how a decision's budget is set: flat (every searched decision the same), phase (draws get `draws` times it,
#: and a search stops once its most visited move can no longer be overtaken), or game (a budget for the whole
#: game, game= or game_time=, spent decision by decision: thurn_ai/bots/time_manager.py)
SPENDS = ("flat", "phase", "game")
#: where the hand-set share of a mixed prior (policy=learned, mix > 0) is asked: at every visit, or once per
#: node (in the first determinization that reaches it, kept beside the learned logits)
HAND_PRIORS = ("visit", "node")
#: how the search deals the opponents' hidden cards: none (uniformly at random), or policy (weighted by what
#: their moves said under the policy model: thurn_ai.bots.infer, docs/search-budget.md)
INFERS = ("none", "policy")
#: how the tree plays the other players' decisions: search (searched like the searcher's own: players like the
#: search), or planner (the planner's move, as the `heuristic` bot plays: a model of a heuristic table; the
#: game review's table model, docs/review.md)
OTHERS = ("search", "planner")
CHOICES = {"playout": PLAYOUTS, "reward": REWARDS, "select": SELECTS, "eval": EVALUATIONS, "policy": POLICIES,
           "clock": CLOCKS, "reuse": REUSES, "planned": PLANNED, "spend": SPENDS,
           "hand_prior": HAND_PRIORS, "infer": INFERS, "others": OTHERS}


@dataclass(frozen=True)
class SearchOptions:
    """What a search does per decision. See docs/bots.md for each option and how the defaults were
    chosen (measured against the heuristic bot at 2, 3 and 4 players)."""

    iterations: int = 1000          #: iterations per decision
    time: float | None = None       #: seconds per decision instead of iterations
    c: float = 1.0                  #: exploration constant
    select: str = "puct"            #: puct (prior below) or ucb (availability counts)
    prior: float = 0.8              #: PUCT prior mass on the planning policy's move
    temp: float = 3.0               #: temperature of the rule of thumb's softmax in the prior
    playout: str = "heuristic"      #: playout policy
    eps: float = 0.05               #: chance of a random move in a playout
    horizon: int = 3                #: playout turns of each player, then the evaluation (0: to the end)
    eval: str = "simple"            #: evaluation of a stopped playout (learned: thurn_ai/learned)
    tiles: float = 1.0              #: weight of province-tile progress in the simple evaluation
    scale: float = 8.0              #: points of margin that make tanh(margin / scale) = 0.76
    reward: str = "mixed"           #: reward of a finished game
    widen: float = 1.0              #: progressive widening below the root (ucb only)
    workers: int = 1                #: trees searched in parallel threads
    model: str | None = None        #: weights file of the learned evaluation (None: the shipped one)
    policy: str = "handset"         #: move prior: handset, or learned (thurn_ai/learned/prior.py; select=puct)
    mix: float = 0.0                #: with policy=learned, the hand-set prior's share of the prior
    pmodel: str | None = None       #: weights file of the learned prior (None: the shipped one)
    clock: str = "wall"             #: what time= counts: wall (seconds) or cpu (the search thread's CPU seconds)
    reuse: str = "none"             #: keep the last search's subtree for the turn's next decision (REUSES)
    planned: str = "none"           #: decisions the planner makes without a search (PLANNED)
    spend: str = "flat"             #: how the budget is spread over the decisions (SPENDS)
    draws: float = 2.0              #: with spend=phase or game, a draw decision's budget in multiples of the others'
    game: int | None = None         #: with spend=game, iterations for the seat's whole game
    game_time: float | None = None  #: with spend=game, seconds (of `clock`) for the seat's whole game instead
    favourite: float = 0.8          #: with spend=game, stop a search whose most visited move holds this share (0: off)
    hand_prior: str = "visit"       #: where the hand-set share of a mixed prior is asked (HAND_PRIORS)
    infer: str = "none"             #: how the opponents' hidden cards are dealt (INFERS)
    others: str = "search"          #: how the tree plays the other players' decisions (OTHERS)

    def __post_init__(self):
        for key, (low, high, whole, above) in BOUNDS.items():
            value = getattr(self, key)
            if key in OPTIONAL and value is None:
                continue
            object.__setattr__(self, key, _number(key, value, low, high, whole, above))
        for key, choices in CHOICES.items():
            if getattr(self, key) not in choices:
                raise BotSpecError(f"{key} must be one of {', '.join(choices)}, not {getattr(self, key)!r}")
        if self.model is not None:
            self._check_model()
        if self.policy == "learned" and self.select != "puct":
            raise BotSpecError("policy=learned is a PUCT prior: it needs select=puct")
        if self.pmodel is not None:
            self._check_prior()
        self._check_game()

    def _check_game(self) -> None:
        # spend=game's budget is the game's: one of game= or game_time=, and no per-decision time
        given = [k for k in ("game", "game_time") if getattr(self, k) is not None]
        if self.spend != "game":
            if given:
                raise BotSpecError(f"{given[0]}= is the budget of a whole game: it needs spend=game "
                                   f"(spend is {self.spend})")
            return
        if len(given) != 1:
            raise BotSpecError("spend=game needs the game's budget: game= (iterations) or game_time= (seconds), "
                               + ("not both" if given else "none was given"))
        if self.time is not None:
            raise BotSpecError("spend=game spends the game's budget over its decisions: time= (seconds a decision) "
                               "contradicts it")
        if self.game_time is not None and self.clock == "cpu" and self.workers > 1:
            raise BotSpecError("game_time= with clock=cpu counts the searching thread's CPU seconds: it needs "
                               "workers=1")

    def _check_model(self) -> None:
        # read now, so that a missing or broken file is one clear error before any game, not a crash in one
        if self.eval != "learned":
            raise BotSpecError(f"model= is the learned evaluation's weights file: it needs eval=learned "
                               f"(eval is {self.eval})")
        if not isinstance(self.model, str):
            raise BotSpecError(f"model must be the path of a weights file, not {self.model!r}")
        from ..learned.model import ModelError, model_from
        try:
            model_from(self.model)
        except ModelError as e:
            raise BotSpecError(f"model={self.model}: {e}") from None

    def _check_prior(self) -> None:
        if self.policy != "learned":
            raise BotSpecError(f"pmodel= is the learned prior's weights file: it needs policy=learned "
                               f"(policy is {self.policy})")
        if not isinstance(self.pmodel, str):
            raise BotSpecError(f"pmodel must be the path of a weights file, not {self.pmodel!r}")
        from ..learned.model import ModelError
        from ..learned.prior import prior_from
        try:
            prior_from(self.pmodel)
        except ModelError as e:
            raise BotSpecError(f"pmodel={self.pmodel}: {e}") from None

    @classmethod
    def names(cls) -> tuple[str, ...]:
        return tuple(f.name for f in fields(cls))

    def to_dict(self) -> dict:
        return asdict(self)

    def tree_args(self) -> dict:
        """Keyword arguments for thurn_ai._search.Tree: checked numbers and enum codes."""
        return dict(c=self.c, select=_search.SELECTS[self.select], plan_prior=self.prior, prior_temp=self.temp,
                    playout=_search.PLAYOUTS[self.playout], eps=self.eps, horizon=self.horizon,
                    evaluation=_search.EVALUATIONS[self.eval], tile_weight=self.tiles, scale=self.scale,
                    reward=_search.REWARDS[self.reward], widen=self.widen,
                    prior_mix=self.mix if self.policy == "learned" else 0.0,
                    others_planner=self.others == "planner")


def _number(key: str, value, low, high, whole: bool, above: bool):
    """value as a finite number in [low, high] (above: > low), a whole number if `whole`; else BotSpecError."""
    kind = "a whole number" if whole else "a number"
    ok = not isinstance(value, bool) and isinstance(value, int if whole else (int, float))
    ok = ok and math.isfinite(value) and low <= value <= high and not (above and value == low)
    if not ok:
        rng = f"greater than {low} and at most {high}" if above else f"from {low} to {high}"
        raise BotSpecError(f"{key} must be {kind} {rng}, not {value!r}")
    return value if whole else float(value)
