"""The learned value model: numpy inference and the weights file shipped in the package.

For a position with progress t and features x_p of each player p (features.py), the terms
z_p = (x_p (1 - t), x_p t) give
    win chance of p       = softmax over players of  w_win . z_p
    expected final score  = s_0 + s_1 t + w_score . z_p
with one set of weights per player count. The compiled twin (cext/thurn_ai/_policy_learned.pxi,
evaluate_learned) computes the same numbers inside the search.
"""
from __future__ import annotations

import json
import math
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

import numpy as np

from ..errors import ThurnError
from ..fileio import atomic_write_text, load_json, path_text, short_repr
from ..game.rules import PLAYER_COUNTS, player_counts_text
from .features import FEATURES, N_TERMS, position_features, terms

#: the model shipped with the package (refit: python experiments/learned_value.py)
DEFAULT_PATH = Path(__file__).with_name("value_model.json")
#: the weights file's format version (to_dict writes it; from_dict reads no other)
VERSION = 1
#: the largest weight accepted, in size: the shipped weights are below 30, and the features are game
#: quantities of at most a few hundred, so a linear score of 24 terms stays far from overflowing (a
#: weight near 1e308 would make the compiled evaluation compute inf - inf, and the search run on NaN)
MAX_WEIGHT = 10_000.0
#: the largest weights file read: the shipped one is 4 kB (three player counts, 76 numbers each)
MAX_MODEL_BYTES = 2 ** 20


_T = TypeVar("_T")


class ModelError(ThurnError):
    """A value model file that cannot be used."""


@dataclass(frozen=True)
class ValueModel:
    win: dict            # players -> array (N_TERMS,)
    score: dict          # players -> array (N_TERMS + 2,)
    meta: dict = field(default_factory=dict)

    def players(self) -> tuple[int, ...]:
        return tuple(sorted(self.win))

    def weights_for(self, players: int) -> tuple[list, list]:
        """(win weights, score weights) for a player count, as the compiled search takes them."""
        if players not in self.win:
            raise ModelError(f"the value model has no weights for {players} players "
                             f"(it has {', '.join(map(str, self.players()))})")
        return list(map(float, self.win[players])), list(map(float, self.score[players]))

    def predict_features(self, progress, features) -> tuple[np.ndarray, np.ndarray]:
        """Win chances and expected final scores for features (..., players, N_FEATURES) and progress
        (...): two arrays (..., players)."""
        f = np.asarray(features, dtype=float)
        players = f.shape[-2]
        w, s = self.weights_for(players)
        z = terms(f, progress)
        u = z @ np.asarray(w)
        u = np.exp(u - u.max(axis=-1, keepdims=True))
        t = np.asarray(progress, dtype=float)[..., None]
        score = s[0] + s[1] * t + z @ np.asarray(s[2:])
        return u / u.sum(axis=-1, keepdims=True), score

    def predict(self, state) -> tuple[np.ndarray, np.ndarray]:
        """(win chances, expected final scores) of every player in a position (complete state)."""
        progress, f = position_features(state)
        return self.predict_features(progress, f)

    # ---- file

    def to_dict(self) -> dict:
        return {"format": "thurn-ai value model", "version": VERSION, "features": list(FEATURES),
                "models": {str(n): {"win": [float(v) for v in self.win[n]],
                                    "score": [float(v) for v in self.score[n]]} for n in self.players()},
                "meta": self.meta}

    def save(self, path) -> None:
        atomic_write_text(Path(path), json.dumps(self.to_dict(), indent=1) + "\n", what="value model file")

    @classmethod
    def from_dict(cls, d) -> "ValueModel":
        """The model in a weights file's data, checked as data: the format and version this code writes,
        the features it computes, for each player count (2-4) exactly N_TERMS win and N_TERMS + 2 score
        weights, each a JSON number (not a string or true) of at most MAX_WEIGHT in size -- so every
        number the evaluation computes stays finite (weights near 1e308 would overflow to NaN inside
        the search) -- and `meta` an object. One ModelError for anything else."""
        if not isinstance(d, dict) or d.get("format") != "thurn-ai value model":
            raise ModelError("not a thurn-ai value model (its format is not 'thurn-ai value model')")
        version = d.get("version")
        if version != VERSION or isinstance(version, bool):
            raise ModelError(f"the value model's version is {short_repr(version)}; this thurn-ai reads "
                             f"version {VERSION}")
        names = d.get("features")
        # a model fitted before features were added reads them with weight 0 (the same evaluation, exactly)
        if not isinstance(names, list) or not names or names != list(FEATURES[:len(names)]):
            raise ModelError("the value model was fitted to other features than this version computes")
        models = d.get("models")
        if not isinstance(models, dict):
            raise ModelError(f"the value model's 'models' must be an object of weights by player count, "
                             f"not {short_repr(models)}")
        if not models:
            raise ModelError("the value model holds no weights ('models' is empty)")
        meta = d.get("meta", {})
        if meta is not None and not isinstance(meta, dict):
            raise ModelError(f"the value model's 'meta' must be an object, not {short_repr(meta)}")
        win, score = {}, {}
        for key, m in models.items():
            if key not in {str(n) for n in PLAYER_COUNTS}:
                raise ModelError(f"the value model holds weights for {short_repr(key)} players; "
                                 f"a game has {player_counts_text()} players")
            n = int(key)
            if not isinstance(m, dict) or set(m) != {"win", "score"}:
                raise ModelError(f"value model for {n} players: malformed weights (an object with 'win' and "
                                 f"'score' and nothing else is needed), not {short_repr(m)}")
            fitted = 2 * len(names)
            win[n] = _padded(_weights(m["win"], fitted, f"value model for {n} players: win"), N_TERMS)
            score[n] = _padded(_weights(m["score"], fitted + 2, f"value model for {n} players: score"),
                                N_TERMS + 2)
        return cls(win=win, score=score, meta=dict(meta or {}))

    @classmethod
    def load(cls, path=None) -> "ValueModel":
        """The model in a file (default: the one shipped with the package); at most MAX_MODEL_BYTES."""
        p = Path(path) if path is not None else DEFAULT_PATH
        return cls.from_dict(load_json(p, "value model", ModelError, max_bytes=MAX_MODEL_BYTES))


