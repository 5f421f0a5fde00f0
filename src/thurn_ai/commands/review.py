"""thurn-ai review: where each player of a recorded game lost their chances (a thin layer over
thurn_ai.play.review, which a program or notebook can use directly)."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from ..errors import PositionError
from ..fileio import finite_json, path_text
from .options import (ITERATIONS, JOBS, SEED, GAME_INDEX, OutputFile, check_output_file, check_plot_format,
                      data_board_file_option, force_option)


def parse_seats(text: str | None) -> list[int] | None:
    """--seats '0,2' as [0, 2] (None: every seat); a click.BadParameter for anything else."""
    if text is None:
        return None
    try:
        seats = sorted({int(x) for x in text.split(",") if x.strip()})
    except ValueError:
        raise click.BadParameter(f"{text!r} is not a list of seat numbers such as 0,2", param_hint="--seats") from None
    if not seats:
        raise click.BadParameter("name at least one seat, e.g. 0 or 0,2", param_hint="--seats")
    return seats


def parse_moves(text: str | None) -> range | None:
    """--moves '40-80' (move numbers as the review prints them, from 1; both ends included) as the range of
    move indexes from 0; '40' alone is one move. None: every move."""
    if text is None:
        return None
    first, _, last = text.partition("-")
    try:
        lo, hi = int(first), int(last or first)
    except ValueError:
        raise click.BadParameter(f"{text!r} is not a range of moves such as 40-80", param_hint="--moves") from None
    if not 1 <= lo <= hi:
        raise click.BadParameter(f"{text!r}: moves are numbered from 1, the first no later than the last",
                                 param_hint="--moves")
    return range(lo - 1, hi)


@click.command("review")
@click.argument("record", type=click.Path())
@click.option("--game", "game", type=GAME_INDEX, default=1, show_default=True,
              help="Which game: the line of a record file (1 = first), or a tournament folder's game number.")
@click.option("--seats", default=None, metavar="0,2", help="The seats to review (default: every seat).")
@click.option("--moves", default=None, metavar="40-80",
              help="Review only the decisions at these moves (numbered from 1, as the review prints them).")
@click.option("--budget", type=ITERATIONS, default=None,
              help="Search iterations per decision (default: thurn_ai.play.review.DEFAULT_BUDGET, 3000); "
                   "more for a deeper, slower review.")
@click.option("--bot", "bot", default="mcts", show_default=True,
              help="The searching bot (hint's configuration of it), e.g. mcts(c=0.5).")
@click.option("--seed", type=SEED, default=0, show_default=True, help="Seed of the searches and re-deals.")
@click.option("--jobs", type=JOBS, default=1, show_default=True, help="Decisions searched in parallel processes.")
@click.option("--scheduler", default=None, metavar="ADDRESS",
              help="Search the decisions on a Dask cluster, e.g. tcp://host:8786 (--jobs is then ignored).")
@click.option("--png", "png", type=OutputFile("plot"), default=None,
              help="Also draw every reviewed seat's win chance over the game, marks at labelled moves (the "
                   "format from the suffix: .png, .pdf, .svg...).")
@force_option
@click.option("--json", "as_json", is_flag=True, help="Print the whole review as JSON.")
@click.option("--explain", is_flag=True,
              help="Also say how sure the win chances are: whom they assume, how well they held, what ± means.")
@click.option("--table", "table", is_flag=True,
              help="For a game of bots that do not search: play every move the search labels a mistake or a "
                   "blunder on at the table that played (the others' bots, and the player as heuristic, after the "
                   "move played and after the best, from 16 deals) and rate it by that, not by the search (which "
                   "assumes players like itself). Slower: a 3-player game of heuristic bots took 28 s against 12 s "
                   "on 2 cores.")
@click.option("--no-cache", is_flag=True,
              help="Search again even if this review was cached (the cache: $THURN_AI_CACHE/reviews, else "
                   "~/.cache/thurn-ai/reviews).")
@data_board_file_option("game record")
def command(record, game, seats, moves, budget, bot, seed, jobs, scheduler, png, force, as_json, explain,
            table, no_cache, board_file):
    """Review a recorded game: for each decision of the chosen seats, searches from that player's information
    only rate the move played against the best move, each by the best continuation of the turn after it; the
    loss of expected final points is labelled inaccuracy, mistake or blunder where two searches agree, and each
    seat gets an accuracy, its total loss and its worst turns.

    RECORD is a game record file (JSON lines, as `play --record`, `tournament` and the board write them) or a
    tournament's output folder.

    Example: thurn-ai review game.jsonl --seats 0 --png review.png"""
    from tqdm import tqdm
    from ..bots.spec import BotSpec
    from ..play.review import DEFAULT_BUDGET, default_cache_dir, load_record, review
    from ..play.review_table import TABLE_DEALS
    from ..play.review_text import review_lines
    seat_list = parse_seats(seats)
    move_range = parse_moves(moves)
    if png is not None:          # before the work: never the record, nor a user's file without --force
        source = Path(record) / "records.jsonl" if Path(record).is_dir() else record
        check_output_file(png, "--png", "plot", force, inputs=(source, board_file))
        check_plot_format(png, "--png")
    rec, name = load_record(record, game, board_file)
    spec = BotSpec.parse(bot)            # the spec's text read here, at the edge; the library takes the value
    if seat_list is not None and max(seat_list) >= rec.rules.players:
        raise PositionError(f"--seats {seats}: the game has seats 0-{rec.rules.players - 1}")
    client = None
    if scheduler is not None:
        from ..play.workers import connect
        client = connect(scheduler)
    with tqdm(desc="decisions", unit="decision", file=sys.stderr, dynamic_ncols=True, leave=False,
              disable=None) as bar:
        def progress(done, total):
            bar.total = total
            bar.update(done - bar.n)
        try:
            r = review(rec, seats=seat_list, budget=budget or DEFAULT_BUDGET, bot=spec, seed=seed, jobs=jobs,
                       client=client, progress=progress, moves=move_range, table_deals=TABLE_DEALS if table else 0,
                       cache_dir=None if no_cache else default_cache_dir())
        except PositionError as e:
            raise PositionError(f"{name}: {e}") from None
    if png is not None:
        from ..stats.review_plot import save_review_png
        save_review_png(r, png, title=f"review of {name}")
    if as_json:
        click.echo(json.dumps(finite_json({"record": name, **r.to_dict(), "png": png}), ensure_ascii=False))
        return
    replay = None if Path(record).is_dir() else \
        f"thurn-ai replay {path_text(record)}" + (f" --game {game}" if game != 1 else "")
    for line in review_lines(r, name, replay, explain=explain):
        click.echo(line)
    if png is not None:
        click.echo(f"wrote {path_text(png)}")
