"""Fit the learned move prior to teacher data: a conditional logit per player count and decision phase.

Each sampled decision of the teacher data (teacher.py) is set up again from its game's record, seen as the
mover sees it (a determinization of what the mover cannot know, seeded by the game and the decision), and
its moves get the compiled prior features (thurn_ai._policy.prior_features_of). The target is soft (the
teacher's choice is only ~90% reproducible): (1 - Q_SHARE) x the teacher's visit shares + Q_SHARE x a
softmax of its mean rewards, (Q - Q_best) / Q_TEMP, over the moves it visited at least MIN_VISITS times.
The weights minimise the cross-entropy to that target plus an L2 penalty chosen by cross-validation over
games (K folds: a game's decisions stay together). Held-out games (teacher.held_out) are never fitted.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.optimize import minimize

from ... import _policy
from ...learned.prior import N_FEATURES, PHASES, PhasePrior, PriorModel
from ...play.match import derive_seed
from ..learned.fit import best_penalty
from . import teacher as T

Q_SHARE = 0.0     # the shipped fit's share: the screen in docs/expert.md
Q_TEMP = 0.02
MIN_VISITS = 30
PENALTIES = (1e-3, 1e-2, 1e-1, 1.0)
FOLDS = 5
MIN_DECISIONS = 50    # a phase row with fewer training decisions keeps the hand-set prior


@dataclass
class Decisions:
    """The decisions of one player count and phase: features stacked by move, with segment starts."""
    players: int
    phase: int
    features: np.ndarray     # (moves, N_FEATURES)
    target: np.ndarray       # (moves,) soft target, sums to 1 per decision
    visits: np.ndarray       # (moves,) the teacher's visit shares
    starts: np.ndarray       # (decisions + 1,) first move of each decision
    game: np.ndarray         # (decisions,)
    teacher_best: np.ndarray  # (decisions,) index within the decision of the teacher's most-visited move

    def __len__(self) -> int:
        return len(self.game)

    def take(self, keep: np.ndarray) -> "Decisions":
        """The decisions where keep (per decision) is true."""
        idx = np.flatnonzero(keep)
        rows = np.concatenate([np.arange(self.starts[i], self.starts[i + 1]) for i in idx]) if len(idx) else \
            np.zeros(0, dtype=int)
        sizes = np.diff(self.starts)[idx]
        return Decisions(self.players, self.phase, self.features[rows], self.target[rows], self.visits[rows],
                         np.concatenate([[0], np.cumsum(sizes)]), self.game[idx], self.teacher_best[idx])


def soft_target(visits: np.ndarray, value: np.ndarray, q_share: float = Q_SHARE) -> np.ndarray:
    """The fit's target over one decision's moves from the teacher's visits and mean rewards: (1 - q_share)
    x the visit shares + q_share x the softmax of the values of the well-visited moves."""
    share = visits / max(visits.sum(), 1)
    ok = visits >= MIN_VISITS
    if not ok.any():
        return share
    q = np.where(ok, value, -np.inf)
    e = np.where(ok, np.exp((q - q[ok].max()) / Q_TEMP), 0.0)
    return (1 - q_share) * share + q_share * e / e.sum()


def decision_rows(data: pd.DataFrame, records: dict) -> list[dict]:
    """Per sampled decision of one player count: its phase row, moves, features, teacher visits and values.
    `records`: {game: GameRecord}. Each game is replayed once, its decisions read on the way."""
    out = []
    for game, decision, d, rec, state in T.decisions_replayed(data, records):
        row = _decision_row(game, decision, d, state, rec.seed)
        if row is not None:
            out.append(row)
    return out


def _decision_row(game: int, decision: int, d: pd.DataFrame, state, game_seed: int):
    """decision_rows' row of one decision at `state`; None where the prior has no say (no learned phase, one
    move) or the teacher visited none of the moves."""
    mover = state.current_player
    seen = state.determinize(mover, derive_seed("prior-features", game_seed, decision))
    phase, moves, f = _policy.prior_features_of(seen)
    if phase < 0 or len(moves) < 2:
        return None
    by_move = {int(m): (v, q) for m, v, q in zip(d["move"], d["visits"], d["value"])}
    visits = np.array([by_move.get(m, (0, 0.0))[0] for m in moves], dtype=float)
    value = np.array([by_move.get(m, (0, 0.0))[1] for m in moves], dtype=float)
    if visits.sum() == 0:
        return None
    return {"game": game, "decision": decision, "phase": phase, "moves": moves,
            "features": np.asarray(f), "visits": visits, "value": value}


def stack(players: int, phase: int, rows: list[dict], q_share: float = Q_SHARE) -> Decisions:
    rows = [r for r in rows if r["phase"] == phase]
    sizes = [len(r["moves"]) for r in rows]
    return Decisions(
        players, phase,
        np.concatenate([r["features"] for r in rows]) if rows else np.zeros((0, N_FEATURES)),
        np.concatenate([soft_target(r["visits"], r["value"], q_share) for r in rows]) if rows else np.zeros(0),
        np.concatenate([r["visits"] / r["visits"].sum() for r in rows]) if rows else np.zeros(0),
        np.concatenate([[0], np.cumsum(sizes)]).astype(int),
        np.array([r["game"] for r in rows], dtype=int),
        np.array([int(np.argmax(r["visits"])) for r in rows], dtype=int))


def segment_softmax(u: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """The softmax of scores u within each decision (moves starts[i] .. starts[i + 1] - 1)."""
    seg = np.repeat(np.arange(len(starts) - 1), np.diff(starts))
    top = np.maximum.reduceat(u, starts[:-1])
    e = np.exp(u - top[seg])
    return e / np.add.reduceat(e, starts[:-1])[seg]


def probabilities(w: np.ndarray, d: Decisions) -> np.ndarray:
    """Per move of d, the logit's probability with weights w within its decision."""
    return segment_softmax(d.features @ w, d.starts)


