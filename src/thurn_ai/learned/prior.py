"""The learned move prior: numpy inference and the weights file shipped in the package.

At a decision of phase h (draw, play, after a card, discard) with legal moves a, each move has PRIOR
features phi(a) (FEATURES, computed in compiled code: cext/thurn_ai/_policy_prior.pxi), and

    P(a) = softmax over the moves of  s(phi(a)),   s(phi) = w . phi + v . tanh(W phi + b)

with one PhasePrior (w, and optionally W, b, v) per player count and phase. Without the hidden layer (the
shipped prior) s is a conditional logit fitted to the visit shares and values of a deep search
(thurn_ai/studies/expert/fit.py, `python experiments/expert_iteration.py --part fit`); with H <= MAX_HIDDEN
tanh units it is a small MLP (results/expert/prior_mlp.json was one; its study closed at 46472b2). A phase
without weights has no learned prior: the search uses the hand-set one there. The compiled twin (prior_logits)
computes the same numbers inside the search; `mcts(policy=learned)` selects it, `pmodel=FILE` another weights
file (docs/expert.md).

The file: format FORMAT; version 1 holds per player count and phase null or N_FEATURES weights (the logit);
version 2 (written whenever a phase has hidden units) also allows {"w": [N_FEATURES], "W": [[N_FEATURES] x H],
"b": [H], "v": [H]}.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .. import _policy
from ..fileio import atomic_write_text, load_json, short_repr
from .model import MAX_MODEL_BYTES, ModelError, _weights, by_player_count, read_once

#: the prior shipped with the package (refit: python experiments/expert_iteration.py --part fit)
DEFAULT_PATH = Path(__file__).with_name("prior_model.json")
VERSION = 2            # the newest version this thurn-ai reads and writes (1: logits only)
VERSIONS = (1, 2)
FORMAT = "thurn-ai move prior"
#: the most hidden units a phase may have: the compiled search's fixed room (PRIOR_HIDDEN)
MAX_HIDDEN = _policy.MAX_PRIOR_HIDDEN

#: the phases with a weight row, in the compiled order (prior_phase)
PHASES = ("draw", "play", "after_play", "discard")

#: the features of a move, in the compiled order (prior_features); "plan" is the planner (plan_choice)
FEATURES = (
    "plan_move",       # 1 for the planner's move (the hand-set prior's favourite)
    "rule_of_thumb",   # the one-step rule of thumb's score minus the best one, / 10, at least -3
    "plan_gain",       # the planner's value after the move minus the best move's, at least -5 (0: none)
    "has_plan_value",  # 1 where the planner values the move (draws, cards, close, stop)
    "draw_face_up", "draw_deck", "administrator", "extend", "new_route", "horse", "close", "stop", "discard",
    "postmaster",      # the move uses the Postmaster (a second draw)
    "postal_carrier",  # the move uses the Postal Carrier (a second card)
    "fits_route",      # the card fits an end of the mover's route
    "hand_neighbours", # cards in hand next to the card's city, / 3
    "house_value",     # what a house in the card's city is worth to the mover
    "denies",          # opponents whose route the card (drawn or discarded) would extend
    "denied_value",    # the most a house in that city is worth to one of them
    "route_length",    # the route's length after the move (a card; a close), / 5
    "close_late",      # a close when the game is ending (or about to)
    "second_copy",     # the mover holds another card of that city
    "deck_size",       # cards in the deck, / 20 (deck draws)
    "plan_postmaster", # the planner's move, and a second draw (the Postmaster)
    "plan_stop",       # the planner's move, and a stop (not closing)
    "plan_deck",       # the planner's move, and a draw from the deck
    "route_tile_step", # how much nearer a card brings the mover's route to a route-length tile, / 5
    "denies_route_tile",  # the most a card (drawn or discarded) would bring an opponent's route nearer to one
)
N_FEATURES = len(FEATURES)


@dataclass(frozen=True, eq=False)
class PhasePrior:
    """The prior of one player count and phase: a move's score w . phi + v . tanh(W phi + b); W, b and v are
    None for the conditional logit (no hidden units)."""
    w: np.ndarray                    # (N_FEATURES,)
    W: np.ndarray | None = None      # (H, N_FEATURES)
    b: np.ndarray | None = None      # (H,)
    v: np.ndarray | None = None      # (H,)

    def __post_init__(self):
        if (self.W is None) != (self.b is None) or (self.W is None) != (self.v is None):
            raise ValueError("a phase prior's W, b and v are all given or all None")

    @property
    def hidden(self) -> int:
        return 0 if self.W is None else len(self.W)

    def scores(self, features) -> np.ndarray:
        """Each move's score from its features (moves, N_FEATURES)."""
        f = np.asarray(features, dtype=float)
        u = f @ self.w
        if self.W is not None:
            u = u + np.tanh(f @ self.W.T + self.b) @ self.v
        return u

    def to_json(self):
        """The logit as its list of weights; an MLP as an object of w, W, b, v."""
        if self.W is None or self.b is None or self.v is None:      # (all or none: __post_init__)
            return [float(x) for x in self.w]
        return {"w": [float(x) for x in self.w], "W": [[float(x) for x in r] for r in self.W],
                "b": [float(x) for x in self.b], "v": [float(x) for x in self.v]}


