"""The web app: a Starlette application serving the page (thurn_ai/web/static/) and a JSON API over
the library.

Every answer of the API is JSON. Bad input (a move that is not legal, a broken record or position, an
unknown id, a malformed request) is a 4xx answer {"error": "<one message>"} — never a traceback — and
the server keeps running:

    400  the input is wrong (the message says what and why), or a Host name this server does not answer
    403  a request that would change something comes from another site's page (thurn_ai/web/guard.py)
    404  an unknown game, replay or hint id, or an unknown address under /api/
    408  the request body did not arrive within BODY_SECONDS
    409  the request does not fit the game now (a person's move on a bot's turn, a step after the end)
    413  the request body is too large
    415  a request body that is not JSON
    429  too many searches, replays or request bodies at once
    500  a bug (the message names the exception; the server's log has the traceback)

No request blocks the event loop: whatever takes a lock, reads a state or parses a body runs in a worker
thread; whatever can take long (a bot's search, a hint, replaying a record) is bounded in number
(429 beyond) and in budget. Nothing a request names is opened as a path: boards are the packaged ones.
The endpoints are listed in docs/serve.md, what the server defends against too.
"""
from __future__ import annotations

import asyncio
import codecs
import contextlib
import logging
import multiprocessing
import os
import threading
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import Any

import anyio
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import ClientDisconnect, Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from ..game.board import BUILTIN_BOARDS
from ..bots.spec import BotSpec, check_request_spec, known_bots
from ..errors import PositionError, ThurnError
from ..fileio import JSON_SLICE, loads_json, short_repr
from ..game.rules import PLAYER_COUNTS, Rules
from ..play.analysis import DEFAULT_BOT
from ..play.workers import init_worker, stop_pool
from .board_data import board_geometry
from .guard import Guard, RefusalPacer
from .hints import (DEFAULT_SECONDS, MAX_SECONDS, BusyError, Budget, HintJobs, question_of,
                    search_while_connected)
from .position_editor import check_for_editor, parse_position_text
from .reviews import ReviewJobs
from .sessions import GameSession, NotFound, ReplaySession, SessionError, Sessions, seats_from

STATIC = Path(__file__).parent / "static"
MAX_BODY = 40 * 2 ** 20          # a record file of many games fits (POST /api/replays); larger is refused (413)
# Every other request is a move, a budget, a position or a new game: a few kB. The smaller cap refuses a
# large body by its Content-Length before it is read, so it costs the event loop nothing.
MAX_SMALL_BODY = 256 * 2 ** 10
MAX_BODIES = 160 * 2 ** 20       # bytes of request bodies held at once (a body is read whole), else 429
BODY_SECONDS = 15.0              # a body must arrive within this (a client sending slowly holds nothing long)
MAX_STEPS = 2                    # searching bot steps at once (a search takes a core), else 429
MAX_REPLAYS_BUILDING = 1         # records being replayed at once (a long one takes seconds), else 429
# Work that holds the GIL for long (parsing a large body, replaying a record) runs one at a time: with
# several such threads the event loop waits its turn behind each of them for every step it takes.
SMALL_BODY = 16 * 2 ** 10        # bodies up to this are parsed on the event loop (well under a millisecond)
# The fields of POST /api/games: anything else is a mistake worth saying.
GAME_FIELDS = {"seats", "seed", "position", "board", "variant", "all_provinces_tile"}
log = logging.getLogger("thurn_ai.web")


class TooLarge(ThurnError):
    """A request body over MAX_BODY (HTTP 413)."""


class BodyTimeout(ThurnError):
    """A request body that did not arrive within BODY_SECONDS (HTTP 408)."""


STATUS = ((NotFound, 404), (BodyTimeout, 408), (SessionError, 409), (TooLarge, 413), (BusyError, 429),
          (ThurnError, 400))
# What bad input can raise deep inside a loader besides ThurnError (as the command line treats them).
INPUT_ERRORS = (ValueError, OverflowError, RecursionError, UnicodeError)