def loss_and_grad(w: np.ndarray, d: Decisions, penalty: float) -> tuple[float, np.ndarray]:
    """Mean cross-entropy to the target per decision, plus penalty x |w|^2, and its gradient."""
    p = probabilities(w, d)
    n = max(len(d), 1)
    loss = xent(p, d.target, len(d)) + penalty * w @ w
    # d/dw of -sum t log p over a decision = sum (p - t) phi (the targets of a decision sum to 1)
    grad = d.features.T @ (p - d.target) / n + 2 * penalty * w
    return float(loss), grad


def fit_weights(d: Decisions, penalty: float) -> np.ndarray:
    res = minimize(loss_and_grad, np.zeros(N_FEATURES), args=(d, penalty), jac=True, method="L-BFGS-B",
                   options={"maxiter": 500})
    return res.x


def cross_entropy(w: np.ndarray, d: Decisions) -> float:
    return loss_and_grad(w, d, 0.0)[0]


def xent(p: np.ndarray, target: np.ndarray, decisions: int) -> float:
    """Mean cross-entropy per decision of move probabilities p to the soft target (both per move, over this
    many decisions)."""
    return float(-(target * np.log(np.maximum(p, 1e-300))).sum() / max(decisions, 1))


def game_folds(game: np.ndarray, seed: int = 0) -> np.ndarray:
    """Each decision's cross-validation fold: its game's, after a seeded shuffle (a game's decisions stay in
    one fold)."""
    games = np.unique(game)
    fold_of = dict(zip(games, np.random.default_rng(seed).permutation(len(games)) % FOLDS))
    return np.array([fold_of[g] for g in game], dtype=int)


def choose_penalty(d: Decisions, seed: int = 0) -> tuple[float, dict]:
    """The L2 penalty of lowest cross-validated cross-entropy (folds by game); and every penalty's score."""
    return best_penalty(d, PENALTIES, game_folds(d.game, seed), fit_weights, cross_entropy)


def fit_prior(groups: dict[tuple[int, int], Decisions], min_decisions: int = MIN_DECISIONS,
              meta: dict | None = None) -> tuple[PriorModel, pd.DataFrame]:
    """The prior fitted to each (players, phase) group with enough decisions (fewer: no learned prior in
    that phase), and a table of the cross-validation."""
    rows: dict[int, list] = {}
    cv = []
    for (players, phase), d in sorted(groups.items()):
        rows.setdefault(players, [None] * len(PHASES))
        if len(d) < min_decisions:
            cv.append({"players": players, "phase": PHASES[phase], "decisions": len(d), "penalty": None})
            continue
        penalty, scores = choose_penalty(d)
        rows[players][phase] = PhasePrior(fit_weights(d, penalty))
        cv.append({"players": players, "phase": PHASES[phase], "decisions": len(d), "penalty": penalty,
                   **{f"cv_xent_{k:g}": v for k, v in scores.items()}})
    return PriorModel(rows=rows, meta=dict(meta or {})), pd.DataFrame(cv)


def agreement(model: PriorModel, d: Decisions) -> dict:
    """On decisions d: how often the prior's favourite, and the planner's move, is the teacher's most visited
    move, and the teacher's mean visit share on each (the offline gate of docs/expert.md)."""
    row = model.rows.get(d.players, [None] * len(PHASES))[d.phase]
    if len(d) == 0:
        return {}
    p = segment_softmax(row.scores(d.features), d.starts) if row is not None else None
    prior_hit, planner_hit, prior_share, planner_share = [], [], [], []
    for i in range(len(d)):
        a, b = d.starts[i], d.starts[i + 1]
        plan = int(np.argmax(d.features[a:b, 0]))
        pick = int(np.argmax(p[a:b])) if p is not None else plan
        prior_hit.append(pick == d.teacher_best[i])
        planner_hit.append(plan == d.teacher_best[i])
        prior_share.append(d.visits[a + pick])
        planner_share.append(d.visits[a + plan])
    return {"players": d.players, "phase": PHASES[d.phase], "decisions": len(d),
            "prior_top1": float(np.mean(prior_hit)), "planner_top1": float(np.mean(planner_hit)),
            "prior_share": float(np.mean(prior_share)), "planner_share": float(np.mean(planner_share)),
            "prior_xent": xent(p, d.target, len(d)) if p is not None else np.nan,
            "games": int(len(np.unique(d.game)))}


GAME_OFFSET = 1_000_000   # game numbers of the k-th data folder are shifted by k x this (held_out is unchanged)


def load_groups(folders, players_list, q_share: float = Q_SHARE) -> tuple[dict, dict]:
    """({(players, phase): Decisions} for the training games, the same for the held-out games) of one
    teacher data folder or several (a later generation fits to its own and earlier generations' data; each
    folder's games keep apart in the cross-validation); the targets are the visit shares mixing values in
    with `q_share`."""
    if isinstance(folders, (str, bytes)) or hasattr(folders, "joinpath"):
        folders = [folders]
    train, held = {}, {}
    for n in players_list:
        rows = []
        for k, folder in enumerate(folders):
            for r in decision_rows(T.load(folder, [n]), T.records(folder, n)):
                rows.append({**r, "game": r["game"] + k * GAME_OFFSET})
        for ph in range(len(PHASES)):
            d = stack(n, ph, rows, q_share)
            out = T.held_out(d.game)
            train[(n, ph)] = d.take(~out)
            held[(n, ph)] = d.take(out)
    return train, held
