"""thurn-ai show: draw a position as a PNG (or print it as text or JSON)."""
from __future__ import annotations

import json

import click

from ..render.text import render_view, tile_name
from ..position import describe, load_position
from .options import SEED, OutputFile, check_output_file, data_board_file_option, force_option


@click.command("show")
@click.argument("position_file", type=click.Path(dir_okay=False))
@click.option("--png", "png_path", type=OutputFile("png", writable=True), default=None,
              help="Write the drawing to this PNG file (without it, the position is printed as text).")
@force_option
@click.option("--seed", type=SEED, default=0, show_default=True,
              help="Seed for dealing the cards a player's view leaves unknown (they are never shown).")
@data_board_file_option("position")
@click.option("--json", "as_json", is_flag=True,
              help="Print what the text shows as JSON: the position as the viewer knows it, each seat's score, "
                   "the tiles left by name (with --png, the file written).")
def command(position_file, png_path, force, seed, board_file, as_json):
    """Draw POSITION_FILE: the board with houses and routes, the display, the hands as the viewer knows
    them, and the tiles left.

    Example: thurn-ai show position.json --png position.png"""
    if png_path is not None:
        check_output_file(png_path, "--png", "png", force, inputs=(position_file, board_file))
    state, viewer = load_position(position_file, seed=seed, board_file=board_file)
    if png_path is not None:
        from ..render.board import save_png      # matplotlib is imported only when drawing
        save_png(state, png_path, viewer)
    if as_json:
        click.echo(json.dumps(show_json(state, viewer, position_file, png_path), ensure_ascii=False))
    elif png_path is None:
        click.echo(render_view(state, viewer))
    else:
        click.echo(f"{describe(state, viewer)}\nwrote {png_path}")


def show_json(state, viewer, position_file, png_path) -> dict:
    """What `show --json` prints: the position as the viewer may know it (position_to_dict), with the
    live scores and the tiles left named in words."""
    from ..position import position_to_dict
    b = state.board
    d = state.export()
    english = state.rules.all_provinces_tile == "english"
    return {"file": str(position_file), "description": describe(state, viewer), "viewer": viewer,
            "scores": state.scores(),
            "tiles_left": [{"id": st.id, "name": tile_name(b, st, english),
                            "values": list(st.values[d["stack_pos"][t]:])}
                           for t, st in enumerate(b.tiles) if d["stack_pos"][t] < len(st.values)],
            "position": position_to_dict(state, viewer), "png": None if png_path is None else str(png_path)}
