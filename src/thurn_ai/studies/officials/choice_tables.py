"""The officials study, the tables of the rated decisions (thurn_ai/studies/officials/choice.py rates them):
per player count, official and phase how often using the official is right -- by the first rating (each
side's most visited move, by its own mean) and, where rated, by the independent re-rating -- with means
beside medians and trimmed means, the decisions of the game's last round counted apart, and the examples
where the choice matters most.
"""
from __future__ import annotations

import math

import pandas as pd

from ...game.officials import OFFICIALS, STAGES
from ...stats.summary import clustered_proportion_interval
from .choice import SMALL_SAMPLE, check_choice_data, with_later_columns
from .design import robust_summary

__all__ = ["choice_table", "choice_examples", "win_unit", "RATINGS"]

#: the two ratings of a decision: (column prefix of the table, Δ win column, its standard error)
RATINGS = {"": ("d_win", "se_win"), "fresh_": ("d_win_fresh", "se_win_fresh")}


def win_unit(df: pd.DataFrame) -> str:
    """What a Δ of the win ratings in these rows is: a calibrated win chance when every rated decision was rated by a
    search whose win share went through the win map (Analysis.calibrated), else the evaluation's own units."""
    r = df[df.d_win.notna()] if "d_win" in df else df
    calibrated = "calibrated" in r and len(r) and bool(r["calibrated"].fillna(False).astype(bool).all())
    return "Δ win chance (calibrated)" if calibrated else "Δ evaluation"


def share_right(r: pd.DataFrame, d: str) -> tuple[float, float, float]:
    """The share of rows with Δ > 0 and its interval resampling whole games (a game's decisions are not
    independent)."""
    rated = r[r[d].notna()]
    if rated.empty:
        return math.nan, math.nan, math.nan
    right = rated[d] > 0
    per_game = right.groupby([rated.source, rated.game]).agg(["sum", "size"])
    lo, hi = clustered_proportion_interval(per_game["sum"], per_game["size"])
    return float(right.mean()), lo, hi


def _rating_columns(c: pd.DataFrame, prefix: str) -> dict:
    d, se = RATINGS[prefix]
    r = c[c[d].notna()]
    m = len(r)
    right, lo, hi = share_right(c, d)
    open_right = share_right(c[~c.endgame], d)[0]
    out = {f"{prefix}rated": m, f"{prefix}right": right, f"{prefix}right_lo": lo, f"{prefix}right_hi": hi,
           f"{prefix}right_open": open_right,
           f"{prefix}clearly_right": float((r[d] > 2 * r[se]).mean()) if m else math.nan,
           f"{prefix}clearly_wrong": float((r[d] < -2 * r[se]).mean()) if m else math.nan}
    out.update(robust_summary(r[d], f"{prefix}d_win"))
    return out


def choice_table(df: pd.DataFrame) -> pd.DataFrame:
    """Per player count, official and phase (and 'all' phases): decisions with the official on offer, how many the
    search could rate on both sides, Δ win and Δ score (mean, median, trimmed mean, quartiles), the share where using
    it is right (Δ win > 0; its interval resamples whole games, as a game's decisions are not independent) and the
    same share without the decisions of the game's last round (right_open; `endgame` counts them), clearly right /
    wrong (Δ beyond two standard errors), how often the player who played the game used it, and how often the
    search's own top move did."""
    check_choice_data(df)
    df = with_later_columns(df)
    rows = []
    for (n, o), g in df.groupby(["players", "official"], sort=True):
        for ph in (*STAGES, "all"):
            c = g if ph == "all" else g[g.phase == ph]
            r = c[c.d_win.notna()]
            row = {"players": n, "official": o, "phase": ph, "decisions": len(c),
                   "games": c.groupby(["source", "game"]).ngroups, "endgame": int(c.endgame.sum()),
                   "unit": win_unit(c)}
            row.update(_rating_columns(c, ""))
            row.update({"d_score_mean": r.d_score.mean(), "d_score_median": r.d_score.median(),
                        "se_win_median": r.se_win.median()})
            row.update(_rating_columns(c, "fresh_"))
            row.update({"used": float(c.used.mean()) if len(c) else math.nan,
                        "search_uses": float(c.best_uses.mean()) if len(c) else math.nan,
                        "small_sample": len(r) < SMALL_SAMPLE})
            rows.append(row)
    return pd.DataFrame(rows)


def choice_examples(df: pd.DataFrame, per_official: int = 3) -> pd.DataFrame:
    """Per official the decisions where the choice matters most: the largest |Δ win| among rated
    decisions whose Δ exceeds two standard errors if there are such, one per game."""
    check_choice_data(df)
    picked = []
    for o in OFFICIALS:
        r = df[(df.official == o) & df.d_win.notna()].copy()
        if r.empty:
            continue
        r["abs_d"] = r.d_win.abs()
        clear = r[r.abs_d > 2 * r.se_win]
        r = (clear if len(clear) else r).sort_values(["abs_d", "game", "move"], ascending=[False, True, True])
        r = r.drop_duplicates(["players", "source", "game"]).head(per_official)
        picked.append(r.drop(columns="abs_d"))
    if not picked:
        return df.iloc[0:0].copy()
    return pd.concat(picked, ignore_index=True)
