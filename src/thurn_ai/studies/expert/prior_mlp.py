"""Is the move prior's form the limit? A small MLP over the same features, fitted and measured offline.

A move's score is s(phi) = w . phi + v . tanh(W phi + b): the conditional logit of fit.py (the linear skip w)
plus H tanh units, so with v = 0 it is the logit. A decision's probabilities are the softmax of its moves'
scores; the loss is fit.py's (mean cross-entropy per decision to the same soft target) plus penalty x
(|w|^2 + |W|^2 + |v|^2), minimised by L-BFGS-B with analytic gradients. The linear skip starts at the logit's
fit at the same penalty and the hidden weights at small seeded random values, so a fit begins where the
logit ends. Hidden size and penalty are chosen by fit.py's cross-validation over games (its folds,
learned.fit.best_penalty). The comparison is offline (experiments/expert_prior_mlp.py, docs/expert.md);
fit_prior writes a prior the search can play (a PriorModel with hidden units: `mcts(policy=learned,
pmodel=results/expert/prior_mlp.json)`).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.optimize import minimize

from ...learned.prior import PHASES, PhasePrior, PriorModel
from ..learned.fit import best_penalty
from . import fit as F
from .fit import Decisions, segment_softmax

HIDDEN = (4, 16, 32)                  # hidden sizes tried
PENALTIES = F.PENALTIES               # L2 strengths tried: the logit's, so the two differ in form only
INIT_W = 1.0       # initial W ~ normal(0, INIT_W / sqrt(features)): units start in tanh's curved range (much
                   # smaller and a fit stays at the logit's saddle: seen on a synthetic interaction)
INIT_V = 0.1       # initial v ~ normal(0, INIT_V): the fit starts near the logit
MAXITER = 300
FTOL = 1e-6                           # L-BFGS-B's relative loss change to stop at (held-out loss within ~0.001 of
                                      # a fit to 2e-9, at a third of the time: checked on the largest group)


@dataclass(frozen=True)
class MLP:
    """A move scorer: w (features,), W (hidden, features), b (hidden,), v (hidden,)."""
    w: np.ndarray
    W: np.ndarray
    b: np.ndarray
    v: np.ndarray

    @property
    def hidden(self) -> int:
        return len(self.v)

    def pack(self) -> np.ndarray:
        return np.concatenate([self.w, self.W.ravel(), self.b, self.v])

    @classmethod
    def unpack(cls, theta: np.ndarray, n_features: int, hidden: int) -> "MLP":
        f, h = n_features, hidden
        return cls(theta[:f], theta[f:f + h * f].reshape(h, f), theta[f + h * f:f + h * f + h],
                   theta[f + h * f + h:])

    def phase(self) -> PhasePrior:
        """As the learned prior's phase (what a weights file holds and the search plays)."""
        return PhasePrior(self.w, self.W, self.b, self.v)

    def scores(self, features: np.ndarray) -> np.ndarray:
        return self.phase().scores(features)

    def probabilities(self, d: Decisions) -> np.ndarray:
        """Per move of d, its probability within its decision."""
        return segment_softmax(self.scores(d.features), d.starts)


def initial(w: np.ndarray, hidden: int, seed: int) -> MLP:
    """The linear skip w, hidden weights drawn from a seeded normal, biases 0."""
    rng = np.random.default_rng(seed)
    return MLP(np.asarray(w, float).copy(), rng.normal(0, INIT_W / np.sqrt(len(w)), (hidden, len(w))),
               np.zeros(hidden), rng.normal(0, INIT_V, hidden))


def loss_and_grad(theta: np.ndarray, d: Decisions, hidden: int, penalty: float) -> tuple[float, np.ndarray]:
    """Mean cross-entropy to the target per decision plus penalty x (|w|^2 + |W|^2 + |v|^2), and its gradient
    with respect to the packed parameters."""
    m = MLP.unpack(theta, d.features.shape[1], hidden)
    a = np.tanh(d.features @ m.W.T + m.b)                     # (moves, hidden)
    p = segment_softmax(d.features @ m.w + a @ m.v, d.starts)
    n = max(len(d), 1)
    loss = F.xent(p, d.target, len(d)) + penalty * (m.w @ m.w + (m.W ** 2).sum() + m.v @ m.v)
    g = (p - d.target) / n                                    # d loss / d score (a decision's targets sum to 1)
    dz = np.outer(g, m.v) * (1 - a ** 2)                      # d loss / d (W phi + b)
    grad = MLP(d.features.T @ g + 2 * penalty * m.w, dz.T @ d.features + 2 * penalty * m.W, dz.sum(axis=0),
               a.T @ g + 2 * penalty * m.v)
    return float(loss), grad.pack()


