"""The sequential test's error rates and lengths, and the committed search-root cells replayed through it:
reproduces results/sprt/ (no new games).

    python experiments/sprt.py          # simulation.csv, replay.csv, findings.json, README.md

Declared before reading the cells: the test SPRT(elo0=0, elo1=3 points, alpha=0.05, beta=0.05, batch=8 deals),
the primary convention `win` (the rules' tie-break), SIMS simulated tests at each bound and player count (the
paired differences drawn from the real spread of the paired candidate cells, moved to the bound's mean),
seed SEED. Results must come from committed code: the script refuses uncommitted changes unless --allow-dirty.
"""
from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from thurn_ai.fileio import atomic_to_csv, atomic_write_text
from thurn_ai.stats.sprt import SPRT
from thurn_ai.studies.provenance import committed_code_or_exit, log_run
from thurn_ai.studies.sprt_study import replay, simulated

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "results" / "sprt"
RUNS = ROOT / "results" / "search_root" / "runs"
TEST = SPRT(elo0=0.0, elo1=3.0, alpha=0.05, beta=0.05, batch=8)
SIMS = 1000
SEED = 6801


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument("--sims", type=int, default=SIMS)
    ap.add_argument("--allow-dirty", action="store_true")
    args = ap.parse_args(argv)
    code = committed_code_or_exit(ROOT, args.allow_dirty)
    start = time.time()
    args.out.mkdir(parents=True, exist_ok=True)
    sim = simulated(RUNS, TEST, args.sims, SEED)
    atomic_to_csv(sim.round(4), args.out / "simulation.csv", index=False)
    rep = replay(RUNS, TEST)
    atomic_to_csv(rep.round(3), args.out / "replay.csv", index=False)
    findings = {
        **{f"sim.{r.players}p.{r.at}.{k}": round(float(getattr(r, k)), 4)
           for r in sim.itertuples() for k in ("accept_h1", "accept_h0", "mean_deals", "median_deals")},
        **{f"replay.{r.cell}.{r.players}p": {"verdict": r.verdict, "deals": int(r.deals), "games_fixed": int(r.games),
                                             "mean": round(r.mean, 1), "shared_verdict": r.shared_verdict}
           for r in rep.itertuples()},
    }
    atomic_write_text(args.out / "findings.json", json.dumps(findings, indent=1) + "\n")
    atomic_write_text(args.out / "README.md", _readme(sim, rep, code))
    log_run(args.out, "sprt", time.time() - start, code, sims=args.sims)
    return 0


def _readme(sim, rep, code: str) -> str:
    lines = ["# The sequential test: error rates, lengths, and the search-root cells replayed\n",
             f"Produced by `python experiments/sprt.py` at commit {code} (no games played). Test: H0 {TEST.elo0:+g} / "
             f"H1 {TEST.elo1:+g} points of paired difference, alpha {TEST.alpha}, beta {TEST.beta}, a look every "
             f"{TEST.batch} deals; primary convention `win` (the rules' tie-break).\n",
             "## Simulated at the bounds\n",
             f"{SIMS} tests at each bound, paired differences drawn from the spread of the committed paired cells "
             "(halving, gen3, tiles against the anchor's deals), moved to the bound's mean.\n",
             "| players | true mean | sd of d | accepted H1 | accepted H0 | mean deals | median | 90% |",
             "|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in sim.itertuples():
        lines.append(f"| {r.players} | {r.true_mean:+g} ({r.at}) | {r.sd} | {100 * r.accept_h1:.1f}% | "
                     f"{100 * r.accept_h0:.1f}% | {r.mean_deals:.0f} | {r.median_deals:.0f} | {r.p90_deals:.0f} |")
    lines += ["\n## The committed cells replayed in game order\n",
              "A paired cell's deal is its game and the anchor's game on the same deal (2 games, one of them shared "
              "by every candidate); a head-to-head cell's deal is one game, scored against the fair share. "
              "`continue`: the cell ended before the test decided.\n",
              "| cell | players | fixed games | verdict | deals used | mean [95%] at the stop | whole cell | "
              "shared-share verdict |", "|---|---:|---:|---|---:|---:|---:|---|"]
    for r in rep.itertuples():
        lines.append(f"| {r.cell} | {r.players} | {r.games} | {r.verdict} | {r.deals} | {r.mean:+.1f} "
                     f"[{r.lo:+.1f}, {r.hi:+.1f}] | {r.fixed_mean:+.1f} | {r.shared_verdict} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    raise SystemExit(main())
