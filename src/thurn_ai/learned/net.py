"""The network value (mcts(eval=net)): numpy inference and the weights file.

For a position with progress t, each player p is read as
    x_p = (the learned evaluation's terms z_p (features.terms), t, houses_p, route_p)
where houses_p and route_p are one 0/1 input per city of the board: p's houses, and the cities of p's route
in progress. One network per player count, the same for every player, gives
    hidden      h_p = tanh(W x_p + b)
    win logit   a . h_p + c . x_p          (win chances: the softmax over the players)
    score       s0 + s . h_p + d . x_p     (the expected final score)
and the search's rewards follow from them as from the linear model's (model.py). With a and s zero the network
is a linear model; with the city weights zero too, exactly the learned evaluation over the same weights
(the fit starts there). The city inputs are those of one board (`board` in the file): on another board
they are left out and the network reads its dense inputs only.

The compiled twin (cext/thurn_ai/_policy_net.pxi, evaluate_net) computes the same numbers inside the search
with the weights in C arrays; a test holds the two to the same numbers.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from .. import _policy
from ..fileio import atomic_write_text, load_json, short_repr
from .features import FEATURES, N_TERMS
from .model import MAX_MODEL_BYTES, ModelError, _weights, by_player_count, read_once

#: the network shipped with the package, read by mcts(eval=net) without nmodel= (refit:
#: python experiments/value_net.py, then copy results/value_net/value_net.json here)
DEFAULT_PATH = Path(__file__).with_name("value_net.json")
FORMAT = "thurn-ai value network"
VERSION = 1
#: the dense inputs per player: the learned evaluation's terms, then the progress
DENSE = N_TERMS + 1
MAX_HIDDEN = _policy.MAX_NET_HIDDEN
MAX_CITIES = _policy.MAX_CITIES
if DENSE != _policy.NET_DENSE_INPUTS:       # pragma: no cover - the compiled core and features.py disagree
    raise ImportError("the compiled network's dense inputs do not match thurn_ai.learned.features")
REWARDS = ("win", "margin", "mixed")


@dataclass(frozen=True)
class NetLayer:
    """One player count's network: W (hidden, inputs), b, win_h, score_h (hidden,), win_x, score_x (inputs,),
    score0, and the board's city count its city inputs cover (0: none; inputs = DENSE + 2 x cities)."""
    W: np.ndarray
    b: np.ndarray
    win_h: np.ndarray
    win_x: np.ndarray
    score_h: np.ndarray
    score_x: np.ndarray
    score0: float
    cities: int

    @property
    def hidden(self) -> int:
        return len(self.b)

    def without_cities(self) -> "NetLayer":
        """The network over its dense inputs only (the city inputs read as 0)."""
        return replace(self, W=self.W[:, :DENSE], win_x=self.win_x[:DENSE], score_x=self.score_x[:DENSE],
                       cities=0)

    def outputs(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(win logits, expected scores) for inputs x (..., inputs)."""
        h = np.tanh(x @ self.W.T + self.b)
        return h @ self.win_h + x @ self.win_x, self.score0 + h @ self.score_h + x @ self.score_x

    def to_dict(self) -> dict:
        return {"W": self.W.tolist(), "b": self.b.tolist(), "win_h": self.win_h.tolist(),
                "win_x": self.win_x.tolist(), "score_h": self.score_h.tolist(), "score_x": self.score_x.tolist(),
                "score0": float(self.score0)}


def city_bits(masks, cities: int) -> np.ndarray:
    """0/1 inputs (..., cities) from city bit masks (...)."""
    m = np.asarray(masks, dtype=np.int64)
    return ((m[..., None] >> np.arange(cities)) & 1).astype(float)


def net_inputs(dense, houses, route, cities: int) -> np.ndarray:
    """The network's inputs (..., players, DENSE + 2 x cities) from dense inputs (..., players, DENSE) and
    the players' house and route city masks (..., players)."""
    d = np.asarray(dense, dtype=float)
    if not cities:
        return d
    return np.concatenate([d, city_bits(houses, cities), city_bits(route, cities)], axis=-1)


def position_inputs(state) -> tuple[float, np.ndarray, np.ndarray, np.ndarray]:
    """(progress, dense inputs players x DENSE, houses masks, route masks) of a position (compiled)."""
    t, rows, houses, route = _policy.net_inputs_of(state)
    return t, np.asarray(rows, dtype=float), np.asarray(houses, dtype=np.int64), np.asarray(route, dtype=np.int64)


def search_rewards(win: np.ndarray, score: np.ndarray, reward: str = "mixed", scale: float = 8.0) -> np.ndarray:
    """The rewards the search backs up from win chances and expected scores (..., players): the numpy twin of
    the compiled learned_rewards (win, 0.5 + 0.5 tanh(margin over the best other / scale), or their mean)."""
    n = score.shape[-1]
    other = np.stack([np.delete(score, p, axis=-1).max(axis=-1) for p in range(n)], axis=-1)
    margin = 0.5 + 0.5 * np.tanh((score - other) / scale)
    return {"win": win, "margin": margin, "mixed": 0.5 * margin + 0.5 * win}[reward]


@dataclass(frozen=True)
class ValueNet:
    layers: dict                    # players -> NetLayer
    board: str | None = None        # the board whose cities the city inputs are (None: no city inputs)
    meta: dict = field(default_factory=dict)

    def players(self) -> tuple[int, ...]:
        return tuple(sorted(self.layers))

    def layer_for(self, players: int, board: str) -> NetLayer:
        """The network for a player count on a board (its city inputs left out on another board)."""
        if players not in self.layers:
            raise ModelError(f"the value network has no weights for {players} players "
                             f"(it has {', '.join(map(str, self.players()))})")
        layer = self.layers[players]
        return layer if board == self.board else layer.without_cities()

    def predict(self, state, reward: str = "mixed", scale: float = 8.0
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(win chances, expected final scores, rewards) of every player in a position (complete state)."""
        layer = self.layer_for(state.n_players, state.board.name)
        _, dense, houses, route = position_inputs(state)
        logit, score = layer.outputs(net_inputs(dense, houses, route, layer.cities))
        u = np.exp(logit - logit.max(axis=-1, keepdims=True))
        win = u / u.sum(axis=-1, keepdims=True)
        return win, score, search_rewards(win, score, reward, scale)

    # ---- file

    def to_dict(self) -> dict:
        cities = {layer.cities for layer in self.layers.values()}
        return {"format": FORMAT, "version": VERSION, "features": list(FEATURES), "board": self.board,
                "cities": max(cities) if cities else 0,
                "models": {str(n): self.layers[n].to_dict() for n in self.players()}, "meta": self.meta}

    def save(self, path) -> None:
        atomic_write_text(Path(path), json.dumps(self.to_dict()) + "\n", what="value network file")

    @classmethod
    def from_dict(cls, d) -> "ValueNet":
        """The network in a weights file's data, checked as data: this format and version, the features this
        version computes, a board name with 1 to MAX_CITIES cities (or null and 0), and per player count
        1 to MAX_HIDDEN hidden units with every list of the right length, each number finite and at most
        model.MAX_WEIGHT in size. One ModelError for anything else."""
        if not isinstance(d, dict) or d.get("format") != FORMAT:
            raise ModelError(f"not a thurn-ai value network (its format is not {FORMAT!r})")
        if d.get("version") != VERSION or isinstance(d.get("version"), bool):
            raise ModelError(f"the value network's version is {short_repr(d.get('version'))}; this thurn-ai "
                             f"reads version {VERSION}")
        if d.get("features") != list(FEATURES):
            raise ModelError("the value network was fitted to other features than this version computes")
        board, cities = d.get("board"), d.get("cities")
        if board is None and cities == 0:
            pass
        elif not (isinstance(board, str) and board and isinstance(cities, int) and not isinstance(cities, bool)
                  and 1 <= cities <= MAX_CITIES):
            raise ModelError(f"the value network's city inputs need a board name and 1 to {MAX_CITIES} cities "
                             f"(or null and 0), not {short_repr(board)} and {short_repr(cities)}")
        models, meta = by_player_count(d, "the value network")
        layers = {n: _layer(m, cities, f"value network for {n} players") for n, m in models.items()}
        return cls(layers=layers, board=board, meta=meta)

    @classmethod
    def load(cls, path=None) -> "ValueNet":
        p = Path(path) if path is not None else DEFAULT_PATH
        return cls.from_dict(load_json(p, "value network", ModelError, max_bytes=MAX_MODEL_BYTES))


LAYER_KEYS = {"W", "b", "win_h", "win_x", "score_h", "score_x", "score0"}


def _layer(m, cities: int, what: str) -> NetLayer:
    """One player count's layer from its file data (ModelError naming `what` if malformed)."""
    if not isinstance(m, dict) or set(m) != LAYER_KEYS:
        raise ModelError(f"{what}: malformed weights (an object with {', '.join(sorted(LAYER_KEYS))} and "
                         f"nothing else is needed)")
    units = m["W"]
    if not isinstance(units, list) or not 1 <= len(units) <= MAX_HIDDEN:
        raise ModelError(f"{what}: W needs 1 to {MAX_HIDDEN} hidden units (rows), not {short_repr(units)}")
    width, h = DENSE + 2 * cities, len(units)
    W = np.stack([_weights(row, width, f"{what}: W row") for row in units])
    return NetLayer(W=W, b=_weights(m["b"], h, f"{what}: b"), win_h=_weights(m["win_h"], h, f"{what}: win_h"),
                    win_x=_weights(m["win_x"], width, f"{what}: win_x"),
                    score_h=_weights(m["score_h"], h, f"{what}: score_h"),
                    score_x=_weights(m["score_x"], width, f"{what}: score_x"),
                    score0=float(_weights([m["score0"]], 1, f"{what}: score0")[0]), cities=cities)


_loaded: dict[Path, ValueNet] = {}


def net_from(path=None) -> ValueNet:
    """The network in a weights file (None: the shipped one), read once per file; every problem with the
    file is one ModelError naming the path as given."""
    return read_once(path, DEFAULT_PATH, "value network", _loaded, ValueNet.load)
