"""thurn-ai tournament: many games between bots, balanced seats, statistics; resumable and parallel."""
from __future__ import annotations

import json
import sys
import time

import click

from ..bots import split_specs
from ..errors import ThurnError
from ..fileio import path_text
from click.core import ParameterSource

from .options import (OutputFolder, bot_module_option, GAMES, JOBS, PLAYERS, SEED, announce_board, game_options,
                      rules_from)


@click.command("tournament")
@click.option("--bots", "bots_text", default=None,
              help="Comma-separated bot specs, e.g. 'mcts(iterations=300),greedy'. Each plays every seat "
                   "equally often. Required, except on --resume (the saved bots).")
@click.option("--players", type=PLAYERS, default=2, show_default=True, help="Players per game: 2, 3 or 4.")
@click.option("--games", type=GAMES, default=None,
              help="Number of games [default: 100 rounded up to whole seating cycles; on --resume the saved "
                   "number]. Seats are balanced over each whole cycle.")
@click.option("--seed", type=SEED, default=0, show_default=True,
              help="Tournament seed; game N's seed derives from it (see docs/tournaments.md).")
@click.option("--jobs", type=JOBS, default=None, help="Local worker processes [default: every core].")
@bot_module_option
@game_options
@click.option("--out", "out_dir", type=OutputFolder(), default=None,
              help="Folder for the results (appended as games end) [default: tournaments/YYYYMMDD-HHMMSS, "
                   "the time it started].")
@click.option("--resume", is_flag=True,
              help="Continue the interrupted tournament in --out with the settings saved there (tournament.json); "
                   "a setting given as well must agree with them.")
@click.option("--scheduler", default=None, metavar="ADDRESS",
              help="Run the games on a Dask cluster, e.g. tcp://host:8786 (--jobs is then ignored).")
@click.option("--json", "as_json", is_flag=True, help="Print the statistics as JSON.")
@click.option("--verbose", is_flag=True,
              help="Print every table: score parts, officials, seats, game lengths (default: the results only).")
@click.option("--progress/--no-progress", default=True, show_default=True, help="Progress bar on stderr.")
def command(bots_text, players, games, seed, jobs, board, variant, board_file, english_tile, out_dir, resume,
            scheduler, as_json, verbose, progress):
    """Play a tournament between bots and print win rates, scores, seats and ratings.

    Example: thurn-ai tournament --bots "mcts(iterations=300),greedy" --games 20 --seed 1"""
    from ..stats.summary import format_summary, summarize, summary_to_json
    from ..play.tournament import check_jobs, check_out_folder, check_players, games_to_play, plan_tournament, run_plan

    from ..play.tournament.resume import has_saved_tournament
    if resume and out_dir is None:
        raise ThurnError("--resume needs --out: the folder of the tournament to continue")
    if resume and (bots_text is None or has_saved_tournament(out_dir)):
        specs, players, seed, rules = _saved_settings(out_dir, bots_text, players, seed, board, variant,
                                                      board_file, english_tile)
    else:
        if bots_text is None:
            raise click.UsageError("missing option '--bots'", ctx=click.get_current_context())
        specs = split_specs(bots_text)
        check_players(players)
        rules = rules_from(players, board, variant, board_file, english_tile)
    if out_dir is None:
        out_dir = f"tournaments/{time.strftime('%Y%m%d-%H%M%S')}"
    jobs = check_jobs(jobs)
    # every bad setting fails here, before any output; the plan is then played as it is
    plan = plan_tournament(specs, players, games_to_play(games, out_dir, resume), seed, rules=rules)
    check_out_folder(out_dir, resume)
    where = f"the Dask cluster at {scheduler}" if scheduler else f"{jobs} local process(es)"
    click.echo(f"tournament: {', '.join(specs)}; {players} players; results in {path_text(out_dir)} "
               f"(continue with --out {path_text(out_dir)} --resume); games on {where}", err=True)
    from ..play.workers import stop_on_ctrl_c
    try:
        with stop_on_ctrl_c():      # Ctrl-C: "stopping..." at once, the workers stopped, saved games kept
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
    from ..render.text import tile_names
    more = (f"more -- score parts, officials, seats, game lengths: --verbose, or thurn-ai report "
            f"{path_text(out_dir)} (with plots)")
    click.echo(format_summary(summary, title, tile_names(rules.load_board(), rules.all_provinces_tile == "english"),
                              verbose=verbose, more=more))


_SHOWN = {"bots": "--bots", "players": "--players", "seed": "--seed", "board": "--board", "variant": "--variant",
          "tile": "--english-tile"}


def _saved_settings(out_dir, bots_text, players, seed, board, variant, board_file, english_tile):
    """The settings saved in out_dir; an option given on the command line must agree with them."""
    from ..play.tournament.resume import resume_settings
    ctx = click.get_current_context()

    def given(name, value):
        src = ctx.get_parameter_source(name)
        return None if src in (None, ParameterSource.DEFAULT, ParameterSource.DEFAULT_MAP) else value

    s = resume_settings(out_dir, specs=None if bots_text is None else split_specs(bots_text),
                        players=given("players", players), seed=given("seed", seed),
                        board=given("board", board), variant=variant,
                        all_provinces_tile="english" if english_tile else None, board_file=board_file)
    if s.conflicts:
        name, now, saved = s.conflicts[0]
        show = (lambda v: ",".join(v)) if name == "bots" else (lambda v: v)
        given_text = _SHOWN[name] if name == "tile" else f"{_SHOWN[name]} {show(now)}"
        saved_text = "played without it" if name == "tile" else f"{name} {show(saved)}"
        raise ThurnError(f"{given_text} contradicts the tournament saved in {path_text(out_dir)} ({saved_text}); "
                         f"leave {_SHOWN[name]} out to continue it, or start a new one in another --out folder")
    announce_board(s.rules.load_board())
    return s.specs, s.players, s.seed, s.rules
