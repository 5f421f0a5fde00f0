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
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..errors import ThurnError
from ..fileio import atomic_write_text, load_json
from .features import FEATURES, N_TERMS, position_features, terms

#: the model shipped with the package (refit: python experiments/learned_value.py)
DEFAULT_PATH = Path(__file__).with_name("value_model.json")


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
        return {"format": "thurn-ai value model", "version": 1, "features": list(FEATURES),
                "models": {str(n): {"win": [float(v) for v in self.win[n]],
                                    "score": [float(v) for v in self.score[n]]} for n in self.players()},
                "meta": self.meta}

    def save(self, path) -> None:
        atomic_write_text(Path(path), json.dumps(self.to_dict(), indent=1) + "\n")

    @classmethod
    def from_dict(cls, d) -> "ValueModel":
        if not isinstance(d, dict) or d.get("format") != "thurn-ai value model":
            raise ModelError("not a thurn-ai value model")
        if d.get("features") != list(FEATURES):
            raise ModelError("the value model was fitted to other features than this version computes")
        win, score = {}, {}
        for key, m in (d.get("models") or {}).items():
            try:
                n = int(key)
                w, s = np.asarray(m["win"], dtype=float), np.asarray(m["score"], dtype=float)
            except (KeyError, TypeError, ValueError):
                raise ModelError(f"value model for {key!r} players: malformed weights") from None
            if w.shape != (N_TERMS,) or s.shape != (N_TERMS + 2,) or not (np.isfinite(w).all()
                                                                          and np.isfinite(s).all()):
                raise ModelError(f"value model for {n} players: needs {N_TERMS} win and {N_TERMS + 2} "
                                 "finite score weights")
            win[n], score[n] = w, s
        if not win:
            raise ModelError("the value model holds no weights")
        return cls(win=win, score=score, meta=dict(d.get("meta") or {}))

    @classmethod
    def load(cls, path=None) -> "ValueModel":
        """The model in a file (default: the one shipped with the package)."""
        p = Path(path) if path is not None else DEFAULT_PATH
        return cls.from_dict(load_json(p, "value model", ModelError))


_loaded: dict[Path, ValueModel] = {}


def default_model() -> ValueModel:
    """The shipped model, read once."""
    return model_from(None)


def model_from(path=None) -> ValueModel:
    """The model in a weights file (None: the shipped one), read once per file: a search builds a tree
    at every decision, and reading the file each time would cost more than the search."""
    p = Path(path).expanduser().resolve() if path is not None else DEFAULT_PATH
    if p not in _loaded:
        _loaded[p] = ValueModel.load(p)
    return _loaded[p]