@dataclass(frozen=True)
class PriorModel:
    rows: dict                  # players -> [PhasePrior or None per phase]
    meta: dict = field(default_factory=dict)

    def players(self) -> tuple[int, ...]:
        return tuple(sorted(self.rows))

    def weights_for(self, players: int) -> list:
        """The phases of a player count, as the compiled search takes them (None: no learned prior)."""
        if players not in self.rows:
            raise ModelError(f"the move prior has no weights for {players} players "
                             f"(it has {', '.join(map(str, self.players()))})")
        return list(self.rows[players])

    def probabilities_features(self, players: int, phase: int, features) -> np.ndarray | None:
        """The prior over the moves of one decision from their features (moves, N_FEATURES); None where
        the phase has no learned prior."""
        if phase < 0:
            return None
        row = self.rows[players][phase] if players in self.rows else None
        if row is None:
            return None
        u = row.scores(features)
        u = np.exp(u - u.max())
        return u / u.sum()

    def probabilities(self, state, forbid: int = 0) -> tuple[list[int], np.ndarray | None]:
        """(moves, prior) at the decision of the player to move (complete state)."""
        phase, moves, f = _policy.prior_features_of(state, forbid)
        return moves, self.probabilities_features(state.n_players, phase, f)

    # ---- file

    def to_dict(self) -> dict:
        """The file's data: version 1 while every phase is a logit (older thurn-ai reads it), else 2."""
        mlp = any(r is not None and r.hidden for rows in self.rows.values() for r in rows)
        return {"format": FORMAT, "version": VERSION if mlp else 1, "features": list(FEATURES),
                "phases": list(PHASES),
                "models": {str(n): {ph: (None if r is None else r.to_json())
                                    for ph, r in zip(PHASES, self.rows[n])} for n in self.players()},
                "meta": self.meta}

    def save(self, path) -> None:
        atomic_write_text(Path(path), json.dumps(self.to_dict(), indent=1) + "\n")

    @classmethod
    def from_dict(cls, d) -> "PriorModel":
        """The prior in a weights file's data, checked as data (format, version, features, phases; per
        player count one entry per phase: null, N_FEATURES finite numbers of bounded size, or in version 2
        an MLP object (_phase)); else ModelError."""
        if not isinstance(d, dict) or d.get("format") != FORMAT:
            raise ModelError(f"not a thurn-ai move prior (its format is not {FORMAT!r})")
        version = d.get("version")
        if version not in VERSIONS or isinstance(version, bool):
            raise ModelError(f"the move prior's version is {short_repr(version)}; this thurn-ai reads "
                             f"versions {', '.join(map(str, VERSIONS))}")
        names = d.get("features")
        # a prior fitted before features were added reads them with weight 0 (the same prior, exactly)
        if not isinstance(names, list) or not names or names != list(FEATURES[:len(names)]) \
                or d.get("phases") != list(PHASES):
            raise ModelError("the move prior was fitted to other features or phases than this version computes")
        models, meta = by_player_count(d, "the move prior", null_meta=True)
        rows = {}
        for n, m in models.items():
            if not isinstance(m, dict) or set(m) != set(PHASES):
                raise ModelError(f"move prior for {n} players: needs a row (or null) for each of "
                                 f"{', '.join(PHASES)}, not {short_repr(m)}")
            rows[n] = [_phase(m[ph], version, len(names), f"move prior for {n} players, {ph}") for ph in PHASES]
        return cls(rows=rows, meta=meta)

    @classmethod
    def load(cls, path=None) -> "PriorModel":
        p = Path(path) if path is not None else DEFAULT_PATH
        return cls.from_dict(load_json(p, "move prior", ModelError, max_bytes=MAX_MODEL_BYTES))


def _phase(value, version: int, features: int, what: str) -> PhasePrior | None:
    """One phase's entry of a file fitted to the first `features` FEATURES: null, a list of that many weights
    (the logit) or, from version 2 on, an object {"w": [features], "W": [[features] x H], "b": [H], "v": [H]}
    with 1 <= H <= MAX_HIDDEN; the features added since read with weight 0; else ModelError."""
    if value is None:
        return None
    if not isinstance(value, dict):
        return PhasePrior(_feature_weights(value, features, what))
    if version < 2 or set(value) != {"w", "W", "b", "v"}:
        raise ModelError(f"{what}: a hidden layer needs a version 2 file and exactly the keys w, W, b, v, "
                         f"not {short_repr(value)}")
    units = value["W"]
    if not isinstance(units, list) or not 1 <= len(units) <= MAX_HIDDEN:
        raise ModelError(f"{what}: W needs 1 to {MAX_HIDDEN} hidden units (a list of weight lists), "
                         f"not {short_repr(units)}")
    h = len(units)
    return PhasePrior(_feature_weights(value["w"], features, f"{what}: w"),
                      np.array([_feature_weights(u, features, f"{what}: W") for u in units]),
                      _weights(value["b"], h, f"{what}: b"), _weights(value["v"], h, f"{what}: v"))


def _feature_weights(value, features: int, what: str) -> np.ndarray:
    """A file's `features` weights, padded with zeros to N_FEATURES; else ModelError."""
    return np.concatenate([_weights(value, features, what), np.zeros(N_FEATURES - features)])


_loaded: dict[Path, PriorModel] = {}


def prior_from(path=None) -> PriorModel:
    """The prior in a weights file (None: the shipped one), read once per file; every problem with the
    file is one ModelError naming the path as given."""
    return read_once(path, DEFAULT_PATH, "move prior", _loaded, PriorModel.load)
