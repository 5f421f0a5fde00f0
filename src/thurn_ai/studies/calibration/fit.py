"""The win maps' forms, chosen out of fold, and how well the chosen one held.

Every form is a WinMap (logit(chance) = a + (b0 + b1 t) logit(share) per player count), so the one chosen
ships as it is. Folds are by game (a game's positions share one outcome), 5 by default. The equal-players
map is chosen among EQUAL_FORMS on the self-play games; the map for heuristic opponents among
OPPONENT_FORMS on the games of the search against `heuristic`, nested: in each fold the equal map is fitted
on the other folds' self-play games first. A form is scored by its out-of-fold log loss summed over a game's
positions, averaged over games (with its standard error), all player counts together: the smallest wins.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from ...learned.win_map import WinMap
from ..learned.calibration import ece, recalibration

#: the forms of the equal-players map
EQUAL_FORMS = {"raw": "the search's share as it is (no map)",
               "pooled": "one (a, b0, b1) for every player count",
               "slope": "a + b logit(share) per player count",
               "full": "a + (b0 + b1 t) logit(share) per player count"}
#: the forms of the map for heuristic opponents, on top of the equal-players map
OPPONENT_FORMS = {"equal": "the equal-players map as it is",
                  "shift": "the equal-players map shifted by one logit shift for every player count",
                  "own": "a + (b0 + b1 t) logit(share) per player count, fitted on these games alone"}
FOLDS = 5


def fit_form(frame: pd.DataFrame, form: str, base: WinMap | None = None) -> WinMap:
    """The map of one form (EQUAL_FORMS or OPPONENT_FORMS; `base`: the equal map under an opponent form)
    fitted on the frame's rows (share, won, progress, players)."""
    counts = sorted(int(n) for n in frame["players"].unique())
    share, won, t, n = frame["share"], frame["won"], frame["progress"], frame["players"]
    if form == "raw":
        return WinMap({k: (0.0, 1.0, 0.0) for k in counts})
    if form == "pooled":
        one = WinMap.fit(share, won, t, np.zeros(len(frame), int)).params[0]
        return WinMap({k: one for k in counts})
    if form == "slope":
        return WinMap.fit(share, won, np.zeros(len(frame)), n)
    if form in ("full", "own"):
        return WinMap.fit(share, won, t, n)
    assert base is not None, "an opponent form needs the equal-players map"
    if form == "equal":
        return base
    if form == "shift":
        import statsmodels.api as sm
        z = _logit(chances(base, frame))
        a = sm.GLM(won.to_numpy(float), np.ones((len(frame), 1)), family=sm.families.Binomial(), offset=z).fit()
        return base.shifted(float(a.params[0]))
    raise ValueError(f"no form {form!r}")


def _logit(p) -> np.ndarray:
    p = np.clip(np.asarray(p, float), 1e-4, 1 - 1e-4)
    return np.log(p / (1 - p))


def chances(win_map: WinMap, frame: pd.DataFrame) -> np.ndarray:
    """The map's chance at every row of the frame."""
    out = np.full(len(frame), np.nan)
    for n, idx in frame.groupby("players").indices.items():
        part = frame.iloc[idx]
        out[idx] = win_map.chance(part["share"].to_numpy(), part["progress"].to_numpy(), int(n))
    return out


def folds_of(frame: pd.DataFrame, folds: int = FOLDS) -> np.ndarray:
    """Each row's fold: its game's number in order within the player count, modulo `folds`."""
    return ((frame.groupby("players")["game"].rank(method="dense").astype(int) - 1) % folds).to_numpy()


def out_of_fold(selfplay: pd.DataFrame, opponents: pd.DataFrame | None, form: str, equal_form: str = "full",
                folds: int = FOLDS) -> pd.Series:
    """Every row's chance by a map of `form` fitted on the other folds' games. With `opponents` (the games
    against heuristic) the form is an OPPONENT_FORMS form scored on them, over the equal map of
    `equal_form` fitted on the other folds' self-play games; else an EQUAL_FORMS form scored on `selfplay`."""
    scored = selfplay if opponents is None else opponents
    out = pd.Series(np.nan, index=scored.index)
    f_self, f_scored = folds_of(selfplay, folds), folds_of(scored, folds)
    for k in range(folds):
        test = scored[f_scored == k]
        if test.empty:
            continue
        if opponents is None:
            win_map = fit_form(selfplay[f_self != k], form)
        else:
            base = fit_form(selfplay[f_self != k], equal_form)
            win_map = fit_form(scored[f_scored != k], form, base)
        out.loc[test.index] = chances(win_map, test)
    return out


def form_scores(frame: pd.DataFrame, said: dict[str, pd.Series]) -> pd.DataFrame:
    """Per form and player count (0: all): positions, games, log loss per game (its mean and standard
    error over games) and per position, of the out-of-fold chances `said[form]`."""
    rows = []
    y = frame["won"].to_numpy(float)
    for form, p in said.items():
        q = np.clip(p.loc[frame.index].to_numpy(float), 1e-6, 1 - 1e-6)
        loss = pd.Series(-(y * np.log(q) + (1 - y) * np.log(1 - q)), index=frame.index)
        for n, part in [*frame.groupby("players"), (0, frame)]:
            per_game = loss.loc[part.index].groupby([part["players"], part["game"]]).sum()
            rows.append({"form": form, "players": int(n), "positions": len(part), "games": len(per_game),
                         "loss_per_game": float(per_game.mean()),
                         "loss_per_game_se": float(per_game.std(ddof=1) / np.sqrt(len(per_game)))
                         if len(per_game) > 1 else np.nan,
                         "loss_per_position": float(loss.loc[part.index].mean())})
    return pd.DataFrame(rows)


def best_form(scores: pd.DataFrame) -> str:
    """The form with the smallest out-of-fold log loss per game over all player counts."""
    overall = scores[scores["players"] == 0].set_index("form")["loss_per_game"]
    return str(overall.idxmin())


def held(frame: pd.DataFrame, said: pd.Series) -> dict[int, dict]:
    """How out-of-fold chances `said` held at each player count: the calibration slope and intercept with
    95% intervals clustered by game (statsmodels), the ECE, the mean said and share won, games, positions."""
    out = {}
    for n, part in frame.groupby("players"):
        p, y = said.loc[part.index].to_numpy(float), part["won"].to_numpy(float)
        r = recalibration(p, y, part["game"].to_numpy())
        out[int(n)] = {"slope": r["slope"], "slope_ci": [r["slope_lo"], r["slope_hi"]],
                       "intercept": r["intercept"], "intercept_ci": [r["intercept_lo"], r["intercept_hi"]],
                       "ece": ece(p, y), "mean_said": float(p.mean()), "share_won": float(y.mean()),
                       "games": int(part["game"].nunique()), "positions": int(len(part))}
    return out