def error_response(e: BaseException) -> JSONResponse:
    for cls, status in STATUS:
        if isinstance(e, cls):
            body: dict[str, Any] = {"error": str(e)}
            if isinstance(e, PositionError) and e.problems:
                body["problems"] = [p.to_json() for p in e.problems]     # kind, field, message
            # a body left unread (too large, too slow) would hold the connection until keep-alive ends
            headers = {"connection": "close"} if isinstance(e, (TooLarge, BodyTimeout)) else None
            return JSONResponse(body, status_code=status, headers=headers)
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
        except ClientDisconnect:       # the client went away while sending: nobody reads an answer
            return Response(status_code=400)
        except Exception as e:     # noqa: BLE001 - every error becomes a JSON answer, the server goes on
            return error_response(e)
    endpoint.__name__ = handler.__name__
    return endpoint


class Slots:
    """At most `n` of something at once: `with slots:` or BusyError (HTTP 429) naming `what`."""

    def __init__(self, n: int, what: str):
        self.n, self.what, self.taken = n, what, 0
        self._lock = threading.Lock()

    def __enter__(self):
        with self._lock:
            if self.taken >= self.n:
                raise BusyError(f"{self.taken} {self.what} at once already; try again in a moment")
            self.taken += 1
        return self

    def __exit__(self, *exc):
        with self._lock:
            self.taken -= 1


class BodyBudget:
    """The bytes of request bodies being read or parsed now, at most `limit` (BusyError beyond); used on
    the event loop only."""

    def __init__(self, limit: int | None = None):
        self.limit, self.held = MAX_BODIES if limit is None else limit, 0
        self._parsing: anyio.CapacityLimiter | None = None

    def parsing(self) -> anyio.CapacityLimiter:
        """One large body parsed at a time (made in the event loop, where it is used)."""
        if self._parsing is None:
            self._parsing = anyio.CapacityLimiter(1)
        return self._parsing

    def take(self, n: int) -> None:
        if self.held + n > self.limit:
            raise BusyError("the server is reading too many large requests at once; try again in a moment")
        self.held += n

    def give(self, n: int) -> None:
        self.held -= n


def _size_text(n: int) -> str:
    return f"{n // 2 ** 20} MB" if n >= 2 ** 20 else f"{n // 2 ** 10} kB"


@contextlib.asynccontextmanager
async def body_of(request: Request, budget: BodyBudget, max_bytes: int = MAX_SMALL_BODY):
    """The request body (bytes), counted in `budget` while the block runs; TooLarge/BodyTimeout/BusyError.
    A body over `max_bytes` is refused (by its Content-Length before it is read); the body must arrive
    within BODY_SECONDS (the event loop never waits on a client)."""
    too_large = f"the request is larger than {_size_text(max_bytes)}"
    length = request.headers.get("content-length", "")
    if length.isdigit() and int(length) > max_bytes:
        raise TooLarge(too_large)
    body = bytearray()
    try:
        try:
            with anyio.fail_after(BODY_SECONDS):
                async for chunk in request.stream():
                    budget.take(len(chunk))
                    body += chunk
                    if len(body) > max_bytes:
                        raise TooLarge(too_large)
        except TimeoutError:
            raise BodyTimeout(f"the request body did not arrive within {BODY_SECONDS:g} seconds") from None
        yield bytes(body)
    finally:
        budget.give(len(body))


async def read_json(request: Request, budget: BodyBudget | None = None, max_bytes: int = MAX_SMALL_BODY) -> dict:
    """The request body as a JSON object ({} when empty); ThurnError/TooLarge/BodyTimeout/BusyError for
    anything else (see body_of). A large body is parsed in a worker thread, one at a time."""
    budget = budget or BodyBudget()
    async with body_of(request, budget, max_bytes) as body:
        if not body.strip():
            return {}
        if len(body) <= SMALL_BODY:
            return parse_body(body)
        return await anyio.to_thread.run_sync(parse_body, body, limiter=budget.parsing())


def parse_body(body: bytes) -> dict:
    try:
        # decoded in slices: decoding 20 MB at once is one C call that holds Python's lock ~30 ms
        decoder = codecs.getincrementaldecoder("utf-8")()
        text = "".join([decoder.decode(body[i:i + JSON_SLICE]) for i in range(0, len(body), JSON_SLICE)]
                       + [decoder.decode(b"", final=True)])
    except UnicodeDecodeError:
        raise ThurnError("the request body is not UTF-8 text") from None
    data = loads_json(text, "the request body", ThurnError)
    if not isinstance(data, dict):
        raise ThurnError("the request body must be a JSON object {...}")
    return data


