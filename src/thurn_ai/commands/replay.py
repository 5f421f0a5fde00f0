"""thurn-ai replay: step through a recorded game."""
from __future__ import annotations

import json

import click

from ..errors import PositionError
from ..fileio import path_text
from ..play.match import read_records, replay, score_details, state_at_turn
from ..render.text import describe_end, move_line, render_view
from .options import GAME_INDEX, OutputFile, check_output_file, data_board_file_option, force_option


@click.command("replay")
@click.argument("record_file", type=click.Path(dir_okay=False))
@click.option("--game", "game_index", type=GAME_INDEX, default=1, show_default=True,
              help="Which game of the file (1 = first line).")
@data_board_file_option("game record")
@click.option("--step", is_flag=True,
              help="Show the board before each turn and wait: Enter for the next turn, q to stop.")
@click.option("--at", "at_turn", type=GAME_INDEX, default=None,
              help="Instead: show the position at the start of turn N (as the log numbers turns).")
@click.option("--move", "at_move", type=GAME_INDEX, default=None,
              help="Instead: show the position where move N was decided (before it; moves numbered from 1, as "
                   "the log below and `thurn-ai review` number them) and the move played there.")
@click.option("--position-out", "position_out", type=OutputFile("position"), default=None,
              help="With --at or --move: write that position to this file, as the view of the player to move "
                   "(what `thurn-ai hint FILE` takes; --complete for every hand).")
@click.option("--complete", is_flag=True, help="With --position-out: write the complete position, every hand.")
@force_option
@click.option("--quiet", is_flag=True, help="Print only the result (and check that it matches).")
@click.option("--json", "as_json", is_flag=True,
              help="Print the replayed game as JSON: the record with its checked result (with --at: the position).")
def command(record_file, game_index, board_file, step, at_turn, at_move, position_out, complete, force, quiet,
            as_json):
    """Replay a game record exactly and print its moves turn by turn (each with its number), or the position at
    a turn (--at N) or at a move (--move N).

    Example: thurn-ai replay game.jsonl --move 140 --position-out m140.json && thurn-ai hint m140.json"""
    if at_turn is not None and at_move is not None:
        raise click.UsageError("--at and --move both name a position: give one")
    if (position_out or complete) and at_turn is None and at_move is None:
        raise click.UsageError("--position-out and --complete need --at N or --move N: the position to write")
    if complete and not position_out:
        raise click.UsageError("--complete needs --position-out FILE")
    if step and (as_json or quiet or at_turn is not None or at_move is not None):
        raise click.UsageError("--step shows the game turn by turn: it does not combine with --json, --quiet, --at "
                               "or --move")
    if position_out is not None:
        check_output_file(position_out, "--position-out", "position", force, inputs=(record_file, board_file))
    records = read_records(record_file, board_file=board_file)
    if not 1 <= game_index <= len(records):
        n = len(records)
        raise PositionError(f"{path_text(record_file)} holds {n} game{'s' if n != 1 else ''}; "
                            f"--game {game_index} is out of range (1-{n})")
    rec = records[game_index - 1]
    if at_turn is not None or at_move is not None:
        _position_at(rec, record_file, game_index, at_turn, at_move, position_out, complete, as_json)
        return
    last = [-1]
    number = [0]

    def log(state, p, move):
        if quiet or as_json:
            return
        if state.turn != last[0]:
            if step:
                if last[0] >= 0:
                    answer = click.prompt(f"-- Enter: turn {state.turn + 1}, q: stop", default="",
                                          show_default=False, prompt_suffix=" ")
                    if answer.strip().lower() in ("q", "quit"):
                        raise _Stopped(state.turn)
                click.echo("")
                click.echo(render_view(state))
                click.echo("")
            last[0] = state.turn
            click.echo(f"turn {state.turn + 1:>3}  seat {p} ({rec.bots[p]})")
        number[0] += 1
        click.echo(f"   {number[0]:>5}  {move_line(state, move)}")

    try:
        final = replay(rec, on_move=log)
    except _Stopped as e:
        click.echo(f"stopped before turn {e.turn + 1} of {path_text(record_file)} game {game_index}")
        return
    except PositionError as e:
        raise PositionError(f"{path_text(record_file)} game {game_index}: {e}") from None
    if rec.scores and final.scores() != rec.scores:
        raise PositionError(f"replay ends with scores {final.scores()}, the record says {rec.scores}")
    rec.ranking, rec.winner, rec.turns = final.ranking(), final.winner(), final.turn
    rec.details = score_details(final)
    if as_json:
        click.echo(json.dumps({"file": str(record_file), "game": game_index, "complete": final.is_terminal(),
                               "record": json.loads(rec.to_json()), "details": rec.details},
                              ensure_ascii=False))
        return
    for line in describe_end(rec):
        click.echo(line)
    if not final.is_terminal():
        click.echo("(the record ends before the game does)")


class _Stopped(Exception):
    """The user stopped a --step replay."""

    def __init__(self, turn: int):
        super().__init__(turn)
        self.turn = turn


def _position_at(rec, record_file, game_index, turn, move, position_out, complete, as_json) -> None:
    """replay --at / --move: the position at the start of a turn or before a move, shown, and written with
    --position-out."""
    from ..play.match import position_at
    from ..position import describe, position_to_dict, save_position
    try:
        if move is not None:
            if move > len(rec.moves):
                raise PositionError(f"the record has {len(rec.moves)} moves; --move {move} is out of range "
                                    f"(1-{len(rec.moves)})")
            state = position_at(rec, move - 1)
        else:
            state = state_at_turn(rec, turn)
    except PositionError as e:
        raise PositionError(f"{path_text(record_file)} game {game_index}: {e}") from None
    viewer = None if complete else state.current_player
    if position_out is not None:
        save_position(state, position_out, viewer=viewer)
    played = rec.moves[move - 1] if move is not None else None
    if as_json:
        where = {"turn": turn} if move is None else {"move": move, "turn": state.turn + 1, "played": played}
        click.echo(json.dumps({"file": str(record_file), "game": game_index, **where,
                               "position": position_to_dict(state, viewer), "written": position_out},
                              ensure_ascii=False))
        return
    click.echo(render_view(state, viewer))
    if move is not None:
        click.echo(f"move {move} (turn {state.turn + 1}, {state.phase}): seat {state.current_player} "
                   f"({rec.bots[state.current_player]}) played '{played}'")
    if position_out is not None:
        click.echo(f"wrote {path_text(position_out)}: {describe(state, viewer)}; "
                   f"next: thurn-ai hint {path_text(position_out)}")