def _padded(weights: np.ndarray, size: int) -> np.ndarray:
    """Weights fitted to the first features of FEATURES, to `size`: weight 0 for the features added since
    (their terms come last, in the same order)."""
    return np.concatenate([weights, np.zeros(size - len(weights))])


def _weights(value, size: int, what: str) -> np.ndarray:
    """`size` JSON numbers, each finite and at most MAX_WEIGHT in size, as a float array; else ModelError.
    `what` names them ("value model for 2 players: win": "... for 2 players: needs 24 win weights")."""
    head, _, key = what.rpartition(": ")
    needs = f"{head}: needs {size} {key} weights" if head else f"{what}: needs {size} weights"
    if not isinstance(value, list) or len(value) != size:
        raise ModelError(f"{needs} (a list of numbers), not {short_repr(value)}")
    for v in value:
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) \
                or abs(v) > MAX_WEIGHT:
            raise ModelError(f"{needs}, each a finite number of at most {MAX_WEIGHT:,.0f} in size, "
                             f"not {short_repr(v)}")
    return np.asarray(value, dtype=float)


_loaded: dict[Path, ValueModel] = {}


def default_model() -> ValueModel:
    """The shipped model, read once."""
    return model_from(None)


def model_from(path=None) -> ValueModel:
    """The model in a weights file (None: the shipped one), read once per file: a search builds a tree
    at every decision, and reading the file each time would cost more than the search. Every problem
    with the file (missing, a link loop, not a model) is one ModelError naming the path as given."""
    return read_once(path, DEFAULT_PATH, "value model", _loaded, ValueModel.load)


def by_player_count(d: dict, what: str, null_meta: bool = False) -> tuple[dict, dict]:
    """A weights file's 'models' ({players: that count's weights, as in the file}, keys checked) and its
    'meta' (an object; null too where `null_meta`), or one ModelError naming `what` (e.g. 'the move prior')."""
    models, meta = d.get("models"), d.get("meta", {})
    if not isinstance(models, dict) or not models:
        raise ModelError(f"{what}'s 'models' must be an object of weights by player count, not {short_repr(models)}")
    if not isinstance(meta, dict) and not (null_meta and meta is None):
        raise ModelError(f"{what}'s 'meta' must be an object, not {short_repr(meta)}")
    for key in models:
        if key not in {str(n) for n in PLAYER_COUNTS}:
            raise ModelError(f"{what} holds weights for {short_repr(key)} players; a game has "
                             f"{player_counts_text()} players")
    return {int(k): m for k, m in models.items()}, dict(meta or {})


def read_once(path, default: Path, what: str, cache: dict[Path, _T], load: Callable[[Path], _T]) -> _T:
    """load(the path) of a weights file named by `path` (None: `default`), once per file (cached in `cache` by
    the resolved path); a path that is no path is one ModelError naming `what` (weights_path)."""
    p, key = weights_path(path, default, what)
    if key not in cache:
        cache[key] = load(p)
    return cache[key]


def weights_path(path, default: Path, what: str) -> tuple[Path, Path]:
    """(the path to read, the key to cache it under) of a weights file named by `path` (None: `default`);
    a path that is no path or cannot be resolved (a symbolic link loop, a NUL) is one ModelError naming
    `what` ("value model") and the path as given."""
    if path is None:
        return default, default
    if not isinstance(path, (str, os.PathLike)):
        raise ModelError(f"a {what} is named by its path, not {short_repr(path)}")
    try:
        p = Path(path).expanduser()
        return p, p.resolve()
    except (OSError, RuntimeError, ValueError) as e:
        raise ModelError(f"cannot read {what} {path_text(path)}: {getattr(e, 'strerror', None) or e}") from None
