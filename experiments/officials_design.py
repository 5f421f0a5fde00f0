"""The officials for a designer (issue 53): symmetric ablations -- every seat never uses an official, every seat
takes it whenever offered, and the normal game -- with the game's measures (length, margin, spread, seat
advantage, lead changes, how it ends, tile and carriage points), paired over deals. Reproduces
results/officials_design/.

    python experiments/officials_design.py                          # play the design (resumes), report
    python experiments/officials_design.py --part report            # the report from the saved games
    python experiments/officials_design.py --host heuristic         # one population of the design only
    python experiments/officials_design.py --pilot 24 --host heuristic
                                              # a pilot: 24 games a cell, into results/officials_design/pilot/

The design (thurn_ai.studies.officials.symmetric: DESIGN, SEED, RULE) was fixed before any game: the hosts
(today's default mcts at 1000 iterations; the heuristic), 2, 3 and 4 players, the 9 variants, 600 games a
heuristic cell and 204 a search cell, one seed a host and count (paired deals), and the reading rule (Holm
across the variants and counts of one host and measure). Cost on one core (measured, docs/officials-design.md):
about 0.6 CPU s a heuristic game (the pilot; about 3 CPU hours for its 27 cells of 600 games), and 3.5 (2
players) to 7.8 (4 players) CPU s a normal game of the search, more in the variants that lengthen the game
(9-12 CPU hours for its 27 cells of 204 games; --jobs spreads them).

Tournaments are kept under results/tmp_officials_design/ (ignored by git; a run resumes there); each cell's
games (one row a game, the measures) are saved to games.parquet after it, with a checksum of its content, and
the report is rebuilt from that; a games.parquet that is damaged or was edited is refused, never used.
A cell games.parquet already holds in full is not played again (a run resumes from it where the tournaments
are gone).
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import pandas as pd

from thurn_ai.fileio import atomic_to_csv, atomic_write_text
from thurn_ai.studies import provenance
from thurn_ai.studies.pages import refresh
from thurn_ai.studies.officials import symmetric as sym
from thurn_ai.studies.officials import symmetric_report as rep
from thurn_ai.studies.officials.sided import export_module

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "results" / "officials_design"
RAW = ROOT / "results" / "tmp_officials_design"
GAMES = "games.parquet"
COMMAND = "python experiments/officials_design.py"


def design(hosts, pilot: int | None) -> tuple:
    """The design's cells of these hosts (a pilot: `pilot` games each instead)."""
    cells = [c for c in sym.DESIGN if c.host in hosts]
    return tuple(sym.DesignCell(c.host, c.players, c.variant, pilot) if pilot else c for c in cells)


def of_cell(games: pd.DataFrame, cell) -> pd.Series:
    """The rows of games.parquet that are the cell's games."""
    return (games.host == cell.host) & (games.players == cell.players) & (games.variant == cell.variant)


def saved(games: pd.DataFrame, cell) -> bool:
    """Whether games.parquet already holds all of the cell's games (1..games): a run on another machine, whose
    raw tournaments are gone, resumes after the last saved cell instead of playing it again."""
    return bool(len(games)) and sorted(games[of_cell(games, cell)].game) == list(range(1, cell.games + 1))


def play(cells, out: Path, raw: Path, jobs: int, code: str = "") -> None:
    """Play (or resume) the cells in order, saving every finished cell's games to out/games.parquet and its
    run (code, wall and CPU seconds) to out/runs.json, so a run stopped at a session's end keeps its cost."""
    path = out / GAMES
    games = sym.load_games(path) if path.exists() else pd.DataFrame()      # checked: never trusted as read
    for cell in cells:
        if saved(games, cell):
            print(f"[design] {cell.host}, {cell.players} players, {cell.variant}: saved", flush=True)
            continue
        print(f"[design] {cell.host}, {cell.players} players, {cell.variant}: {cell.games} games", flush=True)
        t0, c0 = time.time(), provenance.cpu_clock()
        done = sym.play_cell(cell, raw, jobs=jobs)
        if len(games):
            games = games[~of_cell(games, cell)]
        games = pd.concat([games, done], ignore_index=True)
        sym.save_games(games, path)
        provenance.log_run(out, "design", time.time() - t0, code, cpu_seconds=provenance.cpu_clock() - c0,
                           cells=1, hosts=[cell.host], players=cell.players, variant=cell.variant,
                           games=cell.games)


def report(out: Path, cells, pilot: bool, command: str) -> None:
    games = sym.load_games(out / GAMES)
    levels, comparison = sym.levels_table(games), sym.comparison_table(games)
    atomic_to_csv(levels, out / "levels.csv", index=False, float_format="%.6g")
    atomic_to_csv(comparison, out / "comparison.csv", index=False, float_format="%.6g")
    plots = [p for p in (rep.write_plot(comparison, out, h) for h in sym.HOSTS) if p]
    commit = provenance.commit(ROOT)
    text = rep.report(games, levels, comparison, rep.planned_table(games, cells), commit, command, plots, pilot)
    atomic_write_text(out / "report.md", text)
    refresh(out.parent if pilot else out)          # results/officials_design's front page and findings
    print(f"wrote {out / 'report.md'} ({len(games)} games, {len(comparison)} comparisons)")


@provenance.script_main
def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--part", choices=("play", "report", "all"), default="all")
    ap.add_argument("--host", action="append", choices=tuple(sym.HOSTS), help="a population (default: both)")
    ap.add_argument("--pilot", type=int, default=None, metavar="GAMES",
                    help="a pilot of GAMES games a cell (whole rotations: a multiple of 12), into OUT/pilot/")
    ap.add_argument("--jobs", type=int, default=1, help="worker processes (default 1)")
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument("--allow-dirty", action="store_true",
                    help="run with uncommitted code changes (the report then names a commit that is not the code)")
    args = ap.parse_args(argv)
    if args.pilot is not None and (args.pilot < 12 or args.pilot % 12):
        print("error: --pilot takes a positive multiple of 12 games", file=sys.stderr)
        return 2
    hosts = tuple(args.host or sym.HOSTS)
    out = args.out / "pilot" if args.pilot else args.out
    raw = RAW / "pilot" if args.pilot else RAW
    cells = design(hosts, args.pilot)
    export_module()             # worker processes register the sided bot by importing its module
    command = (COMMAND + "".join(f" --host {h}" for h in args.host or ())
               + (f" --pilot {args.pilot}" if args.pilot else ""))
    provenance.check_clean(ROOT, args.allow_dirty or args.part == "report")
    out.mkdir(parents=True, exist_ok=True)
    if args.part in ("play", "all"):
        play(cells, out, raw, args.jobs, provenance.code_state(ROOT))
    report(out, cells, bool(args.pilot), command)
    return 0


if __name__ == "__main__":
    sys.exit(main())
