"""A network value that ranks siblings: the value network (thurn_ai/learned/net.py) fitted to the teacher's
per-move values, as value_rank.py fits the linear evaluation.

- **Data** (`net_rows`): value_rank's decisions (the teacher's sampled decisions with at least two moves of
  MIN_VISITS visits, each move applied in DETERMINIZATIONS draws of what the mover cannot see), reading after
  each move the evaluation's features and each player's house and route cities (the network's inputs).
- **Loss**: value_rank's, the network's reward in place of the linear one: the listwise cross-entropy between
  the softmax of the teacher's values of the kept moves (the search value of well-visited children of a
  10,000-iteration search) and the softmax of the network's reward for the mover after each move, plus
  OUTCOME x the log loss of the game's winner at the decision's position (the auxiliary target), plus
  penalty x |sigma (theta - theta0)|^2 with sigma each input's standard deviation (1 for the hidden
  layer's biases and output weights), theta0 the start's linear part and zero hidden weights.
- **Start**: the linear part is a linear evaluation's (the route-tiles refit, results/value_route_tiles/),
  the city weights and hidden output weights 0 and the hidden weights small seeded random values: the fit
  starts at that evaluation, exactly, and a large penalty keeps it there.
- Penalty by cross-validation over games (learned.fit's folds and best_penalty), L-BFGS-B with analytic
  gradients, as prior_mlp.py fits the move prior's MLP. Held-out games (teacher.held_out) are never fitted.
"""
from __future__ import annotations

from dataclasses import replace

import numpy as np
from scipy.optimize import minimize

from ...game.rules import Rules
from ...learned.features import N_FEATURES, N_TERMS, position_features
from ...learned.model import ValueModel
from ...learned.net import DENSE, NetLayer, ValueNet, city_bits, position_inputs
from ..learned.fit import best_penalty, folds_of
from . import fit as F
from . import value_rank as V

HIDDEN = 16              #: hidden tanh units
PENALTIES = (1e-2, 1e-1, 1.0)
INIT_W = 0.5             #: initial W ~ normal(0, INIT_W / sqrt(inputs)) on standardised inputs
MAXITER = 200
FTOL = 1e-7
SEED = 0
BOARD = "south"          #: the board of the teacher data (its city inputs)


def net_inputs_of(state) -> tuple[float, np.ndarray]:
    """(progress, players x (N_FEATURES + 2)): the evaluation's features, then each player's house and route
    city masks (exact in a float: at most 32 bits) -- what decision_rows keeps of a position for the network."""
    t, f = position_features(state)
    _, _, houses, route = position_inputs(state)
    return t, np.column_stack([f, houses, route]).astype(float)


def net_rows(folders, players: int, limit_games: int | None = None) -> list[dict]:
    """value_rank.load_rows with the network's inputs (net_inputs_of)."""
    return V.load_rows(folders, players, V.MIN_VISITS, V.DETERMINIZATIONS, limit_games, inputs=net_inputs_of)


def linear_rows(rows: list[dict]) -> list[dict]:
    """The rows with the evaluation's features only (what value_rank.stack reads)."""
    return [{**r, "f": r["f"][..., :N_FEATURES], "root_f": r["root_f"][..., :N_FEATURES]} for r in rows]


def siblings(players: int, rows: list[dict], cities: int) -> tuple[V.Siblings, V.Siblings]:
    """(the linear evaluation's Siblings, the network's) of the same decisions and moves: the network's z and
    root_z hold its inputs (..., players, DENSE + 2 x cities)."""
    d = V.stack(players, linear_rows(rows))
    masks, root_masks = [], []
    for r in rows:
        kept = np.asarray(r["visits"]) >= V.MIN_VISITS
        if kept.sum() >= 2:
            masks.append(r["f"][kept][..., N_FEATURES:])
            root_masks.append(r["root_f"][:, N_FEATURES:])
    if not masks:
        return d, d
    m, rm = np.concatenate(masks).astype(np.int64), np.stack(root_masks).astype(np.int64)
    x = _with_cities(d.z, d.t, m, cities)
    root_x = _with_cities(d.root_z, d.root_t, rm, cities)
    return d, replace(d, z=x, root_z=root_x)


def _with_cities(z: np.ndarray, t: np.ndarray, masks: np.ndarray, cities: int) -> np.ndarray:
    """The network's inputs from terms z (..., players, N_TERMS), progress t (...) and masks (..., players, 2)."""
    tt = np.broadcast_to(np.asarray(t, float)[..., None, None], z.shape[:-1] + (1,))
    return np.concatenate([z, tt, city_bits(masks[..., 0], cities), city_bits(masks[..., 1], cities)], axis=-1)


