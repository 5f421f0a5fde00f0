"""A learned evaluation that ranks siblings: the value model refitted to the teacher's per-move values.

The shipped evaluation (thurn_ai/learned/) was fitted to game outcomes: it calibrates how good a position
is, but a search compares the positions after each of a node's moves, and outcome labels say little about
their order (docs/expert.md, generation 2). Here the same model (same features, same weights file) is
refitted so that, at the sampled decisions of the expert-iteration teacher data (teacher.py), the
evaluation of the position after each root move ranks the moves as the teacher's 10,000-iteration search
valued them.

- **Labels** (`sibling_labels`): the teacher's mean reward of each root move it visited at least MIN_VISITS
  times (a mean over fewer visits is mostly noise, and PUCT stops visiting a move once it looks bad, so a
  rarely visited move's mean is biased low); the target is the softmax of those values, (Q - Q_best) /
  Q_TEMP, the value part of the move prior's target (fit.soft_target).
- **Features**: the decision's position seen as the mover saw it (a determinization of what the mover
  cannot know, seeded by game, decision and draw), each move applied, and the evaluation's own features of
  the result (thurn_ai.learned.features.position_features, the compiled value_features the search calls at a
  leaf), over DETERMINIZATIONS draws; the evaluation of a move is the mean of its rewards over the draws.
- **The evaluation's reward** for the mover (`mover_reward`, the numpy twin of the compiled evaluate_learned
  with mcts's reward=mixed and scale): half the win chance, half 0.5 + 0.5 tanh(margin / scale) of the
  expected score over the best other player's.
- **Loss** per player count: the listwise cross-entropy between the target and softmax(reward / Q_TEMP) over
  the kept moves (so the evaluation's differences between siblings are fitted on the teacher's scale), plus
  OUTCOME x the log loss of the game's winner at the decision's position (keeps the level calibrated), plus
  an L2 penalty toward the shipped weights on standardised terms (a large penalty gives the shipped model
  back), chosen by cross-validation over games (a game's decisions stay in one fold). The score intercept
  and progress weight cancel in every margin and are kept from the shipped model.
- Held-out games (teacher.held_out) are never fitted; `measure` reports on them.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.optimize import minimize
from scipy.stats import kendalltau, spearmanr

from ...bots.search_options import SearchOptions
from ...learned.features import N_TERMS, position_features, terms
from ...learned.model import ValueModel
from ...play.match import derive_seed
from ..learned.fit import best_penalty, folds_of
from . import fit as F
from . import teacher as T

MIN_VISITS = 50          #: a move's mean reward is a label only at this many teacher visits or more
Q_TEMP = F.Q_TEMP        #: the target's temperature (the move prior's value softmax)
DETERMINIZATIONS = 2     #: draws of the hidden cards per decision; a move's reward is the mean over them
OUTCOME = 1.0            #: weight of the outcome log loss beside the ranking loss (each per decision)
PENALTIES = (1e-3, 1e-2, 1e-1, 1.0)
FOLDS = 5
SCALE = SearchOptions.scale     # mcts's margin scale and reward (the evaluation's reward is fitted as mcts uses it)
if SearchOptions.reward != "mixed":      # pragma: no cover - mover_reward implements reward=mixed only
    raise ImportError("value_rank fits mcts's reward=mixed; the search's default reward changed")


def sibling_labels(visits, values, min_visits: int = MIN_VISITS, temp: float = Q_TEMP
                   ) -> tuple[np.ndarray, np.ndarray]:
    """(kept, target) for one decision's moves: which moves the teacher visited at least min_visits times,
    and over those the softmax of its mean rewards, (Q - Q_best) / temp (an empty target if none is kept)."""
    visits = np.asarray(visits, dtype=float)
    values = np.asarray(values, dtype=float)
    kept = visits >= min_visits
    q = values[kept]
    e = np.exp((q - q.max()) / temp) if len(q) else q
    return kept, e / e.sum() if len(q) else e


@dataclass(frozen=True)
class Siblings:
    """One player count's decisions with at least two kept moves, stacked by move.

    z (moves, K, players, N_TERMS) and t (moves, K): the evaluation's terms and progress after each move, in
    each of K draws; mover (moves,); value, visits, target (moves,): the teacher's mean reward, visits and the
    softmax target; starts (decisions + 1,); per decision: game, root_z (decisions, players, N_TERMS), root_t,
    winner (the game's winner, to fit and measure the level)."""
    players: int
    z: np.ndarray
    t: np.ndarray
    mover: np.ndarray
    value: np.ndarray
    visits: np.ndarray
    target: np.ndarray
    starts: np.ndarray
    game: np.ndarray
    root_z: np.ndarray
    root_t: np.ndarray
    winner: np.ndarray

    def __len__(self) -> int:
        return len(self.game)

    @property
    def segment(self) -> np.ndarray:
        """The decision of each move."""
        return np.repeat(np.arange(len(self)), np.diff(self.starts))

    def take(self, keep) -> "Siblings":
        """The decisions where keep (per decision) is true."""
        idx = np.flatnonzero(keep)
        rows = np.concatenate([np.arange(self.starts[i], self.starts[i + 1]) for i in idx]) if len(idx) else \
            np.zeros(0, dtype=int)
        return Siblings(self.players, self.z[rows], self.t[rows], self.mover[rows], self.value[rows],
                        self.visits[rows], self.target[rows],
                        np.concatenate([[0], np.cumsum(np.diff(self.starts)[idx])]).astype(int),
                        self.game[idx], self.root_z[idx], self.root_t[idx], self.winner[idx])


def decision_rows(data: pd.DataFrame, records: dict, min_visits: int, draws: int = DETERMINIZATIONS,
                  inputs=position_features) -> list[dict]:
    """Per sampled decision of one player count with at least two moves of min_visits visits: those moves,
    their teacher visits and values, the evaluation's features after each in `draws` determinizations, and
    the decision's own position's features and the game's winner. `records`: {game: GameRecord}; `inputs`:
    what is read of a position, (progress, array players x width) (default: the evaluation's features)."""
    out = []
    for game, decision, d, rec, state in T.decisions_replayed(data, records):
        d = d[d["visits"] >= min_visits]
        if len(d) < 2:
            continue
        mover = state.current_player
        moves = d["move"].to_numpy(int)
        root_t, root_f = inputs(state)
        f = np.empty((len(moves), draws) + root_f.shape)
        t = np.empty((len(moves), draws))
        ok = np.ones(len(moves), dtype=bool)
        for j in range(draws):
            seen = state.determinize(mover, derive_seed("value-rank", rec.seed, decision, j))
            for i, m in enumerate(moves):
                if not seen.is_legal(int(m)):      # cannot happen for a move of the mover's information set
                    ok[i] = False
                    continue
                after = seen.clone()
                after.apply(int(m))
                t[i, j], f[i, j] = inputs(after)
        if ok.sum() < 2:
            continue
        out.append({"game": game, "decision": decision, "mover": mover, "moves": moves[ok],
                    "visits": d["visits"].to_numpy(float)[ok], "value": d["value"].to_numpy(float)[ok],
                    "f": f[ok], "t": t[ok], "root_f": root_f, "root_t": root_t, "winner": int(rec.winner)})
    return out


def stack(players: int, rows: list[dict], min_visits: int = MIN_VISITS) -> Siblings:
    """The decisions of `rows` (decision_rows) as Siblings, keeping moves of at least min_visits visits and
    decisions with two such moves or more."""
    parts = []
    for r in rows:
        kept, target = sibling_labels(r["visits"], r["value"], min_visits)
        if kept.sum() >= 2:
            parts.append((r, kept, target))
    k = rows[0]["f"].shape[1] if rows else DETERMINIZATIONS
    if not parts:
        e = np.zeros(0)
        return Siblings(players, np.zeros((0, k, players, N_TERMS)), np.zeros((0, k)), e.astype(int), e, e, e,
                        np.zeros(1, dtype=int), e.astype(int), np.zeros((0, players, N_TERMS)), e, e.astype(int))
    z = np.concatenate([terms(r["f"][kept], r["t"][kept]) for r, kept, _ in parts])
    return Siblings(
        players, z, np.concatenate([r["t"][kept] for r, kept, _ in parts]),
        np.concatenate([np.full(kept.sum(), r["mover"]) for r, kept, _ in parts]),
        np.concatenate([r["value"][kept] for r, kept, _ in parts]),
        np.concatenate([r["visits"][kept] for r, kept, _ in parts]),
        np.concatenate([target for _, _, target in parts]),
        np.concatenate([[0], np.cumsum([kept.sum() for _, kept, _ in parts])]).astype(int),
        np.array([r["game"] for r, _, _ in parts], dtype=int),
        np.stack([terms(r["root_f"], r["root_t"]) for r, _, _ in parts]),
        np.array([r["root_t"] for r, _, _ in parts]), np.array([r["winner"] for r, _, _ in parts], dtype=int))


# ---- the evaluation as the search uses it, and its gradient


def _win_chances(w: np.ndarray, z: np.ndarray) -> np.ndarray:
    u = z @ w
    e = np.exp(u - u.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def _reward_parts(theta: np.ndarray, z: np.ndarray, mover: np.ndarray):
    """For terms z (moves, K, players, N_TERMS) and the mover of each move: the mover's reward (moves, K), its
    win chances (moves, K, players), tanh of the margin (moves, K) and the terms of the best other player."""
    w, s = theta[:N_TERMS], theta[N_TERMS:]
    win = _win_chances(w, z)
    sc = z @ s                                      # the score up to the intercept and progress, which cancel
    idx = mover[:, None, None]
    own = np.take_along_axis(sc, np.broadcast_to(idx, sc.shape[:2] + (1,)), axis=-1)[..., 0]
    others = sc.copy()
    np.put_along_axis(others, np.broadcast_to(idx, sc.shape[:2] + (1,)), -np.inf, axis=-1)
    best = others.argmax(axis=-1)
    th = np.tanh((own - others.max(axis=-1)) / SCALE)
    win_m = np.take_along_axis(win, np.broadcast_to(idx, win.shape[:2] + (1,)), axis=-1)[..., 0]
    return 0.5 * win_m + 0.5 * (0.5 + 0.5 * th), win, win_m, th, best


def mover_reward(model: ValueModel, z: np.ndarray, mover: np.ndarray) -> np.ndarray:
    """The evaluation's reward for the mover (moves,), averaged over the draws, as the search backs it up."""
    return _reward_parts(_theta(model, z.shape[-2]), z, np.asarray(mover))[0].mean(axis=1)


def _theta(model: ValueModel, players: int) -> np.ndarray:
    w, s = model.weights_for(players)
    return np.concatenate([w, s[2:]])


def loss_and_grad(theta, d: Siblings, theta0, sigma, penalty: float, outcome: float = OUTCOME):
    """Mean listwise cross-entropy per decision + outcome x the winner's log loss at the decision + penalty x
    |sigma (theta - theta0)|^2, and its gradient in theta = (win weights, score term weights)."""
    n = max(len(d), 1)
    k = d.z.shape[1]
    r_k, win, win_m, th, best = _reward_parts(theta, d.z, d.mover)
    r = r_k.mean(axis=1)
    p = F.segment_softmax(r / Q_TEMP, d.starts)
    rank = F.xent(p, d.target, len(d))
    g = (p - d.target) / (Q_TEMP * n)                       # dL/dr per move
    gk = np.broadcast_to((g / k)[:, None], r_k.shape)       # dL/dr per move and draw
    idx = d.mover[:, None, None, None]
    z_m = np.take_along_axis(d.z, np.broadcast_to(idx, d.z.shape[:2] + (1, N_TERMS)), axis=2)[:, :, 0]
    z_o = np.take_along_axis(d.z, np.broadcast_to(best[:, :, None, None], d.z.shape[:2] + (1, N_TERMS)),
                             axis=2)[:, :, 0]
    zbar = np.einsum("mkp,mkpj->mkj", win, d.z)
    grad_w = np.einsum("mk,mkj->j", gk * 0.5 * win_m, z_m - zbar)
    grad_s = np.einsum("mk,mkj->j", gk * 0.25 * (1 - th ** 2) / SCALE, z_m - z_o)
    # the level: log loss of the game's winner at the decision's position
    pw = _win_chances(theta[:N_TERMS], d.root_z)
    rows = np.arange(len(d))
    nll = -np.log(np.maximum(pw[rows, d.winner], 1e-300)).sum() / n
    q = pw.copy()
    q[rows, d.winner] -= 1.0
    grad_w = grad_w + outcome * np.einsum("dp,dpj->j", q, d.root_z) / n
    diff = sigma * (theta - theta0)
    loss = rank + outcome * nll + penalty * diff @ diff
    grad = np.concatenate([grad_w, grad_s]) + 2 * penalty * sigma * diff
    return float(loss), grad


def term_scale(d: Siblings) -> np.ndarray:
    """The standard deviation of each term over the moves' positions (win and score weights alike)."""
    s = d.z.reshape(-1, N_TERMS).std(axis=0)
    s = np.where(s > 1e-12, s, 1.0)
    return np.concatenate([s, s])


def fit_theta(d: Siblings, theta0: np.ndarray, penalty: float, outcome: float = OUTCOME,
              sigma: np.ndarray | None = None) -> np.ndarray:
    sigma = term_scale(d) if sigma is None else sigma
    res = minimize(loss_and_grad, theta0.copy(), args=(d, theta0, sigma, penalty, outcome), jac=True,
                   method="L-BFGS-B", options={"maxiter": 300, "ftol": 1e-7})
    return res.x


def choose_penalty(d: Siblings, theta0: np.ndarray, penalties=PENALTIES, outcome: float = OUTCOME,
                   folds: int = FOLDS) -> tuple[float, dict]:
    """The penalty of lowest cross-validated loss (without its penalty term; folds by game), and each one's."""
    sigma = term_scale(d)
    return best_penalty(d, penalties, folds_of(d.game, folds),
                        lambda train, pen: fit_theta(train, theta0, pen, outcome, sigma),
                        lambda th, test: loss_and_grad(th, test, theta0, sigma, 0.0, outcome)[0])


def with_theta(base: ValueModel, thetas: dict, meta: dict) -> ValueModel:
    """The base model with the win weights and score term weights of `thetas` ({players: theta}) replaced;
    the score intercept and progress weight (which no sibling comparison sees) kept."""
    win = dict(base.win)
    score = dict(base.score)
    for n, th in thetas.items():
        win[n] = np.asarray(th[:N_TERMS], dtype=float)
        score[n] = np.concatenate([base.score[n][:2], th[N_TERMS:]])
    return ValueModel(win=win, score=score, meta=meta)


def fit_ranking(train: dict, base: ValueModel, penalties=PENALTIES, outcome: float = OUTCOME,
                meta: dict | None = None) -> tuple[ValueModel, pd.DataFrame]:
    """The base model refitted per player count ({players: Siblings} of training decisions) at the penalty of
    lowest cross-validated loss, and the cross-validation table."""
    thetas: dict = {}
    cv: list[dict] = []
    for n, d in sorted(train.items()):
        theta0 = _theta(base, n)
        pen, scores = choose_penalty(d, theta0, penalties, outcome)
        thetas[n] = fit_theta(d, theta0, pen, outcome)
        cv.extend({"players": n, "decisions": len(d), "games": len(np.unique(d.game)), "penalty": p,
                   "cv_loss": s, "chosen": p == pen} for p, s in scores.items())
    return with_theta(base, thetas, dict(meta or {})), pd.DataFrame(cv)


# ---- measurement


def per_decision(model: ValueModel, d: Siblings) -> pd.DataFrame:
    """For each decision: how the model's reward after each kept move ranks them against the teacher's values
    (Spearman and Kendall's tau-b, NaN with fewer than three moves or a constant side); top-1: whether its
    best move is the teacher's best by value, and its most visited move (ties for the best shared out, as a
    random tie-break would); pairs of distinct teacher values it orders right (a tie counts a half) and those
    pairs; its listwise cross-entropy; and the log loss of the game's winner at the decision's position."""
    r = mover_reward(model, d.z, d.mover)
    p_win = model.predict_features(d.root_t, _features_of(d.root_z, d.root_t))[0]
    return rank_table(r, p_win, d)


def rank_table(r: np.ndarray, p_win: np.ndarray, d: Siblings) -> pd.DataFrame:
    """per_decision's table for any evaluation: r its reward for the mover after each kept move (moves,),
    p_win its win chances at each decision's position (decisions, players)."""
    out = []
    for i in range(len(d)):
        a, b = d.starts[i], d.starts[i + 1]
        e, q, v = r[a:b], d.value[a:b], d.visits[a:b]
        dq = np.sign(q[:, None] - q[None, :])
        de = np.sign(e[:, None] - e[None, :])
        upper = np.triu(np.ones((b - a, b - a), dtype=bool), 1) & (dq != 0)
        ranked = b - a >= 3 and np.ptp(e) > 0 and np.ptp(q) > 0
        top = np.isclose(e, e.max(), rtol=0.0, atol=1e-12)
        out.append({"game": d.game[i], "moves": b - a,
                    "spearman": spearmanr(e, q)[0] if ranked else np.nan,
                    "kendall": kendalltau(e, q)[0] if ranked else np.nan,
                    "top1_value": top[np.argmax(q)] / top.sum(),
                    "top1_visits": top[np.argmax(v)] / top.sum(),
                    "pairs_right": float((dq == de)[upper].sum() + 0.5 * (de == 0)[upper].sum()),
                    "pairs": int(upper.sum()),
                    "rank_xent": float(-(d.target[a:b] * np.log(np.maximum(
                        F.segment_softmax(e / Q_TEMP, np.array([0, b - a])), 1e-300))).sum()),
                    "outcome_log_loss": float(-np.log(max(p_win[i, d.winner[i]], 1e-300)))})
    return pd.DataFrame(out)


def _features_of(z: np.ndarray, t: np.ndarray) -> np.ndarray:
    """The features back from their terms (z interleaves f (1 - t) and f t, so f = their sum)."""
    return z[..., 0::2] + z[..., 1::2]


def summary(frame: pd.DataFrame) -> dict:
    """The means of a per_decision table (pairwise accuracy pooled over pairs)."""
    return {"decisions": len(frame), "games": int(frame["game"].nunique()),
            "spearman": float(frame["spearman"].mean()), "kendall": float(frame["kendall"].mean()),
            "top1_value": float(frame["top1_value"].mean()), "top1_visits": float(frame["top1_visits"].mean()),
            "pairwise": float(frame["pairs_right"].sum() / max(frame["pairs"].sum(), 1)),
            "rank_xent": float(frame["rank_xent"].mean()), "outcome_log_loss": float(frame["outcome_log_loss"].mean())}


METRICS = ("spearman", "kendall", "top1_value", "top1_visits", "pairwise", "rank_xent", "outcome_log_loss")


def paired_interval(a: pd.DataFrame, b: pd.DataFrame, metric: str, draws: int = 1000, seed: int = 0
                    ) -> tuple[float, float, float]:
    """(b - a, low, high) of a metric's mean over the same decisions, with a 95% bootstrap interval that
    resamples whole games (a game's decisions are not independent)."""
    games = a["game"].to_numpy()
    ids, inv = np.unique(games, return_inverse=True)
    if metric == "pairwise":
        num = np.bincount(inv, b["pairs_right"] - a["pairs_right"], len(ids))
        den = np.bincount(inv, a["pairs"], len(ids))
    else:
        x = (b[metric] - a[metric]).to_numpy(float)
        ok = ~np.isnan(x)
        num = np.bincount(inv[ok], x[ok], len(ids))
        den = np.bincount(inv[ok], minlength=len(ids)).astype(float)
    rng = np.random.default_rng(seed)
    pick = rng.integers(len(ids), size=(draws, len(ids)))
    boot = num[pick].sum(axis=1) / np.maximum(den[pick].sum(axis=1), 1e-12)
    lo, hi = np.percentile(boot, [2.5, 97.5])
    return float(num.sum() / max(den.sum(), 1e-12)), float(lo), float(hi)


def compare(models: dict, d: Siblings, frames: dict | None = None) -> pd.DataFrame:
    """One row per model ({name: ValueModel}) of the summary on decisions d, and for every model after the
    first its difference to the first with the game-bootstrap interval; frames: per_decision tables of
    other evaluations to add ({name: table} on the same decisions, after the models)."""
    frames = {**{name: per_decision(m, d) for name, m in models.items()}, **(frames or {})}
    first = next(iter(frames))
    rows = []
    for name, fr in frames.items():
        row = {"players": d.players, "model": name, **summary(fr)}
        if name != first:
            for metric in METRICS:
                diff, lo, hi = paired_interval(frames[first], fr, metric)
                row.update({f"{metric}_diff": diff, f"{metric}_low": lo, f"{metric}_high": hi})
        rows.append(row)
    return pd.DataFrame(rows)


def load_rows(folders, players: int, min_visits: int = MIN_VISITS, draws: int = DETERMINIZATIONS,
              limit_games: int | None = None, inputs=position_features) -> list[dict]:
    """decision_rows of one player count in one teacher data folder or several (game numbers of the k-th
    shifted by k x fit.GAME_OFFSET, which keeps held_out); limit_games: at most this many training games per
    folder (the first ones; every held-out game is kept), to bound the time; inputs as decision_rows takes it."""
    if isinstance(folders, (str, bytes)) or hasattr(folders, "joinpath"):
        folders = [folders]
    rows = []
    for k, folder in enumerate(folders):
        data = T.load(folder, [players])
        if limit_games is not None:
            games = np.unique(data["game"])
            keep = set(games[T.held_out(games)]) | set(games[~T.held_out(games)][:limit_games])
            data = data[data["game"].isin(keep)]
        for r in decision_rows(data, T.records(folder, players), min_visits, draws, inputs):
            rows.append({**r, "game": r["game"] + k * F.GAME_OFFSET})
    return rows


def split(players: int, rows: list[dict], min_visits: int = MIN_VISITS) -> tuple[Siblings, Siblings]:
    """(training decisions, held-out decisions) of `rows` at a visit threshold (teacher.held_out by game)."""
    d = stack(players, rows, min_visits)
    out = T.held_out(d.game)
    return d.take(~out), d.take(out)
