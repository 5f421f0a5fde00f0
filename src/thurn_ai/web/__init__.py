"""The browser board served by `thurn-ai serve` (optional extra `thurn-ai[serve]`): play against the bots,
replay a game record, set up a position, and ask for a hint, on a board drawn in the page.

    from thurn_ai.web import create_app, BackgroundServer
    with BackgroundServer(create_app()) as url:      # http://127.0.0.1:PORT/ in a thread
        ...

The modules, by job:
    app             the Starlette app: the page and the JSON API (create_app)
    server          binding a socket and running uvicorn (foreground or in a thread)
    sessions        games being played and records being replayed, in memory
    hints           searches (thurn_ai.play.analysis) in background threads, with progress
    position_editor the checks of `thurn-ai validate`, each problem tagged with its field
    views           a state as the page shows it (hidden cards removed), legal moves in notation
    board_data      the board's cities, provinces, roads and tiles with screen coordinates
    static/         the page: HTML, CSS and JavaScript, no build step
See docs/serve.md.
"""
from __future__ import annotations

__all__ = ["create_app", "BackgroundServer"]


def __getattr__(name):
    # Starlette and uvicorn are an optional extra: imported when the app is made, not with the package.
    if name == "create_app":
        from .app import create_app
        return create_app
    if name == "BackgroundServer":
        from .server import BackgroundServer
        return BackgroundServer
    raise AttributeError(name)