def replay_upload(body: bytes) -> ReplaySession:
    """POST /api/replays's work, done in the replay worker process: the body parsed, the record replayed."""
    data = parse_body(body) if body.strip() else {}
    game = int_field(data, "game", 1)
    name = data.get("name")
    name = " ".join(name[:200].split()) if isinstance(name, str) and name.strip() else "record"
    return ReplaySession(data.get("text"), game, name)


class ReplayWorker:
    """One process that parses and replays record uploads. That work holds Python's lock for as long as it
    runs (a 20 MB body, a record of thousands of moves); in the server's process every other request
    waited behind it in 1 ms turns (normal p99 443 ms under 50 hostile clients, results/web_load/). Only
    the finished replay comes back (checkpoints, moves, log, summary; ~20 ms to unpickle a 13k-move one).
    Started at the first upload; ends with the server, even if that is killed (workers.init_worker)."""

    def __init__(self):
        self._pool: ProcessPoolExecutor | None = None

    async def replay(self, body: bytes) -> ReplaySession:
        if self._pool is None:
            self._pool = ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn"),
                                             initializer=init_worker, initargs=(os.getpid(),))
        try:
            return await asyncio.wrap_future(self._pool.submit(replay_upload, body))
        except BrokenProcessPool:      # the worker was killed (out of memory): a new one at the next upload
            self._pool = None
            raise BusyError("the process that replays records stopped; try again in a moment") from None

    def close(self) -> None:
        if self._pool is not None:
            stop_pool(self._pool)       # a replay in progress is abandoned, not waited for
            self._pool = None


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
                 max_searches: int = 2, replay_process: bool = True):
        self.sessions = Sessions()
        self.hints = HintJobs(max_running=max_searches)
        self.reviews = ReviewJobs()
        self.steps = Slots(MAX_STEPS, "bots are searching")
        self.replays_building = Slots(MAX_REPLAYS_BUILDING, "records are being replayed")
        self.bodies = BodyBudget()
        # None: uploads replayed in a thread of this process (tests that patch the replay use that)
        self.replay_worker = ReplayWorker() if replay_process else None
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
            "boards": list(BUILTIN_BOARDS), "bots": known_bots(loaded_only=True), "hint_seconds": self.hint_seconds,
            "max_hint_seconds": MAX_SECONDS,
            "replay": self.startup_replay.summary() if self.startup_replay else None,
            "position": self.startup_position})

    async def board(self, request: Request) -> Response:
        name = request.path_params["name"]
        return JSONResponse(await run_in_threadpool(board_geometry, name))

    # ---- games

    async def read_json(self, request: Request, max_bytes: int = MAX_SMALL_BODY) -> dict:
        return await read_json(request, self.bodies, max_bytes)

    async def new_game(self, request: Request) -> Response:
        data = await self.read_json(request)
        unknown = sorted(set(data) - GAME_FIELDS)
        if unknown:
            raise ThurnError(f"unknown field{'s' if len(unknown) > 1 else ''} "
                             f"{', '.join(short_repr(k) for k in unknown)} (a new game takes "
                             f"{', '.join(sorted(GAME_FIELDS))})")
        seats = seats_from(data.get("seats", "human,random"))
        seed = int_field(data, "seed", lo=0, hi=2 ** 63 - 1)
        position = data.get("position")

        def make():
            if position is not None:
                if not isinstance(position, dict):
                    raise ThurnError("position must be a JSON object (a position as in docs/position-format.md)")
                return GameSession(seats, seed=seed, position=position)
            n = len(seats) if isinstance(seats, list) else 0
            # a board is a packaged board's name, never a path (a request must not open files)
            rules = Rules.from_dict({"players": n, "board": "south", **{k: data[k] for k in
                                     ("board", "variant", "all_provinces_tile") if k in data}},
                                    packaged_only=True) if n in PLAYER_COUNTS else None
            return GameSession(seats, rules=rules, seed=seed)

        game = self.sessions.add(await run_in_threadpool(make))
        return JSONResponse(game.view(), status_code=201)

    def game(self, request: Request) -> GameSession:
        return self.sessions.get(request.path_params["id"], "game")

    async def get_game(self, request: Request) -> Response:
        return JSONResponse(await run_in_threadpool(self.game(request).view))

    async def move(self, request: Request) -> Response:
        game = self.game(request)
        data = await self.read_json(request)
        if "move" not in data:
            raise ThurnError('give the move in notation: {"move": "draw deck"}')
        return JSONResponse(await run_in_threadpool(game.play, data["move"]))

    async def move_set(self, request: Request) -> Response:
        game = self.game(request)
        data = await self.read_json(request)
        if "moves" not in data:
            raise ThurnError('give the houses or discards in notation: {"moves": ["house Ulm", "house Passau"]}')
        return JSONResponse(await run_in_threadpool(game.play_set, data["moves"]))

    async def step(self, request: Request) -> Response:
        game = self.game(request)
        if not await run_in_threadpool(game.is_search):
            return JSONResponse(await run_in_threadpool(game.step))
        # a search takes a core: at most MAX_STEPS at once, in threads of their own, each at most
        # MAX_SECONDS and called off when the client goes away (search_limits)
        return JSONResponse(await search_while_connected(request, game.step, self.steps))

    async def undo(self, request: Request) -> Response:
        game = self.game(request)
        await self.read_json(request)     # a POST with a JSON body ({}), as every state-changing request
        return JSONResponse(await run_in_threadpool(game.undo))

    async def game_hint(self, request: Request) -> Response:
        game = self.game(request)
        data = await self.read_json(request)
        budget = Budget.from_request(data, self.hint_seconds)
        seed, bot, question = int_field(data, "seed", 0, 0, 2 ** 63 - 1), self.hint_bot(data), question_of(data)

        def start():
            with game.lock:
                viewer = game.viewer
                state = game.state
                if not state.is_terminal() and viewer is not None and state.current_player != viewer:
                    raise SessionError(f"seat {state.current_player} ({game.seats[state.current_player]}) is "
                                       "to move: a hint is for your own turn")
                return self.hints.start(state, budget, seed=seed, bot=bot, question=question)
        job = await run_in_threadpool(start)
        return JSONResponse(job.snapshot(), status_code=202)

    async def game_record(self, request: Request) -> Response:
        game = self.game(request)
        text = await run_in_threadpool(lambda: game.record().to_json())
        return Response(text + "\n", media_type="application/x-ndjson",
                        headers={"content-disposition": f'attachment; filename="thurn-ai-game-{int(game.seed)}.jsonl"'})

    async def game_position(self, request: Request) -> Response:
        game = self.game(request)

        def position():
            with game.lock:
                return game.state.to_dict(viewer=game.viewer)
        return JSONResponse(await run_in_threadpool(position))

    # ---- replays

    async def new_replay(self, request: Request) -> Response:
        # replaying a long record takes seconds of a core: at most MAX_REPLAYS_BUILDING at once, refused
        # (429) before the body is read; parsed and replayed in the replay worker's process, so that work
        # never holds this process's lock (the event loop's)
        with self.replays_building:
            async with body_of(request, self.bodies, MAX_BODY) as body:   # the only route taking large bodies
                if self.replay_worker is None:
                    replay = await anyio.to_thread.run_sync(replay_upload, body, limiter=self.bodies.parsing())
                else:
                    replay = await self.replay_worker.replay(body)
        self.sessions.add(replay)
        return Response(replay.summary_json(), status_code=201, media_type="application/json")

    def replay(self, request: Request) -> ReplaySession:
        return self.sessions.get(request.path_params["id"], "replay")

    async def get_replay(self, request: Request) -> Response:
        return Response(await run_in_threadpool(self.replay(request).summary_json), media_type="application/json")

    async def replay_at(self, request: Request) -> Response:
        replay = self.replay(request)
        at = query_int(request, "at") or 0
        return JSONResponse(await run_in_threadpool(replay.view, at, query_int(request, "viewer")))

    async def replay_hint(self, request: Request) -> Response:
        replay = self.replay(request)
        data = await self.read_json(request)
        at = int_field(data, "at", 0)
        budget = Budget.from_request(data, self.hint_seconds)
        seed, bot, question = int_field(data, "seed", 0, 0, 2 ** 63 - 1), self.hint_bot(data), question_of(data)
        job = await run_in_threadpool(lambda: self.hints.start(replay.state_at(at), budget, seed=seed, bot=bot,
                                                               question=question))
        return JSONResponse(job.snapshot(), status_code=202)

    async def replay_review(self, request: Request) -> Response:
        """Start reviewing the replay's game (or answer its running review): web/reviews.py."""
        replay = self.replay(request)
        budget = int_field(await self.read_json(request), "budget", None, 1, 10 ** 7)
        job = await run_in_threadpool(self.reviews.start, replay.id, replay.record_line, budget)
        return JSONResponse(job.snapshot(), status_code=202)

    def review_job(self, request: Request):
        job = self.reviews.get(request.path_params["id"])
        if job is None:
            raise NotFound(f"no review {short_repr(request.path_params['id'])} on this server")
        return job

    async def review(self, request: Request) -> Response:
        return JSONResponse(await run_in_threadpool(self.review_job(request).snapshot))

    async def cancel_review(self, request: Request) -> Response:
        job = self.review_job(request)
        await self.read_json(request)     # a POST with a JSON body ({}), as every state-changing request
        job.cancel()
        return JSONResponse(job.snapshot())

    # ---- hints and positions

    @staticmethod
    def hint_bot(data: dict) -> BotSpec:
        """The request's bot (default: the hint's search), read here at the edge."""
        bot = data.get("bot", DEFAULT_BOT)
        if not isinstance(bot, str):
            raise ThurnError(f"bot must be a spec such as 'mcts' or 'pimc(iterations=500)', not {short_repr(bot)}")
        return BotSpec.parse(check_request_spec(bot))

    async def hint(self, request: Request) -> Response:
        job = self.hints.get(request.path_params["id"])
        if job is None:
            raise NotFound(f"no hint {short_repr(request.path_params['id'])} on this server")
        return JSONResponse(job.snapshot())

    async def check_position(self, request: Request) -> Response:
        data = await self.read_json(request)
        if "text" not in data and "position" not in data:
            raise ThurnError('give {"position": {...}} or {"text": "<the JSON of a position>"}')

        def check():
            position = parse_position_text(data["text"]) if "text" in data else data["position"]
            result = check_for_editor(position)
            result["input"] = position
            return result
        return JSONResponse(await run_in_threadpool(check))

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
            Route("/api/games/{id}/moves", a(self.move_set), methods=["POST"]),
            Route("/api/games/{id}/step", a(self.step), methods=["POST"]),
            Route("/api/games/{id}/undo", a(self.undo), methods=["POST"]),
            Route("/api/games/{id}/hint", a(self.game_hint), methods=["POST"]),
            Route("/api/games/{id}/record", a(self.game_record)),
            Route("/api/games/{id}/position", a(self.game_position)),
            Route("/api/replays", a(self.new_replay), methods=["POST"]),
            Route("/api/replays/{id}", a(self.get_replay)),
            Route("/api/replays/{id}/view", a(self.replay_at)),
            Route("/api/replays/{id}/hint", a(self.replay_hint), methods=["POST"]),
            Route("/api/replays/{id}/review", a(self.replay_review), methods=["POST"]),
            Route("/api/reviews/{id}", a(self.review)),
            Route("/api/reviews/{id}/cancel", a(self.cancel_review), methods=["POST"]),
            Route("/api/hints/{id}", a(self.hint)),
            Route("/api/positions/check", a(self.check_position), methods=["POST"]),
            Mount("/static", app=StaticFiles(directory=STATIC), name="static"),
        ]