def fit_mlp(d: Decisions, hidden: int, penalty: float, seed: int = 0) -> MLP:
    """The MLP of lowest penalised loss on d, from the logit's fit at the same penalty (seeded hidden start)."""
    start = initial(F.fit_weights(d, penalty), hidden, seed)
    res = minimize(loss_and_grad, start.pack(), args=(d, hidden, penalty), jac=True, method="L-BFGS-B",
                   options={"maxiter": MAXITER, "ftol": FTOL})
    return MLP.unpack(res.x, d.features.shape[1], hidden)


def cross_entropy(m: MLP, d: Decisions) -> float:
    return loss_and_grad(m.pack(), d, m.hidden, 0.0)[0]


def choose(d: Decisions, hidden_sizes=HIDDEN, penalties=PENALTIES, seed: int = 0
           ) -> tuple[int, float, dict]:
    """(hidden size, penalty) of lowest cross-validated cross-entropy (fit.py's folds by game), and every
    pair's score."""
    folds = F.game_folds(d.game, seed)
    scores = {}
    for h in hidden_sizes:
        _, by_penalty = best_penalty(d, penalties, folds, lambda train, pen, h=h: fit_mlp(train, h, pen, seed),
                                     cross_entropy)
        scores.update({(h, pen): s for pen, s in by_penalty.items()})
    h, pen = min(scores, key=scores.__getitem__)
    return h, pen, scores


PLAY_HIDDEN = 4      # the playable prior's hidden units: as good as 32 offline (results/expert/prior_mlp.md)


def fit_prior(groups: dict[tuple[int, int], Decisions], hidden: int = PLAY_HIDDEN, penalties=PENALTIES,
              min_decisions: int = F.MIN_DECISIONS, meta: dict | None = None, seed: int = 0
              ) -> tuple[PriorModel, pd.DataFrame]:
    """The MLP prior with `hidden` units fitted to each (players, phase) group with enough decisions (fewer: no
    learned prior in that phase, as fit.fit_prior), its penalty chosen by the cross-validation over games;
    and a table of that cross-validation (one row per group and penalty)."""
    rows: dict[int, list] = {}
    cv = []
    for (players, phase), d in sorted(groups.items()):
        rows.setdefault(players, [None] * len(PHASES))
        if len(d) < min_decisions:
            continue
        _, penalty, scores = choose(d, (hidden,), penalties, seed)
        rows[players][phase] = fit_mlp(d, hidden, penalty, seed).phase()
        cv += [{"players": players, "phase": PHASES[phase], "decisions": len(d), "hidden": h, "penalty": pen,
                "cv_xent": x, "chosen": pen == penalty} for (h, pen), x in scores.items()]
    return PriorModel(rows=rows, meta=dict(meta or {})), pd.DataFrame(cv)


def per_decision(p: np.ndarray, d: Decisions) -> pd.DataFrame:
    """Per decision of d under move probabilities p: its game, the cross-entropy to the soft target, whether
    the favourite is the teacher's most-visited move (top1) and the teacher's visit share on it (share)."""
    rows = []
    for i in range(len(d)):
        a, b = d.starts[i], d.starts[i + 1]
        pick = int(np.argmax(p[a:b]))
        rows.append({"game": int(d.game[i]),
                     "xent": float(-(d.target[a:b] * np.log(np.maximum(p[a:b], 1e-300))).sum()),
                     "top1": float(pick == d.teacher_best[i]), "share": float(d.visits[a + pick])})
    return pd.DataFrame(rows, columns=["game", "xent", "top1", "share"])
