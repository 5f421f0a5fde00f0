"""Fitting the learned value model to positions and outcomes (data.py), per player count.

Win chances: a conditional logit -- the players' utilities w . z_p (features.terms) turned into chances by
a softmax and fitted by maximum likelihood of the actual winner, with an L2 penalty whose strength is
chosen by cross-validation over games (every position of a game in the same fold: positions of one game
are not independent). Expected final score: ridge regression of each player's final score on the same
terms plus an intercept and the progress. Both on standardised terms (weights converted back after).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.optimize import minimize

from ...learned.features import FEATURES, N_TERMS, terms
from ...learned.model import ValueModel

PENALTIES = (1e-4, 1e-3, 1e-2)     #: L2 strengths tried (per position, on standardised terms)
FOLDS = 5


@dataclass(frozen=True)
class Positions:
    """One player count's positions as arrays: terms z (positions, players, N_TERMS), progress t
    (positions,), the winner's seat, final scores (positions, players), the game of each position."""
    z: np.ndarray
    t: np.ndarray
    winner: np.ndarray
    final: np.ndarray
    game: np.ndarray

    def subset(self, mask) -> "Positions":
        return Positions(self.z[mask], self.t[mask], self.winner[mask], self.final[mask], self.game[mask])


def feature_arrays(frame: pd.DataFrame) -> tuple[pd.DataFrame, np.ndarray, np.ndarray]:
    """The rows of one player count (data.py's long form: a row per player per position), sorted by
    position and player, with their features (positions, players, N_FEATURES) and progress (positions,)."""
    n = int(frame["players"].iloc[0])
    if (frame["players"] != n).any():
        raise ValueError("the positions must be the rows of one player count")
    df = frame.sort_values(["game", "turn", "player"], kind="stable")
    k = len(df) // n
    # data written before a feature was added lacks its column: the feature reads 0 there, so its
    # weight stays 0 (the model then evaluates as the earlier one did)
    f = df.reindex(columns=[f"f_{name}" for name in FEATURES], fill_value=0.0).to_numpy(float)
    f = f.reshape(k, n, len(FEATURES))
    return df, f, df["progress"].to_numpy(float).reshape(k, n)[:, 0]


def positions(frame: pd.DataFrame) -> Positions:
    """The rows of one player count as arrays (see feature_arrays)."""
    df, f, t = feature_arrays(frame)
    k, n = f.shape[:2]
    won = df["won"].to_numpy(int).reshape(k, n)
    return Positions(terms(f, t), t, won.argmax(axis=1), df["final_score"].to_numpy(float).reshape(k, n),
                     df["game"].to_numpy(int).reshape(k, n)[:, 0])


def _logit_loss(w, z, winner, penalty):
    u = z @ w
    u = u - u.max(axis=1, keepdims=True)
    e = np.exp(u)
    p = e / e.sum(axis=1, keepdims=True)
    k = len(winner)
    nll = -(u[np.arange(k), winner] - np.log(e.sum(axis=1))).sum() / k
    g = p.copy()
    g[np.arange(k), winner] -= 1.0
    grad = np.einsum("kp,kpj->j", g, z) / k
    return nll + penalty * w @ w, grad + 2 * penalty * w


def _scale(z: np.ndarray) -> np.ndarray:
    s = z.reshape(-1, z.shape[-1]).std(axis=0)
    return np.where(s > 1e-12, s, 1.0)


def fit_win(data: Positions, penalty: float) -> np.ndarray:
    """Win weights (N_TERMS,) by penalised maximum likelihood."""
    s = _scale(data.z)
    zs = data.z / s
    res = minimize(_logit_loss, np.zeros(N_TERMS), args=(zs, data.winner, penalty), jac=True,
                   method="L-BFGS-B", options={"maxiter": 2000})
    return res.x / s


