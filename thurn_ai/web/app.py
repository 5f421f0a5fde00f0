"""The web app: a Starlette application serving the page (thurn_ai/web/static/) and a JSON API over
the library.

Every answer of the API is JSON. Bad input (a move that is not legal, a broken record or position, an
unknown id, a malformed request) is a 4xx answer {"error": "<one message>"} — never a traceback — and
the server keeps running:

    400  the input is wrong (the message says what and why)
    404  an unknown game, replay or hint id, or an unknown address under /api/
    409  the request does not fit the game now (a person's move on a bot's turn, a step after the end)
    413  the request body is too large
    429  too many searches at once
    500  a bug (the message names the exception; the server's log has the traceback)

The endpoints are listed in docs/serve.md.
"""
from __future__ import annotations

import logging
from pathlib import Path

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from ..board import BUILTIN_BOARDS
from ..bots.spec import known_bots
from ..errors import ThurnError
from ..fileio import loads_json, short_repr
from ..rules import Rules
from .board_data import board_geometry
from .hints import DEFAULT_SECONDS, MAX_SECONDS, BusyError, Budget, HintJobs
from .position_editor import check_for_editor, parse_position_text
from .sessions import GameSession, NotFound, ReplaySession, SessionError, Sessions, seats_from

STATIC = Path(__file__).parent / "static"
MAX_BODY = 40 * 2 ** 20          # a record file of many games fits; anything larger is refused (413)
log = logging.getLogger("thurn_ai.web")


class TooLarge(ThurnError):
    """A request body over MAX_BODY (HTTP 413)."""


STATUS = ((NotFound, 404), (SessionError, 409), (TooLarge, 413), (BusyError, 429), (ThurnError, 400))
# What bad input can raise deep inside a loader besides ThurnError (as the command line treats them).
INPUT_ERRORS = (ValueError, OverflowError, RecursionError, UnicodeError)


def error_response(e: BaseException) -> JSONResponse:
    for cls, status in STATUS:
        if isinstance(e, cls):
            problems = getattr(e, "problems", None)
            body = {"error": str(e)}
            if problems:
                body["problems"] = list(problems)
            return JSONResponse(body, status_code=status)
    if isinstance(e, RecursionError):
        return JSONResponse({"error": "the input is nested too deeply"}, status_code=400)
    if isinstance(e, INPUT_ERRORS):
        return JSONResponse({"error": " ".join(str(e).split()) or type(e).__name__}, status_code=400)
    log.exception("error in a request")
    return JSONResponse({"error": f"internal error ({type(e).__name__}); the server's log has the details"},
                        status_code=500)


def api(handler):
    """Wrap an endpoint: whatever it raises becomes one JSON answer with the right status."""
    async def endpoint(request: Request) -> Response:
        try:
            return await handler(request)
        except Exception as e:     # noqa: BLE001 - every error becomes a JSON answer, the server goes on
            return error_response(e)
    endpoint.__name__ = handler.__name__
    return endpoint


async def read_json(request: Request) -> dict:
    """The request body as a JSON object ({} when empty); ThurnError/TooLarge for anything else."""
    length = request.headers.get("content-length", "")
    if length.isdigit() and int(length) > MAX_BODY:
        raise TooLarge(f"the request is larger than {MAX_BODY // 2 ** 20} MB")
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_BODY:
            raise TooLarge(f"the request is larger than {MAX_BODY // 2 ** 20} MB")
    if not body.strip():
        return {}
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        raise ThurnError("the request body is not UTF-8 text") from None
    data = loads_json(text, "the request body", ThurnError)
    if not isinstance(data, dict):
        raise ThurnError("the request body must be a JSON object {...}")
    return data


def int_field(data: dict, key: str, default=None, lo=None, hi=None):
    v = data.get(key, default)
    if v is None:
        return None
    if isinstance(v, bool) or not isinstance(v, int) or (lo is not None and v < lo) or (hi is not None and v > hi):
        where = f" from {lo}" if lo is not None else ""
        where += f" to {hi}" if hi is not None else ""
        raise ThurnError(f"{key} must be a whole number{where}, not {short_repr(v)}")
    return v


def query_int(request: Request, key: str):
    v = request.query_params.get(key)
    if v is None or v == "":
        return None
    if not v.lstrip("-").isdigit() or len(v) > 12:
        raise ThurnError(f"{key} must be a whole number, not {short_repr(v)}")
    return int(v)


