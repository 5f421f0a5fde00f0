"""What each official is worth, to whom and when, and the first-seat advantage: reproduces results/officials/.

    python experiments/officials.py             # the full study (defaults = what produced results/officials/)
    python experiments/officials.py --quick     # a tiny smoke run into a temporary folder
    python experiments/officials.py --report-only   # rebuild report, tables and plots from the saved games

Each study plays, per player count, a control tournament (the full bot in every seat) and one tournament
per official (one rotating seat with that official forbidden against full bots); see thurn_ai/officials_study.py
and docs/officials.md. Tournaments are appended game by game under OUT/raw/ (not committed), so an
interrupted run continues where it stopped when started again with the same settings.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from thurn_ai import officials_study as study
from thurn_ai.bots.officials import OFFICIALS
from thurn_ai.fileio import atomic_write_text

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "results" / "officials"
SEED = 1


@dataclass(frozen=True)
class Study:
    name: str
    bot: str
    players: tuple[int, ...]
    games: dict  # per tournament (control and each official), by player count
    budget: str
    officials: tuple[str, ...] = OFFICIALS


# The large sample comes from the rule-based bot (fast, plays every official). ISMCTS gets a smaller 2-player
# run: does a search bot value the officials the same way?
STUDIES = [
    Study("heuristic", "heuristic", (2, 3, 4), {2: 360, 3: 180, 4: 180},
          "rule-based heuristic bot, no search (deterministic given the cards)"),
    Study("mcts", "mcts(iterations=300)", (2,), {2: 80},
          "ISMCTS, 300 iterations per decision, heuristic playouts, one thread"),
]
NOTES = [
    "An official's worth is measured for a bot: what that bot makes of it. A positive Δ means the bot does "
    "better without the official, i.e. its way of using it does harm - a finding about the bot, not the game.",
    "The ISMCTS run is small (2 players, 80 games per tournament), and at 300 iterations a decision ISMCTS is "
    "much weaker than the heuristic bot (see the strength check below), so it says what the officials are "
    "worth to a weaker, search-based player.",
]
QUICK = [Study("quick", "heuristic", (2, 3), {2: 6, 3: 6}, "rule-based heuristic bot (smoke run)")]


# How strong the two studied bots are relative to each other (a note in the report).
STRENGTH_CHECK = {"specs": ["mcts(iterations=300)", "heuristic"], "players": 2, "games": 20}


def strength_check(out: Path, jobs) -> str:
    """A sentence on the two bots' relative strength; played into OUT/raw/strength_check (or resumed there),
    or, without that folder, taken from OUT/runs.json where the last result is kept."""
    from thurn_ai.tournament import run_tournament

    c = STRENGTH_CHECK
    folder = out / "raw" / "strength_check"
    saved = log_run(out, "").get("strength_check")
    if saved and not folder.exists():
        return saved
    df = run_tournament(c["specs"], players=c["players"], games=c["games"], seed=SEED, jobs=jobs,
                        out_dir=folder, resume="auto", progress=False)
    per_bot = df.groupby("spec").agg(wins=("win", "sum"), score=("score", "mean"))
    parts = [f"`{spec}` won {int(r.wins)} (mean score {r.score:.1f})" for spec, r in per_bot.iterrows()]
    sentence = (f"Strength check: in {c['games']} {c['players']}-player games (seed {SEED}, seats alternating) "
                + " and ".join(parts) + ".")
    runs = log_run(out, "")
    runs["strength_check"] = sentence
    atomic_write_text(out / "runs.json", json.dumps(runs, indent=1) + "\n")
    return sentence


def commit() -> str:
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True,
                              text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def code_state() -> str:
    """The commit the games are played with, and any uncommitted changes to the package or the core."""
    try:
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no", "--", "thurn_ai", "cext"],
                               cwd=ROOT, capture_output=True, text=True, check=True).stdout.split("\n")
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    changed = sorted(line[3:] for line in dirty if line.strip())
    return commit() + (f" with uncommitted changes to {', '.join(changed)}" if changed else "")


def log_run(out: Path, name: str, seconds: float = 0.0, played_with: str | None = None) -> dict:
    """OUT/runs.json (committed with the results): per study the wall time over all its runs and the code
    each run played with. Re-read before every write, as two studies may run in two processes."""
    path = out / "runs.json"
    runs = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    if name:
        entry = runs.setdefault(name, {"seconds": 0.0, "played_with": []})
        entry["seconds"] += seconds
        if played_with and played_with not in entry["played_with"]:
            entry["played_with"].append(played_with)
        atomic_write_text(path, json.dumps(runs, indent=1) + "\n")
    return runs


def run_study(s: Study, out: Path, jobs) -> None:
    """Play (or resume) one study into OUT/raw/<name>/."""
    log_run(out, s.name, played_with=code_state())
    t0 = time.time()
    study.run_ablation(s.bot, s.players, s.games, SEED, s.officials, jobs=jobs, out_dir=out / "raw" / s.name,
                       resume=True, progress=False, log=lambda m: print(m, flush=True))
    log_run(out, s.name, seconds=time.time() - t0)


def study_games(s: Study, out: Path):
    """The study's games: from its tournaments in OUT/raw if they are there, else from the committed
    OUT/<name>_games.parquet; None if neither exists."""
    if all((out / "raw" / s.name / c.name).is_dir() for c in study.plan(s.players, s.officials)):
        df = study.load_ablation(out / "raw" / s.name, s.bot, s.players, s.officials)
        planned = sum(study.rotation_games(s.games, n) for n in s.players) * (1 + len(s.officials))
        if df.groupby(["players", "official"]).game.nunique().sum() < planned:
            print(f"note: {s.name} is unfinished; the report covers the games played so far", flush=True)
        return df
    saved = out / f"{s.name}_games.parquet"
    return study.load_study(saved) if saved.exists() else None


def report(studies: list[Study], out: Path, command: str, notes: list[str]) -> None:
    runs = log_run(out, "")
    analyses, meta = {}, {"command": command, "commit": commit(), "studies": {}, "plots": {}, "notes": notes}
    for s in studies:
        df = study_games(s, out)
        if df is None:
            continue
        a = study.analyse(df)
        analyses[s.name] = a
        meta["plots"][s.name] = study.save_study(df, a, out, prefix=f"{s.name}_",
                                                 title=f"{s.bot}: what each official is worth")
        run = runs.get(s.name, {})
        meta["studies"][s.name] = {"bot": s.bot, "games": s.games, "seed": SEED, "budget": s.budget,
                                   "wall_minutes": run.get("seconds", 0) / 60,
                                   "played_with": "; then ".join(run.get("played_with", [])) or "unknown",
                                   "game_length": study.control_facts(df)}
        print(f"== {s.name}: {s.bot}\n{study.format_text(a)}\n", flush=True)
    atomic_write_text(out / "report.md", study.build_report(analyses, meta))
    print(f"wrote {out / 'report.md'}")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="a tiny smoke run (into a temporary folder)")
    ap.add_argument("--out", type=Path, default=None, help=f"output folder (default {OUT.relative_to(ROOT)})")
    ap.add_argument("--only", default=None, help="run only these studies (comma-separated names)")
    ap.add_argument("--jobs", type=int, default=None, help="worker processes (default: every core)")
    ap.add_argument("--report-only", action="store_true", help="rebuild the report from the saved games")
    args = ap.parse_args(argv)

    studies = QUICK if args.quick else STUDIES
    out = args.out or (Path(tempfile.gettempdir()) / "thurn-officials-quick" if args.quick else OUT)
    if args.only:
        names = set(args.only.split(","))
        unknown = names - {s.name for s in studies}
        if unknown:
            ap.error(f"unknown study {', '.join(sorted(unknown))}; have {', '.join(s.name for s in studies)}")
        studies = [s for s in studies if s.name in names]
    out.mkdir(parents=True, exist_ok=True)
    if not args.report_only:
        for s in studies:
            run_study(s, out, args.jobs)
    command = "python experiments/officials.py" + (" --quick" if args.quick else "")
    notes = [] if args.quick else NOTES + [strength_check(out, args.jobs)]
    report(QUICK if args.quick else STUDIES, out, command, notes)
    return 0


if __name__ == "__main__":
    sys.exit(main())