def fit_score(data: Positions, penalty: float = 1e-3) -> np.ndarray:
    """Score weights (N_TERMS + 2,): [intercept, progress, terms...] by ridge regression."""
    k, n, _ = data.z.shape
    x = np.concatenate([np.ones((k, n, 1)), np.repeat(data.t[:, None, None], n, axis=1), data.z], axis=2)
    x = x.reshape(k * n, -1)
    y = data.final.reshape(-1)
    s = _scale(x)
    s[0] = 1.0
    xs = x / s
    a = xs.T @ xs / len(y) + penalty * np.diag([0.0] + [1.0] * (xs.shape[1] - 1))
    return np.linalg.solve(a, xs.T @ y / len(y)) / s


def predict_win(w: np.ndarray, z: np.ndarray) -> np.ndarray:
    u = z @ w
    e = np.exp(u - u.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def log_loss(p: np.ndarray, winner: np.ndarray) -> float:
    return float(-np.log(np.clip(p[np.arange(len(winner)), winner], 1e-12, 1.0)).mean())


def folds_of(games: np.ndarray, folds: int = FOLDS) -> np.ndarray:
    """A fold for each position: its game's number modulo `folds` after a fixed shuffle of the games."""
    ids = np.unique(games)
    order = np.random.default_rng(0).permutation(len(ids))
    fold_of = dict(zip(ids[order], np.arange(len(ids)) % folds))
    return np.array([fold_of[g] for g in games])


def best_penalty(data, penalties, fold: np.ndarray, fit, loss) -> tuple[float, dict]:
    """The penalty of lowest held-out loss over the folds (`fold`: each row's), and each penalty's: the folds'
    mean losses weighted by their sizes. fit(train, penalty) -> a model; loss(model, test) -> its mean loss;
    data.take(mask) and len(data) select and count rows (the learned prior's and the sibling value's fits)."""
    scores = {}
    for penalty in penalties:
        total = 0.0
        for k in np.unique(fold):
            train, test = data.take(fold != k), data.take(fold == k)
            if len(test) == 0 or len(train) == 0:
                continue
            total += loss(fit(train, penalty), test) * len(test)
        scores[penalty] = total / len(data)
    return min(scores, key=scores.__getitem__), scores


def cross_validate(data: Positions, penalties=PENALTIES, folds: int = FOLDS) -> pd.DataFrame:
    """Mean held-out log loss (of the winner) and score RMSE over `folds` folds by game, per penalty."""
    fold = folds_of(data.game, folds)
    rows = []
    for pen in penalties:
        ll, rmse = [], []
        for k in range(folds):
            train, test = data.subset(fold != k), data.subset(fold == k)
            ll.append(log_loss(predict_win(fit_win(train, pen), test.z), test.winner))
            sw = fit_score(train, pen)
            pred = sw[0] + sw[1] * test.t[:, None] + test.z @ sw[2:]
            rmse.append(float(np.sqrt(((pred - test.final) ** 2).mean())))
        rows.append({"penalty": pen, "log_loss": float(np.mean(ll)), "log_loss_se": float(np.std(ll) / np.sqrt(folds)),
                     "score_rmse": float(np.mean(rmse))})
    return pd.DataFrame(rows)


def fit_model(frame: pd.DataFrame, penalties=PENALTIES, folds: int = FOLDS, meta: dict | None = None
              ) -> tuple[ValueModel, pd.DataFrame]:
    """A ValueModel for every player count in `frame`, each at its cross-validated best penalty, and the
    cross-validation table (one row per player count and penalty, `chosen` marking the one used)."""
    win, score, tables = {}, {}, []
    for n, part in frame.groupby("players"):
        data = positions(part)
        cv = cross_validate(data, penalties, folds)
        best = cv.loc[cv["log_loss"].idxmin(), "penalty"]
        cv.insert(0, "players", int(n))
        cv["chosen"] = cv["penalty"] == best
        tables.append(cv)
        win[int(n)] = fit_win(data, best)
        score[int(n)] = fit_score(data, best)
    return ValueModel(win=win, score=score, meta=dict(meta or {})), pd.concat(tables, ignore_index=True)
