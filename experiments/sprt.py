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
import time
from pathlib import Path

from thurn_ai.fileio import atomic_to_csv
from thurn_ai.stats.sprt import SPRT
from thurn_ai.studies.findings import Findings, Number, front_page
from thurn_ai.studies.provenance import committed_code_or_exit, log_run
from thurn_ai.studies.sprt_study import replay, simulated

#: the line the results folder's front page opens with (docs/development.md, a study's life)
STATUS = ("benchmark. The sequential test's error rates and lengths in simulation, the search-root cells "
          'replayed through it, and one real test (racer against heuristic).')

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "results" / "sprt"
RUNS = ROOT / "results" / "search_root" / "runs"
TEST = SPRT(elo0=0.0, elo1=3.0, alpha=0.05, beta=0.05, batch=8)
SIMS = 1000
SEED = 6801
TITLE = "The sequential test: error rates, lengths, and the search-root cells replayed"


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
    numbers = {}
    for r in sim.itertuples():
        key = f"sim.{r.players}p.{r.at}"
        numbers[f"{key}.accept_h1"] = Number(r.accept_h1, unit="share", digits=1, games=args.sims,
                                             says=f"share of simulated tests accepting H1, true mean at {r.at}")
        numbers[f"{key}.mean_deals"] = Number(r.mean_deals, unit="number", digits=0, games=args.sims,
                                              says=f"mean deals a simulated test used, true mean at {r.at}")
        numbers[f"{key}.fixed_deals"] = Number(float(r.fixed_deals), unit="number", digits=0,
                                               says="deals a fixed-sample test needs for the same error rates")
    for r in rep.itertuples():
        numbers[f"replay.{r.cell}.{r.players}p.deals"] = Number(
            float(r.deals), unit="number", digits=0, games=int(r.games),
            says=f"deals the test used on the committed cell ({r.verdict}; shared share: {r.shared_verdict})")
    findings = Findings(status=STATUS, study=args.out.name,
                        title=TITLE, command="python experiments/sprt.py", commit=code,
                        numbers=numbers, games={"simulated tests": 6 * args.sims})
    front_page(args.out, findings, _body(sim, rep, args.sims))
    log_run(args.out, "sprt", time.time() - start, code, sims=args.sims)
    return 0


def _body(sim, rep, sims: int) -> list[str]:
    lines = [f"No games played. Test: H0 {TEST.elo0:+g} / "
             f"H1 {TEST.elo1:+g} points of paired difference, alpha {TEST.alpha}, beta {TEST.beta}, a look every "
             f"{TEST.batch} deals; primary convention `win` (the rules' tie-break).\n",
             "## Simulated at the bounds\n",
             f"{sims} tests at each bound, paired differences drawn from the spread of the committed paired cells "
             "(halving, gen3, tiles against the anchor's deals), moved to the bound's mean.\n",
             "`fixed`: the deals a fixed-sample one-sided test needs for the same alpha and beta between the same "
             "bounds.\n",
             "| players | true mean | sd of d | accepted H1 | accepted H0 | mean deals | median | 90% | fixed |",
             "|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in sim.itertuples():
        lines.append(f"| {r.players} | {r.true_mean:+g} ({r.at}) | {r.sd} | {100 * r.accept_h1:.1f}% | "
                     f"{100 * r.accept_h0:.1f}% | {r.mean_deals:.0f} | {r.median_deals:.0f} | {r.p90_deals:.0f} | "
                     f"{r.fixed_deals} |")
    lines += ["\n## The committed cells replayed in game order\n",
              "A paired cell's deal is its game and the anchor's game on the same deal (2 games, one of them shared "
              "by every candidate); a head-to-head cell's deal is one game, scored against the fair share. "
              "`continue`: the cell ended before the test decided.\n",
              "| cell | players | fixed games | verdict | deals used | mean [95%] at the stop | whole cell | "
              "shared-share verdict |", "|---|---:|---:|---|---:|---:|---:|---|"]
    for r in rep.itertuples():
        lines.append(f"| {r.cell} | {r.players} | {r.games} | {r.verdict} | {r.deals} | {r.mean:+.1f} "
                     f"[{r.lo:+.1f}, {r.hi:+.1f}] | {r.fixed_mean:+.1f} | {r.shared_verdict} |")
    return lines + [""]


if __name__ == "__main__":
    raise SystemExit(main())
