"""thurn-ai serve: the board in a browser (a thin layer over thurn_ai.web)."""
from __future__ import annotations

import importlib.util

import click

from ..errors import PositionError, ThurnError
from ..fileio import path_text, read_text
from ..position import position_of_file, read_position_file
from .options import GAME_INDEX, BoundedFloat, BoundedInt

PORT = BoundedInt(0, 65535)
# a hint from the page searches at most this long (thurn_ai/web/hints.py MAX_SECONDS, without importing
# the web package before --help needs it)
HINT_SECONDS = BoundedFloat(0, 120)


def _need_extra() -> None:
    missing = [m for m in ("starlette", "uvicorn") if importlib.util.find_spec(m) is None]
    if missing:
        raise ThurnError(f"thurn-ai serve needs {' and '.join(missing)}: pip install 'thurn-ai[serve]'")


@click.command("serve")
@click.option("--host", default="127.0.0.1", show_default=True,
              help="The address to listen on. The default reaches only this machine; another address "
                   "(e.g. 0.0.0.0) lets other machines on the network open the page.")
@click.option("--port", type=PORT, default=0, show_default=True,
              help="The port to listen on; 0 chooses a free one (printed at start).")
@click.option("--record", "record_file", type=click.Path(dir_okay=False), default=None,
              help="A game record file (JSON lines, e.g. from `thurn-ai play --record`) to open in the replay view.")
@click.option("--game", "game_index", type=GAME_INDEX, default=1, show_default=True,
              help="Which game of the record file (1 = first line).")
@click.option("--position", "position_file", type=click.Path(dir_okay=False), default=None,
              help="A position file to open in the set-up view.")
@click.option("--hint-time", type=HINT_SECONDS, default=None,
              help="Default search time of a hint, in seconds (the page can change it) [default: 2].")
@click.option("--open", "open_browser", is_flag=True, help="Open the page in the default browser.")
def command(host, port, record_file, game_index, position_file, hint_time, open_browser):
    """Serve the board in a browser: play against the bots, replay a game record, set up a position
    and ask for a hint. Stop with Ctrl+C.

    Example: thurn-ai serve --record game.jsonl"""
    _need_extra()
    from ..web.app import create_app
    from ..web.hints import DEFAULT_SECONDS
    from ..web.server import allowed_hosts_for, bind, is_loopback, run, url_of

    record_text = read_text(record_file, "record file", PositionError) if record_file else None
    position = None
    if position_file:
        position = read_position_file(position_file)
        # checked as `thurn-ai validate` checks it: a broken position is an error before the server starts
        position_of_file(position, position_file, seed=0)
    # the record is read and replayed here, so that a broken file is one error line before the server starts
    app = create_app(record_text=record_text, record_source=path_text(record_file) if record_file else "record",
                     game=game_index, position=position, hint_seconds=hint_time or DEFAULT_SECONDS,
                     allowed_hosts=allowed_hosts_for(host))
    sock = bind(host, port)
    url = url_of(sock)
    click.echo(f"thurn-ai serve: {url}  (Ctrl+C to stop)")
    if not is_loopback(host):
        click.echo(f"note: listening on {host}: other machines that reach this one can open the page", err=True)
    if open_browser:
        import webbrowser
        webbrowser.open(url)
    try:
        run(app, sock)
    finally:
        sock.close()
