"""Is the move prior's form the limit? The conditional logit and a small MLP over the same 27 features, both
fitted to generations 1 and 2's training games and compared offline on their held-out decisions. Writes
results/expert/prior_mlp.csv (per player count and phase, and per count with the phases pooled) and
results/expert/prior_mlp.md (the report), prior_mlp_cv.csv (the MLP's cross-validation).

    python experiments/expert_prior_mlp.py               # the offline comparison (--part compare)
    python experiments/expert_prior_mlp.py --part fit    # a playable MLP prior: results/expert/prior_mlp.json

--part fit fits the MLP (prior_mlp.PLAY_HIDDEN hidden units, the penalty by cross-validation) to exactly the
shipped logit's data and target (its `meta`: generation 1's training games, its value share, fit.py's value
temperature and visit floor; phases with fewer than fit.MIN_DECISIONS decisions stay without a learned
prior) and writes results/expert/prior_mlp.json (meta: data, code, target, hidden, each phase's penalty) and
prior_mlp_fit_cv.csv. Play it with mcts(policy=learned,pmodel=results/expert/prior_mlp.json).

The MLP is thurn_ai/studies/expert/prior_mlp.py, the logit fit.py as shipped (the shipped weights' value
share of the target). No game is played. Results must come from committed code: the script refuses
uncommitted changes to the package, the core, the experiments or the build files, unless --allow-dirty, which
the outputs then say.
"""
from __future__ import annotations

import os

# the matrices are small: BLAS threads only contend for the cores (3-10x the CPU time on a loaded machine)
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import argparse  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import pandas as pd  # noqa: E402

from thurn_ai.fileio import atomic_to_csv, atomic_write_text  # noqa: E402
from thurn_ai.game.rules import PLAYER_COUNTS  # noqa: E402
from thurn_ai.learned.prior import PHASES, PriorModel  # noqa: E402
from thurn_ai.studies.expert import fit as F  # noqa: E402
from thurn_ai.studies.expert import prior_mlp as M  # noqa: E402
from thurn_ai.studies.expert.value_rank import paired_interval  # noqa: E402
from thurn_ai.studies.provenance import committed_code_or_exit, log_run  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "results" / "expert"          # the teacher data's folder, and the outputs' unless --out
FOLDERS = ("data", "gen2/data")            # generations 1 and 2's teacher data
METRICS = {"xent": "cross-entropy to the soft target (lower is better)",
           "top1": "favourite = the teacher's most-visited move",
           "share": "the teacher's visit share on the favourite"}


SMALL_PENALTY = min(F.PENALTIES) / 10      # a sensitivity: the logit penalised less than its grid allows


def compare(logit, mlp, small, keys: dict) -> dict:
    """One table row: both models' means on the same held-out decisions and MLP - logit with the
    game-bootstrap interval; `small`: the logit at SMALL_PENALTY's cross-entropy."""
    row = {**keys, "held_decisions": len(logit), "held_games": int(logit["game"].nunique()),
           "logit_small_penalty_xent": float(small["xent"].mean())}
    for m in METRICS:
        diff, lo, hi = paired_interval(logit, mlp, m)
        row.update({f"logit_{m}": float(logit[m].mean()), f"mlp_{m}": float(mlp[m].mean()),
                    f"{m}_diff": diff, f"{m}_low": lo, f"{m}_high": hi})
    return row


