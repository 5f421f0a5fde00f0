"""thurn-ai league: round robins of a field of bots at 2, 3 and 4 players, rated (play/league.py, stats/rating.py)."""
from __future__ import annotations

import sys
import time
from pathlib import Path

import click

from ..bots import split_specs
from ..errors import ThurnError
from ..fileio import path_text
from .options import COUNTS, GAMES, JOBS, SEED, OutputFolder, bot_module_option


@click.command("league")
@click.option("--bots", "bots_text", default=None,
              help="Comma-separated bot specs [default: the field, thurn_ai.bots.field.FIELD].")
@click.option("--add", "added", default=None, help="Bots to add to the field (comma-separated), e.g. mcts.")
@click.option("--players", type=COUNTS, default=COUNTS.ALL, show_default=True, help=COUNTS.HELP)
@click.option("--games", type=GAMES, default=None,
              help="Games at each player count [default: one whole seating cycle].")
@click.option("--seed", type=SEED, default=0, show_default=True, help="League seed.")
@click.option("--jobs", type=JOBS, default=1, show_default=True, help="Local worker processes.")
@click.option("--scheduler", default=None, metavar="ADDRESS", help="Run the games on a Dask cluster.")
@bot_module_option
@click.option("--anchor", default="heuristic", show_default=True, help="The bot rated 0.")
@click.option("--bootstrap", type=GAMES, default=200, show_default=True, help="Game resamples for the intervals.")
@click.option("--out", "out_dir", type=OutputFolder(), default=None,
              help="Folder for the games (p2/, p3/, p4/) and ratings [default: league/YYYYMMDD-HHMMSS, the time it "
                   "started].")
@click.option("--resume", is_flag=True, help="Continue the league in --out (the same bots and seed).")
@click.option("--progress/--no-progress", default=True, show_default=True, help="Progress bar on stderr.")
def command(bots_text, added, players, games, seed, jobs, scheduler, anchor, bootstrap, out_dir, resume, progress):
    """Play a league (round robins, mixed tables at 3 and 4 players, seats rotated) and print ratings.

    Writes OUT/ratings.csv and OUT/ratings.png. Example: thurn-ai league --bots heuristic,racer,greedy --games 60"""
    from ..bots.field import FIELD_SPECS
    from ..bots.spec import make_bot
    from ..play.league import run_league
    from ..studies.league_report import league_ratings, write_tables
    from ..stats.rating import ratings_markdown
    specs = split_specs(bots_text) if bots_text else list(FIELD_SPECS)
    specs += split_specs(added) if added else []
    if anchor not in specs:
        raise ThurnError(f"the anchor {anchor!r} is not among the bots ({', '.join(specs)})")
    if resume and out_dir is None:
        raise ThurnError("--resume needs --out: the folder of the league to continue")
    out = Path(out_dir or f"league/{time.strftime('%Y%m%d-%H%M%S')}")
    counts = [int(n) for n in players.split(",")]
    for spec in specs:
        make_bot(spec)          # an unknown bot or option is refused before any folder is made
    click.echo(f"league: {', '.join(specs)}; {players} players; games in {path_text(out)}", err=True)
    try:
        results = run_league(specs, players=counts, games=games, seed=seed, jobs=jobs, out_dir=out,
                             resume="auto" if resume else False,
                             scheduler=scheduler, progress=progress)
    except KeyboardInterrupt:
        click.echo(f"interrupted: finished games are saved; continue with --out {path_text(out)} --resume", err=True)
        sys.exit(130)
    tables = league_ratings(results, anchor=anchor, bootstrap=bootstrap, seed=seed)
    write_tables(out, tables, anchor)
    for n, table in tables.items():
        click.echo(ratings_markdown(table, n) + "\n")
