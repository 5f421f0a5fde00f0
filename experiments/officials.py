"""What each official is worth, to whom and when, and the first-seat advantage: reproduces results/officials/.

    python experiments/officials.py                   # everything (resumes an interrupted run)
    python experiments/officials.py --part ablation   # only the ablation tournaments of every study
    python experiments/officials.py --part choice     # only the value at the moment of choice (both ratings)
    python experiments/officials.py --part validation # only the validation by play (the rated bot)
    python experiments/officials.py --part turns      # only the turn question (which official this turn)
    python experiments/officials.py --part records    # keep the games' records (compressed) for readers
    python experiments/officials.py --cost            # what each part will cost, then stop
    python experiments/officials.py --scheduler tcp://host:8786   # play and rate on a Dask cluster
    python experiments/officials.py --part report     # rebuild report, tables, plots from the saved data
    python experiments/officials.py --quick --allow-dirty   # a tiny smoke run into a temporary folder
    python experiments/officials.py --budget 2=1000,3=1000,4=1000 --games 2=200,3=402,4=200

Two studies (docs/officials.md):
  heuristic  the rule-based bot: per player count a control tournament (every seat the bot) and one per
             official (one rotating seat with it forbidden); its first control games are also rated by the
             search (value at the moment of choice in the heuristic bot's positions);
  search     the default search (thurn_ai.bots.default_search.DEFAULT_SEARCH's options, as `thurn-ai hint`)
             at a budget where it beats the heuristic bot (results/learned/strength/README.md), the same
             tournaments, and its control games rated by the same search.
The report compares them (usage, timing, what the heuristic bot's choices give away) and their seats.
The search study's decisions are rated twice (each side's most visited move by its own mean, and that move
re-rated by an independent search), and the validation by play pits the `rated` bot, which follows a
rating at every offer of an official, against the standard bot (games fixed before the run from the
precision wanted). Before playing, the script prints what each part will cost.

Results must come from committed code: the script refuses to run when the package, the core, the
experiments or the build files have uncommitted changes (tracked or new files), unless --allow-dirty,
which marks the report as not reproducible. The report names the commit it was built at and runs.json
the commits the games were played with. Tournaments and rated decisions are appended as they finish under
OUT/raw/ (not committed), so an interrupted run continues where it stopped when started again with the
same settings.
"""
from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from thurn_ai.studies.officials import run
from thurn_ai.bots.spec import BotSpec
from thurn_ai.errors import BotSpecError
from thurn_ai.studies.officials.plan import StudyError, parse_players
from thurn_ai.studies.officials.rated import CELLS
from thurn_ai.studies.pages import refresh
from thurn_ai.studies.provenance import check_clean, code_state, commit, script_main

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "results" / "officials"


def per_count(text: str | None, what: str) -> dict | None:
    """'2=200,3=201,4=200' (or one number for 2, 3 and 4 players) as {players: n}; None for None."""
    if text is None:
        return None
    try:
        parts = [p for p in text.split(",") if p.strip()]
        if len(parts) == 1 and "=" not in parts[0]:
            out = {n: int(parts[0]) for n in (2, 3, 4)}
        else:
            out = {int(k): int(v) for k, v in (p.split("=") for p in parts)}
    except ValueError:
        raise argparse.ArgumentTypeError(f"{what} {text!r}: expected e.g. 2=200,3=201,4=200") from None
    if not out or any(n not in (2, 3, 4) or v < 1 for n, v in out.items()):
        raise argparse.ArgumentTypeError(f"{what} {text!r}: player counts 2, 3, 4 and positive numbers")
    return out


def parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--part", choices=("ablation", "choice", "validation", "turns", "records", "report", "all"),
                    default="all", help="which part to run (default: all, then the records and the report)")
    ap.add_argument("--scheduler", default=None,
                    help="a Dask scheduler address (tcp://host:8786) to play and rate the games on")
    ap.add_argument("--cost", action="store_true", help="print what each part will cost, then stop")
    ap.add_argument("--validation-games", type=lambda t: per_count(t, "validation games"), default=None,
                    help="games per cell of the validation by play (default: enough to find 3 points off "
                         "1/n, " + ",".join(f"{k}={v}" for k, v in run.VALIDATION_GAMES.items()) + ")")
    ap.add_argument("--ratings", default=None,
                    help="the validation's cells at every player count: the ratings the rated bot follows "
                         f"and their controls ({', '.join(CELLS)}; default "
                         + "; ".join(f"{n} players {','.join(c)}" for n, c in run.VALIDATION_RATINGS.items()) + ")")
    ap.add_argument("--quick", action="store_true", help="a tiny smoke run (into a temporary folder)")
    ap.add_argument("--out", type=Path, default=None, help="output folder (default results/officials)")
    ap.add_argument("--only", default=None, help="run only these studies (comma-separated: heuristic, search)")
    ap.add_argument("--jobs", type=int, default=None, help="worker processes (default: every core)")
    ap.add_argument("--budget", type=lambda t: per_count(t, "budget"), default=None,
                    help="iterations per decision of the search study by player count "
                         f"(default {','.join(f'{k}={v}' for k, v in run.SEARCH_BUDGET.items())})")
    ap.add_argument("--games", type=lambda t: per_count(t, "games"), default=None,
                    help="games per tournament of the search study by player count "
                         f"(default {','.join(f'{k}={v}' for k, v in run.SEARCH_GAMES.items())})")
    ap.add_argument("--choice-games", type=lambda t: per_count(t, "choice games"), default=None,
                    help="control games of the search study whose decisions are rated, by player count "
                         f"(default {','.join(f'{k}={v}' for k, v in run.SEARCH_CHOICE_GAMES.items())})")
    ap.add_argument("--choice-iterations", type=lambda t: per_count(t, "choice iterations"), default=None,
                    help="iterations of each rating search by player count (default: the search study's budget)")
    ap.add_argument("--search-bot", default="mcts",
                    help="the search study's bot, which also rates its decisions: an mcts spec whose options "
                         "replace the default search's (default mcts; e.g. mcts(policy=learned,mix=0.5) "
                         "for the learned move prior); the budget is --budget's")
    ap.add_argument("--players", default="2,3,4",
                    help="player counts of the search study and of the rated decisions (default 2,3,4; the "
                         "heuristic study's ablation always has all three)")
    ap.add_argument("--allow-dirty", action="store_true",
                    help="run with uncommitted code changes (the report says it is not reproducible)")
    ap.add_argument("--report-only", action="store_true", help="the same as --part report")
    return ap


def command_text(args) -> str:
    """The command that reproduces this run, for the report."""
    return "python experiments/officials.py" + (" --quick" if args.quick else "") + (
        f" --players {args.players}" if args.players != "2,3,4" and not args.quick else "") + (
        f" --search-bot '{args.search_bot}'" if args.search_bot != "mcts" and not args.quick else "") + "".join(
        f" --{k.replace('_', '-')} " + ",".join(f"{n}={v}" for n, v in sorted(getattr(args, k).items()))
        for k in ("budget", "games", "choice_games", "choice_iterations", "validation_games") if getattr(args, k))


def run_options(args, out: Path) -> run.RunOptions:
    """The options read: the texts of --players, --only, --ratings and --search-bot parsed here (StudyError
    or BotSpecError naming the option)."""
    try:
        players = parse_players(args.players)
    except StudyError as e:
        raise StudyError(f"--players: {e}") from None
    try:
        search_bot = BotSpec.parse(args.search_bot)
    except BotSpecError as e:
        raise StudyError(f"--search-bot: {e}") from None
    names = lambda text: None if text is None else tuple(t.strip() for t in text.split(",") if t.strip())  # noqa: E731
    return run.RunOptions(out, args.quick, players, args.budget, args.games, args.choice_games,
                          args.choice_iterations, names(args.only), names(args.ratings), args.validation_games,
                          search_bot)


def reachable(address: str | None) -> str | None:
    """None when there is no scheduler or it answers; else the message naming the problem."""
    if not address:
        return None
    from thurn_ai.play.tournament import TournamentError, connect
    try:
        connect(address).close()
    except TournamentError as e:
        return str(e)
    return None


@script_main
def main(argv=None) -> int:
    ap = parser()
    args = ap.parse_args(argv)
    dirty = check_clean(ROOT, args.allow_dirty)
    # What this process plays with is the code as it is now: its modules are loaded (and its workers forked)
    # from it, whatever is edited or committed while the run goes on.
    played_with = code_state(ROOT)
    part = "report" if args.report_only else args.part
    out = args.out or (Path(tempfile.gettempdir()) / "thurn-officials-quick" if args.quick else OUT)
    try:
        plan = run.run_plan(run_options(args, out))
    except (StudyError, BotSpecError) as e:
        ap.error(str(e))
    problem = reachable(args.scheduler) if part not in ("report", "records") else None
    if problem:
        print(f"error: {problem}", file=sys.stderr)
        return 2
    if part not in ("report", "records") or args.cost:
        print("validation by play, games a cell fixed before the run (3 points off 1/n, 80% power, 5% two-sided): "
              + ", ".join(f"{n} players {g}" for n, g in sorted(plan.vgames.items())), flush=True)
        run.print_costs(plan.chosen, plan.searchers, "all" if args.cost else part, plan.vgames, plan.ratings,
                        plan.tgames)
    if args.cost:
        return 0
    run.run_parts(plan, part, played_with, args.jobs, args.scheduler)
    run.report(plan.chosen_all, plan.searchers, plan.out, command_text(args), [] if args.quick else run.NOTES, dirty,
               commit(ROOT), against_design=not args.quick,
               advice=ROOT / "docs" / "officials-advice.md" if not args.quick and plan.out.resolve() == OUT.resolve()
               else None)
    refresh(plan.out, commit(ROOT))
    return 0


if __name__ == "__main__":
    sys.exit(main())
