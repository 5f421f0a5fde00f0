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
    from thurn_ai.tournament import run_tournament

    c = STRENGTH_CHECK
    df = run_tournament(c["specs"], players=c["players"], games=c["games"], seed=SEED, jobs=jobs,
                        out_dir=out / "raw" / "strength_check", resume=True, progress=False)
    per_bot = df.groupby("spec").agg(wins=("win", "sum"), score=("score", "mean"))
    parts = [f"`{spec}` won {int(r.wins)} (mean score {r.score:.1f})" for spec, r in per_bot.iterrows()]
    return (f"Strength check: in {c['games']} {c['players']}-player games (seed {SEED}, seats alternating) "
            + " and ".join(parts) + ".")


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


def run_study(s: Study, out: Path, jobs, timing: dict) -> None:
    """Play (or resume) one study; its wall time accumulates over resumed runs in timing, and the code it
    was played with is noted in raw/<study>/played_with.txt (one line per run)."""
    folder = out / "raw" / s.name
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / "played_with.txt", "a", encoding="utf-8") as f:
        f.write(code_state() + "\n")
    t0 = time.time()
    study.run_ablation(s.bot, s.players, s.games, SEED, s.officials, jobs=jobs, out_dir=out / "raw" / s.name,
                       resume=True, progress=False, log=lambda m: print(m, flush=True))
    timing[s.name] = timing.get(s.name, 0.0) + time.time() - t0


def played_with(folder: Path) -> str:
    """The code every run of a study played with (distinct lines of played_with.txt)."""
    try:
        lines = (folder / "played_with.txt").read_text(encoding="utf-8").splitlines()
    except OSError:
        return "unknown"
    return "; then ".join(x for x in dict.fromkeys(lines) if x)


def report(studies: list[Study], out: Path, command: str, timing: dict, notes: list[str]) -> None:
    analyses, meta = {}, {"command": command, "commit": commit(), "studies": {}, "plots": {}, "notes": notes}
    for s in studies:
        df = study.load_ablation(out / "raw" / s.name, s.bot, s.players, s.officials)
        planned = sum(study.rotation_games(s.games, n) for n in s.players) * (1 + len(s.officials))
        if df.groupby(["players", "official"]).game.nunique().sum() < planned:
            print(f"note: {s.name} is unfinished; the report covers the games played so far", flush=True)
        a = study.analyse(df)
        analyses[s.name] = a
        meta["plots"][s.name] = study.save_study(df, a, out, prefix=f"{s.name}_", title=f"{s.bot}: what each official is worth")
        meta["studies"][s.name] = {"bot": s.bot, "games": s.games, "seed": SEED, "budget": s.budget,
                                   "wall_minutes": timing.get(s.name, 0) / 60,
                                   "game_length": study.control_facts(df),
                                   "played_with": played_with(out / "raw" / s.name)}
        print(f"== {s.name}: {s.bot}\n{study.format_text(a)}\n", flush=True)
    (out / "report.md").write_text(study.build_report(analyses, meta), encoding="utf-8")
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
    timing_file = out / "raw" / "timing.json"

    def read_timing():
        return json.loads(timing_file.read_text()) if timing_file.exists() else {}

    if not args.report_only:
        for s in studies:
            spent = {}
            run_study(s, out, args.jobs, spent)
            timing = read_timing()  # re-read: another study may run in a second process
            timing[s.name] = timing.get(s.name, 0.0) + spent[s.name]
            timing_file.parent.mkdir(parents=True, exist_ok=True)
            timing_file.write_text(json.dumps(timing, indent=1))
    timing = read_timing()
    command = "python experiments/officials.py" + (" --quick" if args.quick else "")
    all_studies = QUICK if args.quick else STUDIES
    done = [s for s in all_studies if all((out / "raw" / s.name / c.name).is_dir()
                                          for c in study.plan(s.players, s.officials))]
    notes = [] if args.quick else NOTES + [strength_check(out, args.jobs)]
    report(done, out, command, timing, notes)
    return 0


if __name__ == "__main__":
    sys.exit(main())