def report(table: pd.DataFrame, code: str, q_share: float, seconds: float) -> str:
    def cell(r, m, scale, digits):
        d, lo, hi = (scale * r[f"{m}_{k}"] for k in ("diff", "low", "high"))
        return f"{d:+.{digits}f} [{lo:+.{digits}f}, {hi:+.{digits}f}]"

    def counts(players) -> str:
        return ", ".join(str(p) for p in players) + " players" if players else "no player count"

    lines = ["| players | phase | train | held-out (games) | MLP: hidden, penalty | logit penalty | "
             "cross-entropy logit / MLP | MLP − logit | top-1 logit / MLP | MLP − logit (points) | "
             "visit share logit / MLP | MLP − logit (points) |", "|" + "---|" * 12]
    for r in table.itertuples():
        r = r._asdict()
        size = "" if r["phase"] == "all" else f"{int(r['mlp_hidden'])}, {r['mlp_penalty']:g}"
        pen = "" if r["phase"] == "all" else f"{r['logit_penalty']:g}"
        lines.append(
            f"| {r['players']} | {r['phase']} | {int(r['train_decisions'])} | {r['held_decisions']} "
            f"({r['held_games']}) | {size} | {pen} | {r['logit_xent']:.3f} / {r['mlp_xent']:.3f} | "
            f"{cell(r, 'xent', 1, 3)} | {100 * r['logit_top1']:.1f} / {100 * r['mlp_top1']:.1f} | "
            f"{cell(r, 'top1', 100, 1)} | {100 * r['logit_share']:.1f} / {100 * r['mlp_share']:.1f} | "
            f"{cell(r, 'share', 100, 1)} |")
    pooled = table[table["phase"] == "all"]
    lower = [int(p) for p, h in zip(pooled["players"], pooled["xent_high"]) if h < 0]
    top1 = [int(p) for p, lo, hi in zip(pooled["players"], pooled["top1_low"], pooled["top1_high"]) if lo > 0 or hi < 0]
    shows = (f"Pooled over phases, the MLP's held-out cross-entropy is below the logit's with the interval below "
             f"zero at {counts(lower)}; MLP − logit ranges {pooled['xent_diff'].min():+.3f} to "
             f"{pooled['xent_diff'].max():+.3f} nats a decision. Its top-1 agreement with the teacher differs "
             f"from the logit's with the interval excluding zero at {counts(top1)} (differences "
             f"{100 * pooled['top1_diff'].min():+.1f} to {100 * pooled['top1_diff'].max():+.1f} points).")
    small = (f"The logit penalised less ({SMALL_PENALTY:g}, below its grid): pooled held-out cross-entropy "
             + ", ".join(f"{r.logit_small_penalty_xent:.3f} against {r.logit_xent:.3f} at {r.players} players"
                         for r in pooled.itertuples()) + ".")
    return "\n".join([
        "# A small MLP move prior against the conditional logit (offline)", "",
        f"Made by `python experiments/expert_prior_mlp.py` at commit {code}, {seconds:.0f} CPU seconds. "
        "No game was played.", "",
        f"- **Data**: the teacher data of generations 1 and 2 (`results/expert/{FOLDERS[0]}`, "
        f"`results/expert/{FOLDERS[1]}`), fitted on the training games, measured on the held-out games "
        "(teacher.held_out; counts in the table).",
        f"- **Target**: fit.py's soft target, value share {q_share:g} (the shipped weights' `meta`).",
        f"- **Logit**: fit.py as shipped: L2 penalty from {list(F.PENALTIES)} by {F.FOLDS}-fold "
        "cross-validation over games.",
        "- **MLP** (thurn_ai/studies/expert/prior_mlp.py): score w·φ + v·tanh(Wφ + b), L2 on w, W and v; "
        f"hidden size from {list(M.HIDDEN)} and penalty from {list(M.PENALTIES)} by the same folds "
        "(`prior_mlp_cv.csv`); "
        f"L-BFGS-B (at most {M.MAXITER} iterations, ftol {M.FTOL:g}) from the logit's weights at the same "
        "penalty, hidden weights seeded (seed 0), one start.",
        "- **Intervals**: MLP − logit on the same held-out decisions, 95% bootstrap resampling whole games "
        "(1000 draws, seed 0). Phase `all`: the count's phases pooled, every decision weighing the same.", "",
        *lines, "", "What it shows: " + shows + " " + small, ""])


SHIPPED_DATA = "results/expert/data"        # the shipped logit's data (its meta says so: checked)


