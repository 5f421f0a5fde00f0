"""The officials advice from two searches compared (issue 40): per official and factor level, the share of offers at
which each study's search used the official, the rule it reads as, and the difference with a 95% interval from
independent bootstraps of each study's games (different deals: not paired); described, not tested."""
from __future__ import annotations

import math

import numpy as np
import pandas as pd

from ...game.officials import OFFICIALS
from ...stats.summary import cluster_bootstrap, clustered_proportion_interval
from .advice import FACTORS, rule_of_share
from .plan import OFFICIAL_LABEL
from ..markdown import pct, pp, table

__all__ = ["advice_shift", "shift_lines", "RESAMPLES"]

RESAMPLES = 1999


def _per_game(c: pd.DataFrame) -> pd.DataFrame:
    """Offers and uses per game (source, game) of one cell's rows."""
    return c.used.astype(bool).groupby([c.source, c.game]).agg(["sum", "size"])


def _draws(per_game: pd.DataFrame, seed: int) -> np.ndarray:
    """Bootstrap draws of the pooled take share, resampling whole games."""
    k, m = per_game["sum"].to_numpy(float), per_game["size"].to_numpy(float)
    if len(m) < 2:
        return np.full(RESAMPLES, k.sum() / m.sum() if m.sum() else math.nan)
    return cluster_bootstrap(len(m), lambda idx: k[idx].sum() / m[idx].sum(), RESAMPLES, seed=seed)


def _right(c: pd.DataFrame) -> float:
    d = "d_win_fresh" if "d_win_fresh" in c and c.d_win_fresh.notna().any() else "d_win"
    r = c[c[d].notna()]
    return float((r[d] > 0).mean()) if len(r) else math.nan


def advice_shift(before: pd.DataFrame, after: pd.DataFrame, seed: int = 0) -> pd.DataFrame:
    """Per official, factor and level: each study's offers, games, take share [interval], rule and the
    rating's share right, and the take share's change after - before [95% interval]."""
    out = []
    for o in OFFICIALS:
        b_all, a_all = before[before.official == o], after[after.official == o]
        if b_all.empty and a_all.empty:
            continue
        for factor, levels in FACTORS.items():
            for k, (label, test) in enumerate(levels):
                row: dict = {"official": o, "factor": factor, "level": label}
                draws = {}
                for name, rows in (("before", b_all), ("after", a_all)):
                    c = rows[test(rows)] if len(rows) else rows
                    per_game = _per_game(c) if len(c) else None
                    share = lo = hi = math.nan
                    if per_game is not None:
                        share = float(c.used.astype(bool).mean())
                        lo, hi = clustered_proportion_interval(per_game["sum"], per_game["size"])
                        draws[name] = _draws(per_game, seed + k)
                    games = len(per_game) if per_game is not None else 0
                    row.update({f"{name}_offers": len(c), f"{name}_games": games, f"{name}_taken": share,
                                f"{name}_lo": lo, f"{name}_hi": hi,
                                f"{name}_rule": rule_of_share(share, lo, hi, len(c), games),
                                f"{name}_rating_right": _right(c) if len(c) else math.nan})
                d = row["after_taken"] - row["before_taken"]
                lo = hi = math.nan
                if len(draws) == 2:
                    lo, hi = (float(x) for x in np.nanpercentile(draws["after"] - draws["before"], [2.5, 97.5]))
                row.update({"change": d, "change_lo": lo, "change_hi": hi,
                            "rule_changed": row["before_rule"] != row["after_rule"]})
                out.append(row)
    return pd.DataFrame(out)


def shift_lines(t: pd.DataFrame, before: str, after: str) -> list[str]:
    """Markdown: the rules that changed, then the whole table (before / after: the searches' names)."""
    changed = t[t.rule_changed & (t.before_rule != "too few decisions") & (t.after_rule != "too few decisions")]
    moved = t[(t.change_lo > 0) | (t.change_hi < 0)]
    lines = [f"Take share of the player at the offers: {before} (before) and {after} (after); the change after − "
             "before with a 95% interval from independent bootstraps of each study's games (different deals, not "
             "paired; each cell's own interval, not corrected for the number of cells).", "",
             f"- {len(moved)} of {len(t)} cells moved (interval excluding 0); {len(changed)} "
             f"{'rule reads' if len(changed) == 1 else 'rules read'} differently:"]
    for r in changed.itertuples():
        lines.append(f"  - {OFFICIAL_LABEL[r.official]}, {r.factor} {r.level}: {r.before_rule} "
                     f"({pct(r.before_taken)}) → {r.after_rule} ({pct(r.after_taken)})")
    if changed.empty:
        lines.append("  - none")
    return lines + ["", *table(
        ["official", "factor", "level", "offers before / after", "taken before", "taken after", "change",
         "rule before → after", "rating right before / after"],
        ([OFFICIAL_LABEL[r.official], r.factor, r.level, f"{r.before_offers} / {r.after_offers}", pct(r.before_taken),
          pct(r.after_taken), pp(r.change, r.change_lo, r.change_hi),
          r.before_rule if not r.rule_changed else f"{r.before_rule} → **{r.after_rule}**",
          f"{pct(r.before_rating_right)} / {pct(r.after_rating_right)}"] for r in t.itertuples()))]
