"""What the sequential test would have cost and decided: its error rates and lengths in simulation at the
bounds (with the spread of real paired games), and the committed search-root cells replayed in game order
(experiments/sprt.py -> results/sprt/).

The search-root cells (results/search_root/runs/) hold, per player count, the anchor's cell `base_p<n>`
(anchor-1k in seat 0, heuristic elsewhere) and each candidate's cell on the same deals (`<cand>_p<n>`: the
candidate in seat 0): game g of both is one deal, so d = the candidate's result minus the anchor's is a paired
difference as the test reads it. The head-to-head cells (`gen3_h2h_p<n>`, `gen3_h2h_r2_p<n>`: the candidate
against anchor-1k in every other seat) are not paired with a baseline game; there d is the candidate's result
minus the fair share 1/n (the rule the expert study used).
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from ..stats.sprt import SPRT, SUPPORT, counts_of, simulate, with_mean

PAIRED = ("halving", "gen3", "tiles")
HEAD_TO_HEAD = ("gen3_h2h", "gen3_h2h_r2")
CONVENTIONS = ("win", "win_share")


def focus_rows(df: pd.DataFrame, others: str) -> pd.DataFrame:
    """The one row per game of the seat not labelled `others` (heuristic, heuristic #k, anchor-1k #k), by game."""
    rows = df[~df["bot"].str.startswith(others)]
    if rows.groupby("game").size().ne(1).any():
        raise ValueError("a game without exactly one focus seat")
    return rows.sort_values("game").set_index("game")


def cell_differences(runs: Path, cell: str, players: int, convention: str = "win") -> np.ndarray:
    """The paired differences of a committed cell, in game order (see the module doc)."""
    cand = pd.read_csv(runs / f"{cell}_p{players}" / "results.csv")
    if cell in HEAD_TO_HEAD:
        return (focus_rows(cand, "anchor-1k")[convention] - 1 / players).to_numpy()
    base = focus_rows(pd.read_csv(runs / f"base_p{players}" / "results.csv"), "heuristic")
    cand_rows = focus_rows(cand, "heuristic")
    if not (cand_rows["game_seed"] == base["game_seed"]).all():
        raise ValueError(f"{cell}_p{players} is not on the anchor's deals")
    return (cand_rows[convention] - base[convention]).to_numpy()


@dataclass(frozen=True)
class Replay:
    cell: str
    players: int
    games: int          # the fixed cell's games (the candidate's; a paired cell used as many of the anchor's)
    verdict: str
    deals: int          # deals the test used (a paired cell: 2 games a deal, one shared with the anchor's cell)
    llr: float
    mean: float
    lo: float
    hi: float
    fixed_mean: float   # the whole cell's mean difference, points
    shared_verdict: str  # the test run on the shared-first-place convention instead


def replay(runs: Path, test: SPRT) -> pd.DataFrame:
    """Every committed candidate cell run through the test in game order (a cell that ends undecided says
    'continue')."""
    out = []
    for cell in PAIRED + HEAD_TO_HEAD:
        for n in (2, 3, 4):
            if not (runs / f"{cell}_p{n}").exists():
                continue
            d = cell_differences(runs, cell, n)
            s = test.status(d)
            shared = test.status(cell_differences(runs, cell, n, "win_share"))
            out.append(Replay(cell, n, len(d), s.verdict, s.n, s.llr, s.mean, s.ci[0], s.ci[1],
                              100 * float(d.mean()), shared.verdict))
    return pd.DataFrame([r.__dict__ for r in out])


def spread(runs: Path, players: int) -> np.ndarray:
    """The frequencies of the paired differences on SUPPORT, pooled over the paired candidate cells."""
    d = np.concatenate([cell_differences(runs, c, players) for c in PAIRED if (runs / f"{c}_p{players}").exists()])
    counts = counts_of(d)
    return counts / counts.sum()


def fixed_deals(test: SPRT, sd: float) -> int:
    """Deals a fixed-sample one-sided z test needs for the same alpha and beta between the same bounds:
    ((z_(1-alpha) + z_(1-beta)) sd / (elo1 - elo0))^2."""
    from scipy.stats import norm
    z = norm.ppf(1 - test.alpha) + norm.ppf(1 - test.beta)
    return int(np.ceil((z * sd / ((test.elo1 - test.elo0) / 100)) ** 2))


def simulated(runs: Path, test: SPRT, sims: int, seed: int) -> pd.DataFrame:
    """At each bound and player count, with the real spread moved to that mean: the share of tests that
    accepted H1 / H0 and how many deals they used."""
    out = []
    for n in (2, 3, 4):
        q = spread(runs, n)
        sd = float(np.sqrt((q * SUPPORT ** 2).sum() - (q * SUPPORT).sum() ** 2))
        for bound, mu in (("H0", test.elo0), ("H1", test.elo1)):
            res = simulate(test, with_mean(q, mu), runs=sims, seed=seed + n)
            out.append({"players": n, "true_mean": mu, "at": bound, "sd": round(100 * sd, 1),
                        "fixed_deals": fixed_deals(test, sd), **res})
    return pd.DataFrame(out)
