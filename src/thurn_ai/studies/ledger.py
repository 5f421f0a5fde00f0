"""The ledger: every candidate tested against a baseline, with its rule, its test, its looks and its verdict, in
one table (results/ledger/ledger.csv and its front page README.md; experiments/ledger.py).

Each row is one look of one test. Both tie conventions are given for every row: `win` (the rules' tie-break)
and `win_share` (a shared first place counts its share); `primary` names the one the rule declared before its
games, and the verdict is the rule's, on that one. Where several candidates' tests share a baseline's games
(a family), Holm's correction (statsmodels) is applied over the family's first looks: an unlucky baseline lifts
every candidate at once.

The seed rows are the search-root study's (results/search_root/): the halving root, generation 3's prior
(paired against heuristic, then head to head against anchor-1k, two looks) and the route tiles, recomputed from
the committed games under both conventions, their verdicts from the study's summary.json; then every sequential
test saved under results/sprt/ (sprt_rows).
"""
from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from .sprt_study import cell_differences

COLUMNS = ["family", "candidate", "baseline", "yardstick", "rule", "test", "look", "games", "primary",
           "win", "win_lo", "win_hi", "win_p", "share", "share_lo", "share_hi", "share_p", "p_holm", "verdict",
           "source"]
SPECS = {"halving": "mcts(root=halving)", "gen3": "mcts(pmodel=results/expert_gen3/prior_gen3.json)",
         "tiles": "mcts(playout=heuristic-tiles,model=results/value_route_tiles/value_route_tiles.json)"}


@dataclass
class Row:
    family: str
    candidate: str
    baseline: str
    yardstick: str
    rule: str
    test: str
    look: int
    games: int
    primary: str
    win: float
    win_lo: float
    win_hi: float
    win_p: float
    share: float
    share_lo: float
    share_hi: float
    share_p: float
    p_holm: float
    verdict: str
    source: str


def pooled(parts: list[np.ndarray], level: float = 0.95) -> tuple[float, float, float, float]:
    """(mean, lo, hi, two-sided p) of the pooled differences, points (statsmodels' t test of the mean)."""
    from statsmodels.stats.weightstats import DescrStatsW
    d = DescrStatsW(np.concatenate(parts))
    lo, hi = d.tconfint_mean(alpha=1 - level)
    return 100 * d.mean, 100 * lo, 100 * hi, float(d.ttest_mean(0)[1])


def _row(family, cand, baseline, yardstick, rule, test, look, runs, cells, verdict, level=0.95) -> Row:
    win = pooled([cell_differences(runs, c, n, "win") for c, n in cells], level)
    share = pooled([cell_differences(runs, c, n, "win_share") for c, n in cells], level)
    games = sum(len(cell_differences(runs, c, n)) for c, n in cells)
    return Row(family, cand, baseline, yardstick, rule, test, look, games, "win_share", *win, *share, np.nan,
               verdict, "results/search_root/")


def search_root_rows(root: Path) -> list[Row]:
    """The seed rows (module doc). The verdicts are the study's own (summary.json)."""
    runs = root / "results" / "search_root" / "runs"
    summary = json.loads((root / "results" / "search_root" / "summary.json").read_text(encoding="utf-8"))
    counts = (2, 3, 4)

    def said(adopt) -> str:
        return "adopted" if adopt else "not adopted"
    paired_rule = ("paired win share against heuristic, pooled over 2-4 players: 95% t interval above 0 "
                   "(with a head-to-head condition for gen3)")
    fixed = "fixed cells, 400 games a player count, paired deals"
    rows = [
        _row("anchor-1k vs heuristic", SPECS[c], "anchor-1k", "heuristic", paired_rule, fixed, 1, runs,
             [(c, n) for n in counts], said(summary[c]["adopt"] if c != "halving" else summary["adopt"]))
        for c in ("halving", "gen3", "tiles")]
    h2h_rule = "excess over the fair share against anchor-1k in every other seat, pooled: 95% t interval above 0"
    rows.append(_row("gen3 head to head", SPECS["gen3"], "anchor-1k", "anchor-1k", h2h_rule,
                     "fixed cells, 400 games a player count", 1, runs, [("gen3_h2h", n) for n in counts],
                     "fails (second look decided)"))
    rows.append(_row("gen3 head to head", SPECS["gen3"], "anchor-1k", "anchor-1k",
                     "both replicates pooled: 97.5% t interval above 0 (the second look, level halved)",
                     "fixed cells, 2 x 400 games a player count", 2, runs,
                     [(c, n) for c in ("gen3_h2h", "gen3_h2h_r2") for n in counts],
                     said(summary["gen3"]["replicate"]["adopt"]), level=0.975))
    return rows