class WebApp:
    """The server's state: its games, replays and searches, and what it was started with."""

    def __init__(self, record_text: str | None = None, record_source: str = "record", game: int = 1,
                 position: dict | None = None, hint_seconds: float = DEFAULT_SECONDS,
                 max_searches: int = 2):
        self.sessions = Sessions()
        self.hints = HintJobs(max_running=max_searches)
        self.hint_seconds = hint_seconds
        self.startup_replay = None
        if record_text is not None:
            self.startup_replay = self.sessions.add(ReplaySession(record_text, game, record_source))
        self.startup_position = position

    # ---- the page and general data

    async def index(self, request: Request) -> Response:
        return FileResponse(STATIC / "index.html", media_type="text/html")

    async def startup(self, request: Request) -> Response:
        return JSONResponse({
            "boards": list(BUILTIN_BOARDS), "bots": known_bots(), "hint_seconds": self.hint_seconds,
            "max_hint_seconds": MAX_SECONDS,
            "replay": self.startup_replay.summary() if self.startup_replay else None,
            "position": self.startup_position})

    async def board(self, request: Request) -> Response:
        name = request.path_params["name"]
        return JSONResponse(await run_in_threadpool(board_geometry, name))

    # ---- games

    async def new_game(self, request: Request) -> Response:
        data = await read_json(request)
        seats = seats_from(data.get("seats", "human,random"))
        seed = int_field(data, "seed", lo=0, hi=2 ** 63 - 1)
        position = data.get("position")

        def make():
            if position is not None:
                if not isinstance(position, dict):
                    raise ThurnError("position must be a JSON object (a position as in docs/position-format.md)")
                return GameSession(seats, seed=seed, position=position)
            n = len(seats) if isinstance(seats, list) else 0
            rules = Rules(players=n, board=data.get("board", "south"), variant=data.get("variant"),
                          all_provinces_tile=data.get("all_provinces_tile", "german")) if 2 <= n <= 4 else None
            return GameSession(seats, rules=rules, seed=seed)

        game = self.sessions.add(await run_in_threadpool(make))
        return JSONResponse(game.view(), status_code=201)

    def game(self, request: Request) -> GameSession:
        return self.sessions.get(request.path_params["id"], "game")

    async def get_game(self, request: Request) -> Response:
        return JSONResponse(self.game(request).view())

    async def move(self, request: Request) -> Response:
        game = self.game(request)
        data = await read_json(request)
        if "move" not in data:
            raise ThurnError('give the move in notation: {"move": "draw deck"}')
        return JSONResponse(await run_in_threadpool(game.play, data["move"]))

    async def step(self, request: Request) -> Response:
        game = self.game(request)
        return JSONResponse(await run_in_threadpool(game.step))

    async def undo(self, request: Request) -> Response:
        game = self.game(request)
        await read_json(request)          # a POST with a JSON body ({}), as every state-changing request
        return JSONResponse(await run_in_threadpool(game.undo))

    async def game_hint(self, request: Request) -> Response:
        game = self.game(request)
        data = await read_json(request)
        budget = Budget.from_request(data, self.hint_seconds)
        with game.lock:
            viewer = game.viewer
            state = game.state
            if not state.is_terminal() and viewer is not None and state.current_player != viewer:
                raise SessionError(f"seat {state.current_player} ({game.seats[state.current_player]}) is to "
                                   "move: a hint is for your own turn")
            job = self.hints.start(state, budget, seed=int_field(data, "seed", 0, 0, 2 ** 63 - 1),
                                   bot=self.hint_bot(data))
        return JSONResponse(job.snapshot(), status_code=202)

    async def game_record(self, request: Request) -> Response:
        game = self.game(request)
        rec = game.record()
        return Response(rec.to_json() + "\n", media_type="application/x-ndjson",
                        headers={"content-disposition": f'attachment; filename="thurn-ai-{game.id}.jsonl"'})

    async def game_position(self, request: Request) -> Response:
        game = self.game(request)
        with game.lock:
            return JSONResponse(game.state.to_dict(viewer=game.viewer))

    # ---- replays

    async def new_replay(self, request: Request) -> Response:
        data = await read_json(request)
        game = int_field(data, "game", 1)
        name = data.get("name")
        name = name[:200] if isinstance(name, str) and name.strip() else "record"
        replay = await run_in_threadpool(ReplaySession, data.get("text"), game, name)
        self.sessions.add(replay)
        return JSONResponse(replay.summary(), status_code=201)

    def replay(self, request: Request) -> ReplaySession:
        return self.sessions.get(request.path_params["id"], "replay")

    async def get_replay(self, request: Request) -> Response:
        return JSONResponse(self.replay(request).summary())

    async def replay_at(self, request: Request) -> Response:
        replay = self.replay(request)
        at = query_int(request, "at") or 0
        return JSONResponse(replay.view(at, query_int(request, "viewer")))

    async def replay_hint(self, request: Request) -> Response:
        replay = self.replay(request)
        data = await read_json(request)
        state = replay.state_at(int_field(data, "at", 0))
        budget = Budget.from_request(data, self.hint_seconds)
        job = self.hints.start(state, budget, seed=int_field(data, "seed", 0, 0, 2 ** 63 - 1),
                               bot=self.hint_bot(data))
        return JSONResponse(job.snapshot(), status_code=202)

    # ---- hints and positions

    @staticmethod
    def hint_bot(data: dict) -> str:
        bot = data.get("bot", "mcts")
        if not isinstance(bot, str):
            raise ThurnError(f"bot must be a spec such as 'mcts' or 'pimc(iterations=500)', not {short_repr(bot)}")
        return bot

    async def hint(self, request: Request) -> Response:
        job = self.hints.get(request.path_params["id"])
        if job is None:
            raise NotFound(f"no hint {short_repr(request.path_params['id'])} on this server")
        return JSONResponse(job.snapshot())

    async def check_position(self, request: Request) -> Response:
        data = await read_json(request)
        if "text" in data:
            position = parse_position_text(data["text"])
        elif "position" in data:
            position = data["position"]
        else:
            raise ThurnError('give {"position": {...}} or {"text": "<the JSON of a position>"}')
        result = await run_in_threadpool(check_for_editor, position)
        result["input"] = position
        return JSONResponse(result)

    # ---- errors outside the endpoints (unknown address, wrong method)

    async def http_error(self, request: Request, exc: HTTPException) -> Response:
        if request.url.path.startswith("/api/"):
            what = "no such address" if exc.status_code == 404 else exc.detail
            return JSONResponse({"error": f"{what}: {request.method} {request.url.path}"},
                                status_code=exc.status_code)
        return Response(f"{exc.status_code} {exc.detail}\n", status_code=exc.status_code,
                        media_type="text/plain")

    async def server_error(self, request: Request, exc: Exception) -> Response:
        return error_response(exc)

    def routes(self) -> list:
        a = api
        return [
            Route("/", self.index),
            Route("/api/startup", a(self.startup)),
            Route("/api/board/{name}", a(self.board)),
            Route("/api/games", a(self.new_game), methods=["POST"]),
            Route("/api/games/{id}", a(self.get_game)),
            Route("/api/games/{id}/move", a(self.move), methods=["POST"]),
            Route("/api/games/{id}/step", a(self.step), methods=["POST"]),
            Route("/api/games/{id}/undo", a(self.undo), methods=["POST"]),
            Route("/api/games/{id}/hint", a(self.game_hint), methods=["POST"]),
            Route("/api/games/{id}/record", a(self.game_record)),
            Route("/api/games/{id}/position", a(self.game_position)),
            Route("/api/replays", a(self.new_replay), methods=["POST"]),
            Route("/api/replays/{id}", a(self.get_replay)),
            Route("/api/replays/{id}/view", a(self.replay_at)),
            Route("/api/replays/{id}/hint", a(self.replay_hint), methods=["POST"]),
            Route("/api/hints/{id}", a(self.hint)),
            Route("/api/positions/check", a(self.check_position), methods=["POST"]),
            Mount("/static", app=StaticFiles(directory=STATIC), name="static"),
        ]


def create_app(record_text: str | None = None, record_source: str = "record", game: int = 1,
               position: dict | None = None, hint_seconds: float = DEFAULT_SECONDS,
               allowed_hosts: list[str] | None = None, max_searches: int = 2) -> Starlette:
    """The Starlette app. record_text/game: a game record (JSON lines) opened in the replay view at start;
    position: a position dict opened in the set-up view; hint_seconds: the default search time of a hint;
    allowed_hosts: the Host names the server answers (a page on another site that resolves its own name
    to this machine is refused); None answers any."""
    web = WebApp(record_text, record_source, game, position, hint_seconds, max_searches)
    middleware = [Middleware(TrustedHostMiddleware, allowed_hosts=allowed_hosts)] if allowed_hosts else []
    app = Starlette(routes=web.routes(), middleware=middleware,
                    exception_handlers={HTTPException: web.http_error, Exception: web.server_error})
    app.state.web = web
    return app
