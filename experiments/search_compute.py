"""Compute where decisions are made (issue 69), decided by sequential tests: each candidate against the frozen
default `anchor-1k` on paired deals (`thurn-ai sprt`'s test), its base budget brought to anchor-1k's CPU a game
first; reproduces results/search_compute/.

    python experiments/search_compute.py --part calibrate     # CPU a game of every declared spec (calibration.csv)
    python experiments/search_compute.py --part test NAME ... # the declared tests (resume; games as they go)
    python experiments/search_compute.py --part report        # findings.json, README.md
    python experiments/carry_across_turns.py                  # carry.json: a tree kept across the others' turns

The tests, their bounds, caps and seeds are TESTS below, declared in results/search_compute/design.md before
their games (a test added later is declared there, and committed, before it starts). Calibration: each spec
against heuristic on the same CALIBRATION deals as anchor-1k, the CPU seconds its bot spends choosing (thread
time) a game, one process. Results must come from committed code: the script refuses uncommitted changes
unless --allow-dirty.
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from thurn_ai.fileio import atomic_to_csv
from thurn_ai.play.bench import timed_game
from thurn_ai.stats.sprt import SPRT
from thurn_ai.studies.findings import Findings, Number, front_page
from thurn_ai.studies.provenance import committed_code_or_exit, log_run, read_runs
from thurn_ai.studies.sprt import run_sprt

#: the line the results folder's front page opens with (docs/development.md, a study's life)
STATUS = ("benchmark. Sequential tests of the budget options against anchor-1k; their verdicts, not this "
          "line, say what was adopted (design.md).")

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "results" / "search_compute"
ANCHOR = "anchor-1k"
#: deals of the CPU calibration: (players, first seed, games), against heuristic
CALIBRATION = ((2, 67000, 6), (3, 67100, 6), (4, 67200, 6))


@dataclass(frozen=True)
class Declared:
    """One sequential test as declared before its games: the candidate, the player count, H1, the cap on deals,
    the seed its deals derive from (not used by any committed study); the other seats, the baseline and H0
    where they are not anchor-1k's and 0."""
    candidate: str
    players: int
    elo1: float
    max_deals: int
    seed: int
    opponents: str | None = None      # the other seats (None: the baseline)
    baseline: str = "anchor-1k"
    elo0: float = 0.0                 # H0 (a test of being level: H0 below 0, H1 0)

    def sprt(self) -> SPRT:
        return SPRT(elo0=self.elo0, elo1=self.elo1, alpha=0.05, beta=0.05, batch=8, max_deals=self.max_deals)


BUDGET = "mcts(reuse=silent,planned=houses,spend=phase,draws=2,iterations=1900)"
TESTS = {
    "budget_p2": Declared(BUDGET, 2, 10.0, 200, 69101),
    "budget_p3": Declared(BUDGET, 3, 8.0, 200, 69103),
    "budget_p4": Declared(BUDGET, 4, 8.0, 200, 69104),
    # hands inferred from the opponents' moves; equal iterations (declared: ~1% CPU; results/infer: 2.5-5.7%)
    "infer_p3": Declared("mcts(infer=policy)", 3, 8.0, 200, 69107),
    # a budget for the whole game, paced (spend=game); game=100000 matched anchor-1k's CPU a game within 4% at
    # 2-4 players (results/time_manager/)
    "time_p3": Declared("mcts(spend=game,game=100000,planned=houses)", 3, 8.0, 200, 69109),
    # SPSA's recommendation (experiments/retune.py, results/retune/recommended.csv); equal iterations
    "retune_p3": Declared("mcts(c=1.471,prior=0.771,mix=0.491,iterations=1000)", 3, 8.0, 200, 69105),
    # the budget candidate and anchor-1k in the focus seat, heuristic in the others
    "budget_heur_p3": Declared(BUDGET, 3, 8.0, 200, 69113, opponents="heuristic"),
    "budget_heur_p4": Declared(BUDGET, 4, 8.0, 200, 69114, opponents="heuristic"),
    # level with three times the compute? H0 -10 points (45% head to head), H1 0 (50%)
    "budget_vs3k_p2": Declared(BUDGET, 2, 0.0, 200, 69115, baseline="anchor-3k", elo0=-10.0),
}


def play_for_cpu(spec: str, players: int, seed: int) -> dict:
    """One game of `spec` against heuristic (seat seed mod players): its CPU seconds choosing, iterations,
    searches, visits carried."""
    tested, searches = seed % players, []

    def keep(player, _obs, result):
        if player == tested:
            searches.append(result)

    _table, _bots, cpu = timed_game(spec, players, seed, on_search=keep)
    return {"cpu": cpu[tested], "iterations": sum(r.iterations for r in searches), "searches": len(searches),
            "carried": sum(r.carried for r in searches)}


def part_calibrate(out: Path, code: str) -> None:
    specs = [ANCHOR, *dict.fromkeys(t.candidate for t in TESTS.values())]
    rows = []
    for players, first, games in CALIBRATION:
        for spec in specs:
            games_ = [play_for_cpu(spec, players, g) for g in range(first, first + games)]
            row = {"spec": spec, "players": players, "games": games, "code": code,
                   **{k: round(statistics.mean(g[k] for g in games_), 3) for k in games_[0]}}
            rows.append(row)
            print(json.dumps(row), flush=True)
    import pandas as pd
    atomic_to_csv(pd.DataFrame(rows), out / "calibration.csv", index=False)


