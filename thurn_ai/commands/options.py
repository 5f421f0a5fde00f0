"""Options shared by several commands: which game (board, variant, players)."""
from __future__ import annotations

import click

from ..rules import Rules


def game_options(f):
    f = click.option("--english-tile", is_flag=True,
                     help="Read the South board's 'outside Baiern' tile as the English 'all provinces'.")(f)
    f = click.option("--board-file", type=click.Path(dir_okay=False), default=None,
                     help="A board file of the same format as the built-in boards (overrides --board).")(f)
    f = click.option("--variant", type=click.Choice(["classic", "horses"]), default=None,
                     help="Rules variant; default: the board's own (south: classic, north: horses).")(f)
    f = click.option("--board", type=click.Choice(["south", "north"]), default="south", show_default=True,
                     help="Which board.")(f)
    return f


def rules_from(players: int, board: str, variant, board_file, english_tile: bool, echo=True) -> Rules:
    rules = Rules(players=players, board=board_file or board, variant=variant,
                  all_provinces_tile="english" if english_tile else "german")
    b = rules.load_board()
    if echo and b.reconstructed:
        click.echo(f"note: {b.notice or 'parts of this board are reconstructed'}", err=True)
    return rules
