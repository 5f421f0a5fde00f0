"""thurn-ai validate: check a position file and report every problem found."""
from __future__ import annotations

import json
import sys

import click

from ..errors import PositionError
from ..position import describe, load_position, problems_of
from .options import SEED, data_board_file_option


@click.command("validate")
@click.argument("position_file", type=click.Path(dir_okay=False))
@click.option("--seed", type=SEED, default=0, show_default=True,
              help="Seed for dealing the cards a player's view leaves unknown.")
@data_board_file_option("position")
@click.option("--json", "as_json", is_flag=True,
              help='Machine-readable output: {"ok": ..., "summary": ...} when ok, else {"ok": false, "problems": '
                   '[{"kind", "field", "message"}, ...]} and exit status 2.')
def command(position_file, seed, board_file, as_json):
    """Check POSITION_FILE (see docs/position-format.md): prints "ok: " and a summary, or every problem and
    exits with status 2."""
    try:
        state, viewer = load_position(position_file, seed=seed, board_file=board_file)
    except PositionError as e:
        if not as_json:
            raise
        problems = [p.to_json() for p in problems_of(e)]
        click.echo(json.dumps({"ok": False, "file": position_file, "problems": problems}, ensure_ascii=False))
        sys.exit(2)
    summary = describe(state, viewer)
    if as_json:
        click.echo(json.dumps({"ok": True, "file": position_file, "summary": summary, "viewer": viewer,
                               "phase": state.phase, "to_move": state.current_player,
                               "scores": state.scores()}, ensure_ascii=False))
    else:
        click.echo(f"ok: {summary}")
        if min(state.scores()) < 0:         # early in a game every score is negative: say why, once
            click.echo(f"(scores so far count -1 for each house not yet placed: they start at "
                       f"-{state.rules.houses})")
