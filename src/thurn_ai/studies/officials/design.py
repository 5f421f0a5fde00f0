"""The officials study's design statistics: games fixed before a run from the precision wanted, Holm's correction
across a table, paired deals, and robust summaries (medians, trimmed means) beside means."""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
from scipy import stats as sps

from .plan import CONTROL, StudyError
from ...game.rules import PLAYER_COUNTS

#: the precision the validation by play is sized for: a win rate 3 points away from the fair 1/n is found
#: (two-sided 5% test) with this power
SEPARATE_BY = 0.03
ALPHA = 0.05
POWER = 0.8
#: the share cut from each end for a trimmed mean (10% and 10%)
TRIM = 0.1

#: how a game's win is counted: the tournament rows' columns. `win`: the rules' tie-break (equal top scores go
#: to the tie-break's winner, so every game has one winner); `win_share`: a shared top score shares the win.
OUTCOMES = {"win": "the rules' tie-break decides a shared top score",
            "win_share": "a shared top score counts its share"}
#: the officials study's one declared estimator, used by every table of it (ablation, validation, rule card,
#: design): the rules' tie-break. Why: the rules name one winner, the study's binary win rates, Wilson
#: intervals and the fair share 1/n assume one, and every officials table was computed so; the shared-tie
#: count is reported beside it as a sensitivity (validation_cells.estimator_table), never chosen by its
#: verdict. (The expert and search-root studies count shared wins: their win rates are on another scale.)
PRIMARY_OUTCOME = "win"


def games_to_separate(players: int, difference: float = SEPARATE_BY, alpha: float = ALPHA,
                      power: float = POWER) -> int:
    """Games (one seat of interest per game) a two-sided binomial test at level `alpha` needs to find a win rate
    `difference` away from the fair share 1/players with probability `power`, by the normal approximation: n = (z(1 -
    alpha/2) + z(power))^2 p(1 - p) / difference^2 with p = 1/players
    (statsmodels.stats.power.normal_sample_size_one_tail at alpha/2: the power of the far tail is left out, as the
    study's runs were sized; NormalIndPower(ratio=0), which counts it, gives the same whole numbers here)."""
    from statsmodels.stats.power import normal_sample_size_one_tail
    if players not in PLAYER_COUNTS:
        raise StudyError(f"player counts are 2, 3 or 4, not {players!r}")
    if not 0 < difference < 1 or not 0 < alpha < 1 or not 0 < power < 1:
        raise StudyError("difference, alpha and power are between 0 and 1")
    p = 1 / players
    n = normal_sample_size_one_tail(difference, power, alpha / 2, std_null=math.sqrt(p * (1 - p)))
    return math.ceil(round(float(n), 9))      # 2180.0000000001 is 2180, not 2181


def holm(pvalues) -> list[float]:
    """Holm's step-down adjusted p-values (family-wise error over the given tests), in the given order; nan stays nan
    and does not count as a test."""
    from statsmodels.stats.multitest import multipletests
    p = np.array([float(x) for x in pvalues], dtype=float)
    out = np.full(len(p), np.nan)
    tested = ~np.isnan(p)
    if tested.any():
        out[tested] = multipletests(p[tested], method="holm")[1]
    return [float(x) for x in out]


def with_holm(table: pd.DataFrame, columns) -> pd.DataFrame:
    """The table with <column>_holm for each p-value column: Holm-adjusted across the whole table."""
    out = table.copy()
    for c in columns:
        if c in out:
            out[f"{c}_holm"] = holm(out[c]) if len(out) else []
    return out


