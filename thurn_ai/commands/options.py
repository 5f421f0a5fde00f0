"""Options shared by several commands: which game (board, variant, players)."""
from __future__ import annotations

import click

from ..board import Board
from ..rules import Rules

# Boards whose reconstruction notice was already printed by this process (one line per board, however
# many Rules a command builds).
_announced: set[str] = set()


def game_options(f):
    f = click.option("--english-tile", is_flag=True,
                     help="Read the South board's 'outside Baiern' tile as the English 'all provinces'.")(f)
    f = click.option("--board-file", type=click.Path(dir_okay=False), default=None,
                     help="A board file of the same format as the built-in boards (overrides --board); "
                          "see docs/board-format.md.")(f)
    f = click.option("--variant", type=click.Choice(["classic", "horses"]), default=None,
                     help="Rules variant; default: the board's own (south: classic, north: horses).")(f)
    f = click.option("--board", type=click.Choice(["south", "north"]), default="south", show_default=True,
                     help="Which board (north = Glanz und Gloria, partly reconstructed).")(f)
    return f


def announce_board(board: Board) -> None:
    """Say once, on stderr, that a board is partly reconstructed (the North board is)."""
    key = board.path or board.name
    if board.reconstructed and key not in _announced:
        _announced.add(key)
        click.echo(f"note: {board.notice}", err=True)


def rules_from(players: int, board: str, variant, board_file, english_tile: bool, echo=True) -> Rules:
    rules = Rules(players=players, board=board_file or board, variant=variant,
                  all_provinces_tile="english" if english_tile else "german")
    if echo:
        announce_board(rules.load_board())
    return rules