def sprt_rows(folder: Path, source: str) -> list[Row]:
    """A row for each sequential test saved under folder (each sprt.json, as `thurn-ai sprt` writes it): its
    bounds and error rates as the rule, its looks, both conventions at the stop (t intervals, no p: the test's
    own verdict decides)."""
    rows = []
    for path in sorted(Path(folder).glob("**/sprt.json")):
        r = json.loads(path.read_text(encoding="utf-8"))
        t, win, share = r["test"], r["status"]["win"], r["status"]["win_share"]
        rule = (f"SPRT H0 {t['elo0']:+g} / H1 {t['elo1']:+g} points of paired difference, alpha {t['alpha']:g}, "
                f"beta {t['beta']:g}")
        test = f"sequential, paired deals, {r['players']} players, a look every {t['batch']} deals"
        verdict = {"accept H1": "accepted (H1)", "accept H0": "rejected (H0)"}.get(r["verdict"], r["verdict"])
        # the other seats: the baseline, or the test's opponents (the third spec its tournament.json names)
        plan = path.with_name("tournament.json")
        specs = json.loads(plan.read_text(encoding="utf-8")).get("specs", []) if plan.exists() else []
        yardstick = specs[2] if len(specs) > 2 else r["baseline"]
        family = f"{r['candidate']} vs {r['baseline']}" + (f" among {yardstick}" if yardstick != r["baseline"] else "")
        rows.append(Row(family, r["candidate"], r["baseline"], yardstick, rule,
                        test, r["deals"] // t["batch"], r["games"], "win", win["mean"], win["ci"][0], win["ci"][1],
                        np.nan, share["mean"], share["ci"][0], share["ci"][1], np.nan, np.nan, verdict,
                        f"{source}/{path.parent.relative_to(folder).as_posix()}"))
    return rows


def with_holm(rows: list[Row]) -> pd.DataFrame:
    """The rows as a frame, p_holm set over each family's first looks (on the primary convention's p)."""
    from statsmodels.stats.multitest import multipletests
    df = pd.DataFrame([asdict(r) for r in rows], columns=COLUMNS)
    for idx in df[df["look"] == 1].groupby("family").groups.values():
        p_col = np.where(df.loc[idx, "primary"] == "win", df.loc[idx, "win_p"], df.loc[idx, "share_p"])
        df.loc[idx, "p_holm"] = multipletests(p_col, method="holm")[1] if len(idx) > 1 else p_col
    return df


TITLE = "The ledger: every candidate tested against a baseline"


def ledger_table(df: pd.DataFrame) -> list[str]:
    """The ledger as a results page's body: what the columns mean, then one line a test's look."""
    lines = ["From committed games. Points of win share "
             "(paired difference, or excess over the fair share head to head), 95% t intervals (97.5% where the "
             "rule says so); `win`: the rules' tie-break, `share`: a shared first place as its share; the rule's "
             "primary convention is marked; Holm's correction over each family of tests that share a baseline's "
             "games, on the primary convention's p.\n",
             "| candidate | against | family | look | games | rule's primary | win [interval] | share [interval] "
             "| p (Holm) | verdict |", "|---|---|---|---:|---:|---|---:|---:|---:|---|"]
    for r in df.itertuples():
        holm = "" if pd.isna(r.p_holm) else f" ({r.p_holm:.3f})"
        p = r.win_p if r.primary == "win" else r.share_p
        p_text = "sequential" if pd.isna(p) else f"{p:.3f}{holm}"
        lines.append(f"| `{r.candidate}` | {r.baseline} ({r.yardstick}) | {r.family} | {r.look} | {r.games} | "
                     f"{r.primary} | {r.win:+.1f} [{r.win_lo:+.1f}, {r.win_hi:+.1f}] | {r.share:+.1f} "
                     f"[{r.share_lo:+.1f}, {r.share_hi:+.1f}] | {p_text} | {r.verdict} |")
    lines.append("\nEach candidate's rule and test: ledger.csv. A new candidate is decided by `thurn-ai sprt` "
                 "(docs/sprt.md), and its row added here with its bounds, looks and verdict.")
    return lines + [""]