def create_app(record_text: str | None = None, record_source: str = "record", game: int = 1,
               position: dict | None = None, hint_seconds: float = DEFAULT_SECONDS,
               allowed_hosts: list[str] | None = None, max_searches: int = 2,
               replay_process: bool = True, pace_refusals: bool = True) -> Starlette:
    """The Starlette app. record_text/game: a game record (JSON lines) opened in the replay view at start;
    position: a position dict opened in the set-up view; hint_seconds: the default search time of a hint;
    allowed_hosts: the Host names the server answers (a page on another site that resolves its own name
    to this machine is refused); None answers any. replay_process: record uploads parsed and replayed in a
    worker process (False: in a thread of this one). pace_refusals: refusals beyond a rate are answered
    late (guard.RefusalPacer)."""
    web = WebApp(record_text, record_source, game, position, hint_seconds, max_searches, replay_process)
    pacer = RefusalPacer() if pace_refusals else None
    middleware = [Middleware(Guard, allowed_hosts=allowed_hosts, pacer=pacer)]
    # starlette calls a handler with the exception class it is registered for; its type says Exception
    handlers: dict[Any, Any] = {HTTPException: web.http_error, Exception: web.server_error}
    app = Starlette(routes=web.routes(), middleware=middleware, exception_handlers=handlers)
    app.state.web = web
    return app