def fit_playable(args, code: str) -> None:
    """The MLP prior on the shipped logit's data and target, into args.out / prior_mlp.json."""
    start = time.process_time()
    shipped = PriorModel.load().meta
    target = {"q_share": float(shipped["q_share"]), "q_temp": F.Q_TEMP, "min_visits": F.MIN_VISITS}
    if shipped.get("data") != SHIPPED_DATA or shipped.get("q_temp") != F.Q_TEMP \
            or shipped.get("min_visits") != F.MIN_VISITS:
        raise SystemExit(f"error: the shipped prior's meta ({shipped}) no longer names {SHIPPED_DATA} and "
                         "fit.py's target: say which data and target the MLP should be fitted to")
    train, _held = F.load_groups(ROOT / SHIPPED_DATA, args.players, target["q_share"])
    fitted, cv = M.fit_prior(train, hidden=M.PLAY_HIDDEN)
    chosen = cv[cv["chosen"]]
    model = PriorModel(rows=fitted.rows, meta={
        "data": SHIPPED_DATA, "code": code, **target, "hidden": M.PLAY_HIDDEN, "penalty_grid": list(M.PENALTIES),
        "penalties": {f"{r.players}p {r.phase}": float(r.penalty) for r in chosen.itertuples()},
        "decisions": {f"{n}p": int(sum(len(d) for (m, _), d in train.items() if m == n)) for n in args.players}})
    model.save(args.out / "prior_mlp.json")
    atomic_to_csv(cv, args.out / "prior_mlp_fit_cv.csv", index=False)
    seconds = time.process_time() - start
    print(chosen.to_string(index=False), f"\n{seconds:.0f} CPU s", flush=True)
    log_run(args.out, "prior mlp fit", seconds, code, cpu_seconds=True, players=list(args.players),
            hidden=M.PLAY_HIDDEN, penalties=list(M.PENALTIES))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--part", choices=("compare", "fit"), default="compare")
    ap.add_argument("--players", type=lambda s: [int(x) for x in s.split(",")], default=list(PLAYER_COUNTS))
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument("--allow-dirty", action="store_true")
    args = ap.parse_args(argv)
    if not set(args.players) <= set(PLAYER_COUNTS):
        print(f"error: --players must be among {list(PLAYER_COUNTS)}", file=sys.stderr)
        return 2
    code = committed_code_or_exit(ROOT, args.allow_dirty)
    if args.part == "fit":
        fit_playable(args, code)
        return 0
    start = time.process_time()
    q_share = float(PriorModel.load().meta["q_share"])
    rows, cv = [], []
    for n in args.players:
        train, held = F.load_groups([OUT / f for f in FOLDERS], [n], q_share)
        frames = []
        for ph in range(len(PHASES)):
            d, h = train[(n, ph)], held[(n, ph)]
            if len(d) < F.MIN_DECISIONS or len(h) == 0:     # fit.fit_prior's floor: no learned prior there
                continue
            penalty, _ = F.choose_penalty(d)
            w = F.fit_weights(d, penalty)
            hidden, mpen, scores = M.choose(d)
            cv += [{"players": n, "phase": PHASES[ph], "hidden": hh, "penalty": pp, "cv_xent": x,
                    "chosen": (hh, pp) == (hidden, mpen)} for (hh, pp), x in scores.items()]
            logit = M.per_decision(F.probabilities(w, h), h)
            mlp = M.per_decision(M.fit_mlp(d, hidden, mpen).probabilities(h), h)
            small = M.per_decision(F.probabilities(F.fit_weights(d, SMALL_PENALTY), h), h)
            frames.append((logit, mlp, small))
            keys = {"players": n, "phase": PHASES[ph], "train_decisions": len(d), "logit_penalty": penalty,
                    "mlp_hidden": hidden, "mlp_penalty": mpen}
            rows.append(compare(logit, mlp, small, keys))
            print(f"{n} players, {PHASES[ph]}: hidden {hidden}, penalty {mpen:g} "
                  f"({time.process_time() - start:.0f} CPU s)", flush=True)
        logit, mlp, small = (pd.concat(f) for f in zip(*frames))
        rows.append(compare(logit, mlp, small,
                            {"players": n, "phase": "all",
                             "train_decisions": sum(r["train_decisions"] for r in rows if r["players"] == n)}))
    table = pd.DataFrame(rows)
    atomic_to_csv(table, args.out / "prior_mlp.csv", index=False)
    atomic_to_csv(pd.DataFrame(cv), args.out / "prior_mlp_cv.csv", index=False)
    seconds = time.process_time() - start
    atomic_write_text(args.out / "prior_mlp.md", report(table, code, q_share, seconds))
    print(table[["players", "phase", "held_decisions", "logit_xent", "mlp_xent", "xent_diff", "xent_low",
                 "xent_high", "top1_diff", "share_diff"]].to_string(index=False, float_format=lambda x: f"{x:.3f}"))
    log_run(args.out, "prior mlp", seconds, code, cpu_seconds=True, players=list(args.players),
            hidden=list(M.HIDDEN), penalties=list(M.PENALTIES))
    return 0


if __name__ == "__main__":
    sys.exit(main())
