"""How well said win chances match what happened: reliability, expected calibration error, Brier scores.

A said chance p for an outcome y (1 won, 0 not): the Brier score is the mean of (p - y)^2; the base rate
always says 1/n (n players); the expected calibration error (ECE) sorts the chances into equal-width bins
and averages |mean said - share won| weighted by the bin's size. Positions of one game are not
independent: intervals here resample whole games (`game_bootstrap`).
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from ...game.officials import STAGES, stage_of
from ...stats.summary import cluster_bootstrap

BINS = 10


def brier(p, y) -> float:
    p, y = np.asarray(p, float), np.asarray(y, float)
    return float(((p - y) ** 2).mean())


def reliability(p, y, bins: int = BINS) -> pd.DataFrame:
    """Per bin of said chance (equal width over [0, 1]): its edges, count, mean said chance, share won."""
    p, y = np.asarray(p, float), np.asarray(y, float)
    k = np.clip((p * bins).astype(int), 0, bins - 1)
    rows = []
    for b in range(bins):
        m = k == b
        rows.append({"low": b / bins, "high": (b + 1) / bins, "n": int(m.sum()),
                     "said": float(p[m].mean()) if m.any() else np.nan,
                     "won": float(y[m].mean()) if m.any() else np.nan})
    return pd.DataFrame(rows)


def ece(p, y, bins: int = BINS) -> float:
    p, y = np.asarray(p, float), np.asarray(y, float)
    k = np.clip((p * bins).astype(int), 0, bins - 1)
    n = np.bincount(k, minlength=bins)
    gap = np.abs(np.bincount(k, p, minlength=bins) - np.bincount(k, y, minlength=bins))   # n * |said - won|
    return float(gap.sum() / n.sum())


def game_bootstrap(frame: pd.DataFrame, stat, reps: int = 400, seed: int = 0) -> tuple[float, float]:
    """A 95% percentile interval of stat(frame) resampling whole games (frame has a `game` column)."""
    rows = list(frame.groupby("game", sort=True).indices.values())      # row positions of each game
    vals = cluster_bootstrap(len(rows), lambda pick: stat(frame.iloc[np.concatenate([rows[i] for i in pick])]),
                             reps, seed)
    lo, hi = np.percentile(vals, [2.5, 97.5])
    return float(lo), float(hi)


def stage_of_positions(frame: pd.DataFrame) -> pd.Series:
    """early / middle / late of each row's position, by the houses the furthest player has placed (a
    third of the supply each: thurn_ai.game.officials.stage_of)."""
    from ...game.rules import HOUSES
    placed = HOUSES - frame.groupby(["game", "turn"])["f_houses_left"].transform("min")
    return placed.map(stage_of).rename(None)


def calibration_table(movers: pd.DataFrame, said: str = "said") -> pd.DataFrame:
    """Per player count and phase (and `all`): positions, games, mean said chance of the player to move,
    share won, ECE, Brier score of the said chance and of the base rate 1/n, and the Brier skill
    (1 - Brier / base Brier). `movers`: one row per position (the player to move) with players, phase,
    game, won and the column `said`."""
    rows = []
    for n, part in movers.groupby("players"):
        for phase in ("all",) + STAGES:
            m = part if phase == "all" else part[part["phase"] == phase]
            if m.empty:
                continue
            b, base = brier(m[said], m["won"]), brier(np.full(len(m), 1 / n), m["won"])
            rows.append({"players": int(n), "phase": phase, "positions": len(m), "games": m["game"].nunique(),
                         "mean_said": float(m[said].mean()), "share_won": float(m["won"].mean()),
                         "ece": ece(m[said], m["won"]), "brier": b, "brier_base": base,
                         "brier_skill": 1 - b / base if base > 0 else np.nan})
    return pd.DataFrame(rows)


# ---- calibration slope and intercept (logistic recalibration), and a chance for known opponents

def _logit(p) -> np.ndarray:
    p = np.clip(np.asarray(p, float), 1e-4, 1 - 1e-4)
    return np.log(p / (1 - p))


def recalibration(p, y, groups=None) -> dict:
    """Logistic recalibration of said chances p against outcomes y: statsmodels Logit of y on
    (1, logit(p)). A calibrated p has slope 1 and intercept 0 (the intercept is read at p = 1/2);
    slope < 1: the chances are too extreme, > 1: too timid (too close to the middle). Also the
    calibration-in-the-large: the intercept with the slope held at 1 (a GLM with logit(p) as offset), the
    logit shift that makes the mean said equal the share won. Standard errors are clustered by `groups`
    (a game's positions share one outcome), intervals 95%.

    Returns {n, groups, intercept, intercept_lo, intercept_hi, slope, slope_lo, slope_hi, shift,
    shift_lo, shift_hi, shift_p} (NaN where the outcomes do not vary)."""
    import statsmodels.api as sm

    p, y = np.asarray(p, float), np.asarray(y, float)
    g = np.arange(len(y)) if groups is None else pd.factorize(np.asarray(groups))[0]
    out = {"n": int(len(y)), "groups": int(len(np.unique(g)))}
    keys = ("intercept", "intercept_lo", "intercept_hi", "slope", "slope_lo", "slope_hi",
            "shift", "shift_lo", "shift_hi", "shift_p")
    if len(y) < 3 or y.min() == y.max():
        return {**out, **{k: np.nan for k in keys}}
    z = _logit(p)
    cov = {"cov_type": "cluster", "cov_kwds": {"groups": g}}
    fit = sm.Logit(y, np.column_stack([np.ones_like(z), z])).fit(disp=0, **cov)
    ci = np.asarray(fit.conf_int())
    shift = sm.GLM(y, np.ones((len(y), 1)), family=sm.families.Binomial(), offset=z).fit(**cov)
    sci = np.asarray(shift.conf_int())
    return {**out, "intercept": float(fit.params[0]), "intercept_lo": float(ci[0, 0]),
            "intercept_hi": float(ci[0, 1]), "slope": float(fit.params[1]), "slope_lo": float(ci[1, 0]),
            "slope_hi": float(ci[1, 1]), "shift": float(shift.params[0]), "shift_lo": float(sci[0, 0]),
            "shift_hi": float(sci[0, 1]), "shift_p": float(shift.pvalues[0])}


def recalibration_table(movers: pd.DataFrame, said: str, by=("players", "opponents")) -> pd.DataFrame:
    """recalibration() per group of `by` (and per `by[1:]` over all player counts, players = 0), the
    positions' games as clusters (a game is (players, game)); with the group's mean said and share won."""
    rows = []
    cluster = movers["players"].astype(int) * 1_000_000 + movers["game"].astype(int)
    parts = list(movers.groupby(list(by)))
    if by and by[0] == "players" and len(by) > 1:
        parts += [((0,) + (k if isinstance(k, tuple) else (k,)), g) for k, g in movers.groupby(list(by[1:]))]
    for key, part in parts:
        key = key if isinstance(key, tuple) else (key,)
        r = recalibration(part[said], part["won"], cluster.loc[part.index])
        rows.append({**dict(zip(by, key)), "mean_said": float(part[said].mean()),
                     "share_won": float(part["won"].mean()), **r})
    return pd.DataFrame(rows)


def fit_shift(p, y, groups=None) -> dict:
    """The logit shift (calibration-in-the-large, slope held at 1) that recalibrates chances p to outcomes
    y: {shift, shift_lo, shift_hi, shift_p, n, groups} (see recalibration)."""
    r = recalibration(p, y, groups)
    return {k: r[k] for k in ("shift", "shift_lo", "shift_hi", "shift_p", "n", "groups")}
