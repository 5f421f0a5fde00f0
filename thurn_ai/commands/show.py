"""thurn-ai show: draw a position as a PNG (or print it as text)."""
from __future__ import annotations

import click

from ..render.text import render_view
from ..position import describe, load_position
from .options import SEED, check_output_file, data_board_file_option


@click.command("show")
@click.argument("position_file", type=click.Path(dir_okay=False))
@click.option("--png", "png_path", type=click.Path(dir_okay=False, writable=True), default=None,
              help="Write the drawing to this PNG file (without it, the position is printed as text).")
@click.option("--seed", type=SEED, default=0, show_default=True,
              help="Seed for dealing the cards a player's view leaves unknown (they are never shown).")
@data_board_file_option("position")
def command(position_file, png_path, seed, board_file):
    """Draw POSITION_FILE: the board with houses and routes, the display, the hands as the viewer knows
    them, and the tiles left.

    Example: thurn-ai show position.json --png position.png"""
    if png_path is not None:
        check_output_file(png_path, "--png")
    state, viewer = load_position(position_file, seed=seed, board_file=board_file)
    if png_path is None:
        click.echo(render_view(state, viewer))
        return
    from ..render.board import save_png      # matplotlib is imported only when drawing
    save_png(state, png_path, viewer)
    click.echo(f"{describe(state, viewer)}\nwrote {png_path}")
