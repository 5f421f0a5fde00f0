"""The rule card for a player (issue 53): the card against the heuristic's own rule at the same offers, and the
card as a constraint on the default search. Reproduces results/officials_card/.

    python experiments/officials_card.py --part baseline        # the heuristic asked at every offer (~2 CPU min)
    python experiments/officials_card.py --part constraint      # the design's games (resumes; long, see below)
    python experiments/officials_card.py --part constraint --pilot 12 --iterations 100 --players 2
                                                                # a pilot: 12 two-player games at 100 iterations
    python experiments/officials_card.py --part report          # the report from the saved files

The design of the constraint's games (card_play.CONSTRAINT: 400 / 402 / 400 games a count, seed 5300, paired
wins by the rules' tie-break, Holm across the three counts) was fixed before any of them; a pilot's games go to
results/officials_card/pilot/ and are labelled so. Cost (measured, docs/officials-design.md): 3.5 (2 players)
to 7.8 (4 players) CPU s a game at 1000 iterations (the pilot: 3.0 at 2 players), two cells a count: 4-5 CPU
hours for the design on one core.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import pandas as pd

from thurn_ai.fileio import atomic_to_csv, atomic_to_parquet, atomic_write_text
from thurn_ai.game.officials import OFFICIAL_LABEL
from thurn_ai.studies import provenance
from thurn_ai.studies.pages import refresh
from thurn_ai.studies.markdown import pct, pp, table
from thurn_ai.studies.officials import card_play as cp
from thurn_ai.studies.officials.plan import parse_players
from thurn_ai.studies.officials.rulecard import CARD
from thurn_ai.studies.officials.sided import export_module

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "results" / "officials_card"
OFFERS = ROOT / "results" / "officials" / "search_choices.parquet"
RECORDS = ROOT / "results" / "officials" / "records" / "search"
RAW = ROOT / "results" / "tmp_officials_card"
COMMAND = "python experiments/officials_card.py"


def baseline(out: Path) -> pd.DataFrame:
    """The heuristic's choice at every offer of the card's data (cached in host_choices.parquet), the table."""
    offers = pd.read_parquet(OFFERS)
    cache = out / "host_choices.parquet"
    keys = ["players", "source", "game", "move", "official"]
    cached = pd.read_parquet(cache) if cache.exists() else None
    if cached is not None and cached[keys].equals(offers[keys]):
        offers["host_used"] = cached.host_used.to_numpy()
    else:
        offers["host_used"] = cp.host_choices(offers, RECORDS)
        atomic_to_parquet(offers[[*keys, "host_used"]], cache, index=False)
    table_ = cp.baseline_table(offers)
    atomic_to_csv(table_, out / "baseline.csv", index=False, float_format="%.6g")
    return table_


def constraint(out: Path, pilot: int | None, iterations: int | None, jobs: int, players) -> None:
    standard = cp.STANDARD if iterations is None else cp.STANDARD.with_(iterations=iterations)
    frames = []
    for n, games in cp.CONSTRAINT["games"].items():
        if n not in players:
            continue
        frames.append(cp.play_constraint(n, pilot or games, cp.CONSTRAINT["seed"], standard,
                                         out_dir=(RAW / "pilot" if pilot else RAW), jobs=jobs))
        atomic_to_parquet(pd.concat(frames, ignore_index=True), out / "constraint_games.parquet", index=False)


def _baseline_lines(t: pd.DataFrame) -> list[str]:
    rows = [[r.players, OFFICIAL_LABEL[r.official], CARD.rule(r.players, r.official).text(), f"{r.offers:,}",
             f"{pct(r.card)} [{100 * r.card_lo:.1f}, {100 * r.card_hi:.1f}]",
             f"{pct(r.host)} [{100 * r.host_lo:.1f}, {100 * r.host_hi:.1f}]",
             pp(r.d_card_host, r.d_card_host_lo, r.d_card_host_hi)] for r in t.itertuples()]
    return ["## The card against the heuristic's own rule", "",
            "On the card's held-out offers (the games it was not fitted on), how often each reproduces the search's "
            "choice (use the official or not); the difference is paired offer by offer, its interval clustered by "
            "game. The heuristic's rule, in words: "
            + "; ".join(f"{OFFICIAL_LABEL[o]}: {text}" for o, text in cp.HOST_RULE.items()) + ".", "",
            *table(["players", "official", "the card", "offers", "card = search", "heuristic = search",
                    "card − heuristic"], rows), ""]


def _constraint_lines(out: Path) -> list[str]:
    path = out / "constraint_games.parquet"
    if not path.exists():
        return ["## The card as a constraint on the search", "", "Not played yet (`--part constraint`).", ""]
    t = cp.constraint_table(pd.read_parquet(path))
    atomic_to_csv(t, out / "constraint.csv", index=False, float_format="%.6g")
    rows = [[r.players, r.games, f"{pct(r.card_rate)} [{100 * r.card_lo:.1f}, {100 * r.card_hi:.1f}]",
             f"{pct(r.control_rate)} [{100 * r.control_lo:.1f}, {100 * r.control_hi:.1f}]",
             pp(r.d_win, r.d_win_lo, r.d_win_hi), f"{r.p_holm:.2g}", f"{100 * r.detectable:.0f} pp",
             f"{r.d_score:+.1f} [{r.d_score_lo:+.1f}, {r.d_score_hi:+.1f}]"] for r in t.itertuples()]
    return ["## The card as a constraint on the search", "",
            f"`{t.opponent.iloc[0]}` in every other seat; in the focus seat the same search held to the card's side "
            "at every offer, minus the unrestricted search in that seat on the same deals.", "",
            *table(["players", "games", "card-held search wins", "search wins", "difference (wins)", "Holm p",
                    "detects", "difference (score)"], rows), ""]


def report(out: Path, pilot: bool) -> None:
    lines = ["# The rule card for a player: the obvious baseline, and the card as a constraint", ""]
    if pilot:
        lines += ["**A pilot** of the constraint's games (fewer games, and perhaps fewer player counts or a smaller "
                  "search, than the design's card_play.CONSTRAINT; runs.json says which): it checks the pipeline; "
                  "its numbers are not the design's.", ""]
    base = out.parent / "baseline.csv" if pilot else out / "baseline.csv"
    if base.exists():
        lines += _baseline_lines(pd.read_csv(base))
    lines += _constraint_lines(out)
    lines += [f"Reproduce: `{COMMAND}`. Built at commit `{provenance.commit(ROOT)}`.", ""]
    atomic_write_text(out / "report.md", "\n".join(lines))
    refresh(out.parent if pilot else out)          # results/officials_card's front page and findings
    print(f"wrote {out / 'report.md'}")


@provenance.script_main
def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--part", choices=("baseline", "constraint", "report"), default="report")
    ap.add_argument("--pilot", type=int, default=None, metavar="GAMES", help="a pilot of GAMES games a count "
                    "(a multiple of 12), into OUT/pilot/")
    ap.add_argument("--iterations", type=int, default=None, help="the search's budget (a pilot's; default 1000)")
    ap.add_argument("--players", default="2,3,4", help="the player counts of the constraint's games (a pilot's)")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument("--allow-dirty", action="store_true")
    args = ap.parse_args(argv)
    if args.pilot is not None and (args.pilot < 12 or args.pilot % 12):
        print("error: --pilot takes a positive multiple of 12 games", file=sys.stderr)
        return 2
    players = parse_players(args.players)
    if (args.iterations is not None or players != (2, 3, 4)) and not args.pilot:
        print("error: --iterations and --players are for a pilot (the design plays its own)", file=sys.stderr)
        return 2
    export_module()             # worker processes register the sided bot by importing its module
    out = args.out / "pilot" if args.pilot else args.out
    provenance.check_clean(ROOT, args.allow_dirty or args.part == "report")
    out.mkdir(parents=True, exist_ok=True)
    code, t0, c0 = provenance.code_state(ROOT), time.time(), provenance.cpu_clock()
    if args.part == "baseline":
        baseline(out)
    elif args.part == "constraint":
        constraint(out, args.pilot, args.iterations, args.jobs, players)
    if args.part != "report":
        provenance.log_run(out, args.part, time.time() - t0, code, cpu_seconds=provenance.cpu_clock() - c0,
                           pilot=args.pilot, iterations=args.iterations)
    report(out, bool(args.pilot))
    return 0


if __name__ == "__main__":
    sys.exit(main())