# ---- parameters

def start_layer(base: ValueModel, players: int, cities: int, hidden: int = HIDDEN, seed: int = SEED) -> NetLayer:
    """The network that is the linear model `base` exactly (hidden output weights 0), hidden weights random."""
    w, s = base.weights_for(players)
    width = DENSE + 2 * cities
    win_x, score_x = np.zeros(width), np.zeros(width)
    win_x[:N_TERMS] = w
    score_x[:N_TERMS] = s[2:]
    score_x[N_TERMS] = s[1]              # the score's progress weight: the progress input's
    rng = np.random.default_rng(seed)
    return NetLayer(W=rng.normal(0, INIT_W / np.sqrt(width), (hidden, width)), b=np.zeros(hidden),
                    win_h=np.zeros(hidden), win_x=win_x, score_h=np.zeros(hidden), score_x=score_x,
                    score0=float(s[0]), cities=cities)


def start_net(base: ValueModel, cities: int, hidden: int = HIDDEN, players=(2, 3, 4), meta: dict | None = None
              ) -> ValueNet:
    """The network every fit starts from, for each player count: the linear model `base` exactly."""
    return ValueNet(layers={n: start_layer(base, n, cities, hidden) for n in players},
                    board=BOARD if cities else None, meta=dict(meta or {}))


def pack(layer: NetLayer) -> np.ndarray:
    return np.concatenate([layer.W.ravel(), layer.b, layer.win_h, layer.win_x, layer.score_h, layer.score_x])


def unpack(theta: np.ndarray, like: NetLayer) -> NetLayer:
    h, i = like.W.shape
    parts = np.split(theta, np.cumsum([h * i, h, h, i, h]))
    return replace(like, W=parts[0].reshape(h, i), b=parts[1], win_h=parts[2], win_x=parts[3], score_h=parts[4],
                   score_x=parts[5])


def input_scale(d: V.Siblings, like: NetLayer) -> np.ndarray:
    """sigma for every parameter: an input's standard deviation for the weights that multiply it (W's columns
    scaled by it, the linear parts), 1 for the hidden biases and output weights."""
    sd = d.z.reshape(-1, d.z.shape[-1]).std(axis=0)
    sd = np.where(sd > 1e-12, sd, 1.0)
    h = like.hidden
    return np.concatenate([np.tile(sd, h), np.ones(2 * h), sd, np.ones(h), sd])


# ---- the loss


def _forward(layer: NetLayer, x: np.ndarray):
    h = np.tanh(x @ layer.W.T + layer.b)
    logit, score = h @ layer.win_h + x @ layer.win_x, h @ layer.score_h + x @ layer.score_x
    u = np.exp(logit - logit.max(axis=-1, keepdims=True))
    return h, u / u.sum(axis=-1, keepdims=True), score


def _backward(layer: NetLayer, x: np.ndarray, h: np.ndarray, g_logit: np.ndarray, g_score: np.ndarray) -> np.ndarray:
    """The packed gradient from the loss's gradients in the win logits and scores (..., players)."""
    ii = "".join("abcd"[: x.ndim - 1])
    dpre = (g_logit[..., None] * layer.win_h + g_score[..., None] * layer.score_h) * (1 - h ** 2)
    return np.concatenate([np.einsum(f"{ii}h,{ii}i->hi", dpre, x).ravel(), dpre.reshape(-1, layer.hidden).sum(0),
                           np.einsum(f"{ii},{ii}h->h", g_logit, h), np.einsum(f"{ii},{ii}i->i", g_logit, x),
                           np.einsum(f"{ii},{ii}h->h", g_score, h), np.einsum(f"{ii},{ii}i->i", g_score, x)])


def mover_rewards(layer: NetLayer, d: V.Siblings) -> np.ndarray:
    """The network's reward for the mover after each move (moves,), the mean over the draws."""
    h, win, score = _forward(layer, d.z)
    return _reward_parts(win, score, d.mover)[0].mean(axis=1)


def _reward_parts(win, score, mover):
    idx = np.broadcast_to(mover[:, None, None], win.shape[:2] + (1,))
    own = np.take_along_axis(score, idx, axis=-1)[..., 0]
    others = score.copy()
    np.put_along_axis(others, idx, -np.inf, axis=-1)
    th = np.tanh((own - others.max(axis=-1)) / V.SCALE)
    win_m = np.take_along_axis(win, idx, axis=-1)[..., 0]
    return 0.5 * win_m + 0.5 * (0.5 + 0.5 * th), win_m, th, others.argmax(axis=-1)


