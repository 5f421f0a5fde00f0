"""thurn-ai replay: step through a recorded game."""
from __future__ import annotations

import click

from ..errors import PositionError
from ..fileio import path_text
from ..play.match import read_records, replay, score_details
from ..render.text import describe_end, move_line
from .options import GAME_INDEX, data_board_file_option


@click.command("replay")
@click.argument("record_file", type=click.Path(dir_okay=False))
@click.option("--game", "game_index", type=GAME_INDEX, default=1, show_default=True,
              help="Which game of the file (1 = first line).")
@data_board_file_option("game record")
@click.option("--step", is_flag=True, help="Wait for Enter after each turn.")
@click.option("--quiet", is_flag=True, help="Print only the result (and check that it matches).")
def command(record_file, game_index, board_file, step, quiet):
    """Replay a game record exactly and print its moves turn by turn."""
    records = read_records(record_file, board_file=board_file)
    if not 1 <= game_index <= len(records):
        n = len(records)
        raise PositionError(f"{path_text(record_file)} holds {n} game{'s' if n != 1 else ''}; "
                            f"--game {game_index} is out of range (1-{n})")
    rec = records[game_index - 1]
    last = [-1]

    def log(state, p, move):
        if quiet:
            return
        if state.turn != last[0]:
            if step and last[0] >= 0:
                click.prompt("", default="", show_default=False, prompt_suffix="")
            last[0] = state.turn
            click.echo(f"turn {state.turn + 1:>3}  seat {p} ({rec.bots[p]})")
        click.echo(f"          {move_line(state, move)}")

    try:
        final = replay(rec, on_move=log)
    except PositionError as e:
        raise PositionError(f"{path_text(record_file)} game {game_index}: {e}") from None
    if rec.scores and final.scores() != rec.scores:
        raise PositionError(f"replay ends with scores {final.scores()}, the record says {rec.scores}")
    rec.ranking, rec.winner, rec.turns = final.ranking(), final.winner(), final.turn
    rec.details = score_details(final)
    for line in describe_end(rec, final.board):
        click.echo(line)
    if not final.is_terminal():
        click.echo("(the record ends before the game does)")