def part_test(out: Path, names: list[str], jobs: int = 1) -> None:
    for name in names:
        t = TESTS[name]
        folder = out / name
        def look(r, name=name):
            print(f"{name}: {r.deals} deals, LLR {r.status['win'].llr:+.2f}", flush=True)

        result = run_sprt(t.candidate, t.baseline, players=t.players, test=t.sprt(), seed=t.seed,
                          opponents=t.opponents, jobs=jobs, out_dir=folder, resume=folder.exists(), on_look=look)
        print(result.line, flush=True)


def _seat_win(folder: Path, candidate: str) -> tuple[float, float, float, int]:
    """The candidate's win rate in its own seat (the rules' tie-break), a Wilson interval, its games."""
    import pandas as pd
    from statsmodels.stats.proportion import proportion_confint
    games = pd.read_csv(folder / "results.csv")
    wins = games.loc[games.spec == candidate, "win"]
    lo, hi = proportion_confint(int(wins.sum()), len(wins), alpha=0.05, method="wilson")
    return float(wins.mean()), float(lo), float(hi), len(wins)


def findings(out: Path, code: str) -> Findings:
    numbers, games = {}, {}
    for name, t in TESTS.items():
        path = out / name / "sprt.json"
        if not path.exists():
            continue
        r = json.loads(path.read_text())
        s = r["status"]["win"]
        if r["deals"] < 2:     # a test that has not played two deals has no interval yet
            continue
        games[name] = r["games"]
        numbers[f"{name}.diff"] = Number(s["mean"], s["ci"][0], s["ci"][1], "difference", games=r["games"],
                                         says=f"{t.candidate} minus {t.baseline} in the focus seat, {t.players} "
                                              f"players, {t.opponents or t.baseline} in the others, paired "
                                              f"(points); verdict {r['verdict']}")
        win, lo, hi, n = _seat_win(out / name, t.candidate)
        numbers[f"{name}.seat_win"] = Number(win, lo, hi, "share", games=n,
                                             says=f"the candidate's wins in its seat against "
                                                  f"{t.opponents or t.baseline}, {t.players} players (fair share "
                                                  f"{100 / t.players:.1f}%; Wilson 95%)")
        numbers[f"{name}.deals"] = Number(float(r["deals"]), unit="number", digits=0, games=r["games"],
                                          says=f"deals the test used (cap {t.max_deals})")
    calibration = out / "calibration.csv"
    if calibration.exists():
        import pandas as pd
        family = {t.candidate: name.split("_")[0] for name, t in TESTS.items()} | {ANCHOR: "anchor"}
        for row in pd.read_csv(calibration).itertuples():
            numbers[f"cpu.{family[row.spec]}.p{row.players}"] = Number(
                float(row.cpu), unit="number", digits=2, games=int(row.games),
                says=f"CPU seconds a game choosing, {row.spec} against heuristic, {row.players} players")
    carry = out / "carry.json"       # experiments/carry_across_turns.py: a tree kept across the others' turns
    if carry.exists():
        for n, c in json.loads(carry.read_text())["players"].items():
            for part, words in (("first_opponent_move", "after the first other player's move"),
                                ("next_turn", "at the searcher's next turn")):
                numbers[f"carry.p{n}.{part}"] = Number(
                    c[part]["share_mean"], unit="share", digits=2, games=c["games"],
                    says=f"visits a kept anchor-1k tree still holds {words}, mean share of its 1000, {n} players "
                         f"({c['boundaries']} turns)")
    return Findings(status=STATUS, study="search_compute", title="Compute where decisions are made (issue 69)",
                    command="python experiments/search_compute.py", commit=code, numbers=numbers, games=games,
                    played_at=tuple(sorted({r["code"] for r in read_runs(out)})))


def verdict_lines(out: Path) -> list[str]:
    """Each finished test's verdict, as `thurn-ai sprt` prints it."""
    lines = ["## Verdicts", ""]
    for name in TESTS:
        path = out / name / "sprt.json"
        if path.exists():
            lines.append(f"- **{name}**: {json.loads(path.read_text())['line']}")
    return [*lines, ""]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--part", choices=("calibrate", "test", "report"), required=True)
    ap.add_argument("names", nargs="*", help="test: the declared tests to run (default: all)")
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument("--jobs", type=int, default=1, help="test: games in parallel processes")
    ap.add_argument("--allow-dirty", action="store_true")
    args = ap.parse_args(argv)
    unknown = sorted(set(args.names) - set(TESTS))
    if unknown:
        print(f"error: no declared test {', '.join(unknown)} (declared: {', '.join(TESTS)})", file=sys.stderr)
        return 2
    code = committed_code_or_exit(ROOT, args.allow_dirty)
    args.out.mkdir(parents=True, exist_ok=True)
    start = time.time()
    if args.part == "calibrate":
        part_calibrate(args.out, code)
    elif args.part == "test":
        part_test(args.out, args.names or list(TESTS), args.jobs)
    else:
        front_page(args.out, findings(args.out, code),
                   ["Design and adoption rule: [design.md](design.md); calibration: calibration.csv; every test's "
                    "per-game table (results.csv) and its sprt.json: one folder each (the games' full records, "
                    "records.jsonl, stay out of git: a rerun from the seed plays them again).", "",
                    *verdict_lines(args.out)])
    if args.part != "report":
        log_run(args.out, args.part, time.time() - start, code, tests=args.names or list(TESTS))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