def loss_and_grad(theta, like: NetLayer, d: V.Siblings, center, sigma, penalty: float, outcome: float = V.OUTCOME):
    """value_rank.loss_and_grad for the network: ranking cross-entropy + outcome x winner log loss + penalty."""
    layer = unpack(theta, like)
    n, k, players = max(len(d), 1), d.z.shape[1], d.z.shape[2]
    h, win, score = _forward(layer, d.z)
    r_k, win_m, th, best = _reward_parts(win, score, d.mover)
    p = F.segment_softmax(r_k.mean(axis=1) / V.Q_TEMP, d.starts)
    rank = F.xent(p, d.target, len(d))
    gk = ((p - d.target) / (V.Q_TEMP * n * k))[:, None]              # dL/dr per move and draw
    own = np.eye(players)[d.mover][:, None, :]                        # (moves, 1, players)
    g_logit = (gk * 0.5 * win_m)[..., None] * (own - win)
    g_score = (gk * 0.25 * (1 - th ** 2) / V.SCALE)[..., None] * (own - np.eye(players)[best])
    grad = _backward(layer, d.z, h, g_logit, g_score)
    rh, pw, _ = _forward(layer, d.root_z)
    rows = np.arange(len(d))
    nll = -np.log(np.maximum(pw[rows, d.winner], 1e-300)).sum() / n
    q = pw.copy()
    q[rows, d.winner] -= 1.0
    grad = grad + _backward(layer, d.root_z, rh, outcome * q / n, np.zeros_like(q))
    diff = sigma * (theta - center)
    return float(rank + outcome * nll + penalty * diff @ diff), grad + 2 * penalty * sigma * diff


def center_of(start: NetLayer) -> np.ndarray:
    """The penalty's centre: the start's linear part, zero hidden weights, biases and output weights."""
    return pack(replace(start, W=np.zeros_like(start.W), b=np.zeros_like(start.b)))


def fit_layer(d: V.Siblings, start: NetLayer, penalty: float, sigma=None, maxiter: int = MAXITER) -> NetLayer:
    sigma = input_scale(d, start) if sigma is None else sigma
    res = minimize(loss_and_grad, pack(start), args=(start, d, center_of(start), sigma, penalty), jac=True,
                   method="L-BFGS-B", options={"maxiter": maxiter, "ftol": FTOL})
    return unpack(res.x, start)


def fit_net(train: dict, base: ValueModel, cities: int, penalties=PENALTIES, folds: int = V.FOLDS,
            hidden: int = HIDDEN, maxiter: int = MAXITER, meta: dict | None = None) -> tuple[ValueNet, list]:
    """The network per player count ({players: the network's Siblings of training decisions}) at the penalty of
    lowest cross-validated loss (without its penalty term; folds by game), and the cross-validation rows."""
    layers: dict[int, NetLayer] = {}
    cv: list[dict] = []
    for n, d in sorted(train.items()):
        layers[n], pen, scores = fit_count(d, start_layer(base, n, cities, hidden), penalties, folds, maxiter)
        cv.extend({"players": n, "decisions": len(d), "games": len(np.unique(d.game)), "penalty": p,
                   "cv_loss": s, "chosen": p == pen} for p, s in scores.items())
    return ValueNet(layers=layers, board=BOARD if cities else None, meta=dict(meta or {})), cv


def fit_count(d: V.Siblings, start: NetLayer, penalties, folds: int, maxiter: int
              ) -> tuple[NetLayer, float, dict]:
    """(the network fitted to d at the penalty of lowest cross-validated loss, that penalty, each one's loss); a
    single penalty is taken as given (no cross-validation: its loss NaN)."""
    sigma, center = input_scale(d, start), center_of(start)
    if len(penalties) == 1:
        return fit_layer(d, start, penalties[0], sigma, maxiter), penalties[0], {penalties[0]: float("nan")}
    pen, scores = best_penalty(d, penalties, folds_of(d.game, folds),
                               lambda tr, pen: fit_layer(tr, start, pen, sigma, maxiter),
                               lambda layer, te: loss_and_grad(pack(layer), start, te, center, sigma, 0.0)[0])
    return fit_layer(d, start, pen, sigma, maxiter), pen, scores


def per_decision(layer: NetLayer, d: V.Siblings):
    """value_rank.per_decision's table for the network (d: the network's Siblings)."""
    return V.rank_table(mover_rewards(layer, d), _forward(layer, d.root_z)[1], d)


def board_cities(board: str = BOARD) -> int:
    return Rules(players=2, board=board).load_board().n_cities