def two_proportions_p(k1: int, n1: int, k2: int, n2: int) -> float:
    """Two-sided p-value of 'the same proportion' for two independent samples (chi-square test of the 2x2
    table, no continuity correction; Fisher's exact test when an expected count is under 5)."""
    table = np.array([[k1, n1 - k1], [k2, n2 - k2]])
    if n1 == 0 or n2 == 0 or table.sum(axis=0).min() == 0:
        return math.nan if n1 == 0 or n2 == 0 else 1.0
    expected = np.outer(table.sum(axis=1), table.sum(axis=0)) / table.sum()
    if expected.min() < 5:
        return float(sps.fisher_exact(table).pvalue)
    return float(sps.chi2_contingency(table, correction=False).pvalue)


def clustered_proportion_p(successes, sizes, p0: float = 0.5) -> float:
    """Two-sided p-value of "the pooled proportion sum(k) / sum(m) is p0" for clusters whose members are not
    independent (k_i of m_i: the decisions of one game): a z test with the cluster-robust (sandwich)
    standard error, G/(G-1)-corrected, or the binomial one under p0 where that is larger (so a cell where
    every member agrees is not infinitely certain). nan without members."""
    k = np.asarray(successes, dtype=float)
    m = np.asarray(sizes, dtype=float)
    keep = m > 0
    k, m = k[keep], m[keep]
    n = m.sum()
    if n == 0:
        return math.nan
    p = k.sum() / n
    g = len(m)
    robust = math.sqrt(g / (g - 1) * ((k - p * m) ** 2).sum()) / n if g > 1 else 0.0
    se = max(robust, math.sqrt(p0 * (1 - p0) / n))
    return float(2 * sps.norm.sf(abs(p - p0) / se))


def trimmed_mean(x, trim: float = TRIM) -> float:
    """The mean of the values left after cutting `trim` of them from each end (scipy.stats.trim_mean)."""
    x = np.asarray(x, dtype=float)
    x = x[~np.isnan(x)]
    return float(sps.trim_mean(x, trim)) if len(x) else math.nan


def robust_summary(x, prefix: str) -> dict:
    """{prefix_mean, _median, _trimmed, _q25, _q75} of the values (nan left out): the mean beside what a
    few extreme values cannot move."""
    s = pd.Series(x, dtype=float).dropna()
    return {f"{prefix}_mean": s.mean(), f"{prefix}_median": s.median(), f"{prefix}_trimmed": trimmed_mean(s),
            f"{prefix}_q25": s.quantile(0.25), f"{prefix}_q75": s.quantile(0.75)}


# ------------------------------------------------------------------------------- paired deals

def paired_differences(df: pd.DataFrame, players: int, official: str) -> pd.DataFrame:
    """Per ablation game of `official` at `players`: the restricted seat's win and score minus the control game's with
    the same seed, at the same seat (the same deal, the same seat, the same bot seeds: only the restriction differs)."""
    a = df[(df.players == players) & (df.official == official) & df.restricted]
    c = df[(df.players == players) & (df.official == CONTROL)]
    if a.empty or c.empty:
        return pd.DataFrame(columns=["game", "seed", "seat", "d_win", "d_score"])
    m = a.merge(c[["seed", "seat", "win", "score"]], on=["seed", "seat"], suffixes=("", "_control"))
    return pd.DataFrame({"game": m.game, "seed": m.seed, "seat": m.seat, "d_win": m.win - m.win_control,
                         "d_score": m.score - m.score_control})


def paired(df: pd.DataFrame, players: int, official: str) -> dict:
    """The paired estimates of an ablation (see paired_differences): d_win_paired and d_score_paired with
    t intervals over the paired games, the number of pairs, and the share of the ablation's games that
    found their control game (1.0 in a paired study)."""
    from ...stats.summary import mean_ci

    d = paired_differences(df, players, official)
    games = df[(df.players == players) & (df.official == official)].game.nunique()
    out = {"pairs": len(d), "paired_share": len(d) / games if games else math.nan}
    for col in ("d_win", "d_score"):
        m, lo, hi = mean_ci(d[col]) if len(d) else (math.nan,) * 3
        out.update({f"{col}_paired": m, f"{col}_paired_lo": lo, f"{col}_paired_hi": hi})
    return out
