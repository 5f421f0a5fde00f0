"""thurn-ai tournament: many games between bots, balanced seats, statistics; resumable and parallel."""
from __future__ import annotations

import json
import sys
import time

import click

from ..bots import split_specs
from ..errors import ThurnError
from ..fileio import path_text
from .options import GAMES, JOBS, PLAYERS, SEED, game_options, rules_from


@click.command("tournament")
@click.option("--bots", "bots_text", required=True,
              help="Comma-separated bot specs, e.g. 'mcts(iterations=300),greedy'. Each plays every seat "
                   "equally often.")
@click.option("--players", type=PLAYERS, default=2, show_default=True, help="Players per game: 2, 3 or 4.")
@click.option("--games", type=GAMES, default=None,
              help="Number of games [default: 100 rounded up to whole seating cycles; on --resume the saved "
                   "number]. Seats are balanced over each whole cycle.")
@click.option("--seed", type=SEED, default=0, show_default=True,
              help="Tournament seed; game N's seed derives from it (see docs/tournaments.md).")
@click.option("--jobs", type=JOBS, default=None, help="Local worker processes [default: every core].")
@game_options
@click.option("--out", "out_dir", type=click.Path(file_okay=False), default=None,
              help="Folder for the results (appended as games end) [default: tournaments/<date-time>].")
@click.option("--resume", is_flag=True, help="Continue the interrupted tournament in --out.")
@click.option("--scheduler", default=None, metavar="ADDRESS",
              help="Run the games on a Dask cluster, e.g. tcp://host:8786 (--jobs is then ignored).")
@click.option("--json", "as_json", is_flag=True, help="Print the statistics as JSON.")
@click.option("--progress/--no-progress", default=True, show_default=True, help="Progress bar on stderr.")
def command(bots_text, players, games, seed, jobs, board, variant, board_file, english_tile, out_dir, resume,
            scheduler, as_json, progress):
    """Play a tournament between bots and print win rates, scores, seats and ratings.

    Example: thurn-ai tournament --bots "mcts(iterations=300),greedy" --games 20 --seed 1"""
    from ..stats.summary import format_summary, summarize, summary_to_json
    from ..play.tournament import check_jobs, check_out_folder, check_players, games_to_play, plan_tournament, run_plan

    specs = split_specs(bots_text)
    if resume and out_dir is None:
        raise ThurnError("--resume needs --out: the folder of the tournament to continue")
    if out_dir is None:
        out_dir = f"tournaments/{time.strftime('%Y%m%d-%H%M%S')}"
    check_players(players)
    jobs = check_jobs(jobs)
    rules = rules_from(players, board, variant, board_file, english_tile)
    # every bad setting fails here, before any output; the plan is then played as it is
    plan = plan_tournament(specs, players, games_to_play(games, out_dir, resume), seed, rules=rules)
    check_out_folder(out_dir, resume)
    where = f"the Dask cluster at {scheduler}" if scheduler else f"{jobs} local process(es)"
    click.echo(f"tournament: {', '.join(specs)}; {players} players; results in {path_text(out_dir)} "
               f"(continue with --out {path_text(out_dir)} --resume); games on {where}", err=True)
    try:
        df = run_plan(plan, jobs=jobs, out_dir=out_dir, resume=resume, scheduler=scheduler, progress=progress)
    except KeyboardInterrupt:
        click.echo(f"interrupted: finished games are saved; continue with --out {path_text(out_dir)} --resume",
                   err=True)
        sys.exit(130)       # not re-raised: the command line would add its own "interrupted" line
    summary = summarize(df)
    if as_json:
        click.echo(json.dumps({"out": out_dir, "specs": specs, "seed": seed, "rules": rules.to_dict(),
                               "summary": summary_to_json(summary)}, indent=2, ensure_ascii=False))
        return
    title = (f"{rules.load_board().name} board, {rules.resolved_variant} rules, seed {seed}; "
             f"results in {out_dir}")
    click.echo(format_summary(summary, title))
