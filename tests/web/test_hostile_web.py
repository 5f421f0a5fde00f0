"""The web server under hostile requests (issue 26): what a web page or a client can send must not open
files, freeze the server, change it from another site, or exhaust its memory or cores.

Requests go through Starlette's TestClient, or through a real server on 127.0.0.1 (BackgroundServer) where
requests must run at once. Bots that "think" for as long as a test needs are bots whose choose() waits on
an event: what matters is whether the server answers while one waits, not how long a search takes.
"""
from __future__ import annotations

import json
import logging
import socket
import sys
import threading
import time
import warnings

import pytest

pytest.importorskip("starlette")
httpx = pytest.importorskip("httpx")

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

import thurn_ai
from thurn_ai.bots import make_bot
from thurn_ai.bots.mcts import SearchBot
from thurn_ai.errors import BotSpecError
from thurn_ai.play.match import play_game
from thurn_ai.web import BackgroundServer, create_app
from thurn_ai.web import app as web_app
from thurn_ai.web import sessions
from thurn_ai.web.guard import Guard, RefusalPacer
from thurn_ai.web.server import allowed_hosts_for

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")
JSON = {"content-type": "application/json"}


@pytest.fixture
def client():
    with TestClient(create_app(), raise_server_exceptions=False) as c:
        yield c


def clean_error(r, status):
    assert r.status_code == status, (r.status_code, r.text)
    assert r.headers["content-type"].startswith("application/json"), r.headers
    body = r.json()
    assert isinstance(body["error"], str) and body["error"] and "Traceback" not in r.text
    return body["error"]


# ---------------------------------------------------------------- files: nothing a request names is opened

OPENED: list[str] = []
_watching = threading.Event()


def _audit(event, args):
    if _watching.is_set() and event == "open" and args and isinstance(args[0], (str, bytes)):
        OPENED.append(args[0] if isinstance(args[0], str) else args[0].decode(errors="replace"))


sys.addaudithook(_audit)        # one hook for the process; it records only while a test watches


@pytest.fixture
def opened():
    OPENED.clear()
    _watching.set()
    yield OPENED
    _watching.clear()


@pytest.mark.parametrize("board", ["/etc/hostname", "/dev/zero", "/nonexistent/b.json", "south.json",
                                   "../boards/south", "thurn_ai/boards/south.json", "thurn_ai/game/boards/south.json",
                                   ["south"], {"a": 1}, 7])
def test_a_new_game_names_only_a_packaged_board_and_opens_no_path(client, opened, board):
    r = client.post("/api/games", json={"seats": "random,random", "board": board})
    message = clean_error(r, 400)
    assert "board" in message
    assert not [p for p in opened if "boards" not in p and "static" not in p], opened


def test_the_answer_says_nothing_about_whether_a_path_exists(client):
    # a client must not learn whether a file exists, is a folder or holds JSON
    answers = {client.post("/api/games", json={"seats": "random,random", "board": p}).json()["error"].replace(p, "X")
               for p in ("/etc/hostname", "/etc", "/no/such/file.json", "/etc/passwd.json")}
    assert len(answers) == 1, answers


def test_the_packaged_boards_still_start_games(client):
    for board in ("south", "north"):
        r = client.post("/api/games", json={"seats": "random,random", "board": board})
        assert r.status_code == 201 and r.json()["board"] == board


@pytest.mark.parametrize("path", ["/etc/hostname", "/dev/zero", "thurn_ai/learned/value_model.json"])
def test_a_bot_spec_naming_a_weights_file_is_refused_and_nothing_is_opened(client, opened, path):
    # model= names a file (a learned evaluation's weights): a request may not make the server open one
    spec = f"mcts(eval=learned,model={path})"
    message = clean_error(client.post("/api/games", json={"seats": [spec, "human"]}), 400)
    assert "model=" in message and "file" in message
    gid = client.post("/api/games", json={"seats": "human,random", "seed": 2}).json()["id"]
    message = clean_error(client.post(f"/api/games/{gid}/hint", json={"bot": spec, "iterations": 10}), 400)
    assert "model=" in message
    assert not [p for p in opened if path.split("/")[-1] in p], opened


# ---------------------------------------------------------------- other sites' pages may not change anything

@pytest.mark.parametrize("headers, status", [
    ({"origin": "http://evil.example"}, 403),
    ({"origin": "null"}, 403),
    ({"origin": "http://127.0.0.1:1"}, 403),              # another server on this machine
    ({"sec-fetch-site": "cross-site"}, 403),
    ({"sec-fetch-site": "same-site"}, 403),               # another port of localhost is the same site
    ({"origin": "http://testserver", "sec-fetch-site": "same-origin"}, 201),
    ({"sec-fetch-site": "none"}, 201),
    ({}, 201),                                            # not a browser (curl, a script)
])
def test_a_state_changing_request_from_another_site_is_refused(client, headers, status):
    r = client.post("/api/games", json={"seats": "random,random"}, headers=headers)
    if status == 201:
        assert r.status_code == 201, r.text
    else:
        assert "another site" in clean_error(r, status) or "may not change" in r.json()["error"]


@pytest.mark.parametrize("content_type", ["text/plain", "application/x-www-form-urlencoded",
                                          "multipart/form-data; boundary=x", None])
def test_a_body_a_page_may_send_without_asking_is_refused(client, content_type):
    # text/plain and forms need no permission from the server, so a page elsewhere could send them
    headers = {"content-type": content_type} if content_type else {}
    r = client.post("/api/games", content=b'{"seats": "random,random"}', headers=headers)
    assert "Content-Type: application/json" in clean_error(r, 415)


def test_reads_from_anywhere_are_answered_and_every_route_checks_the_origin(client):
    assert client.get("/api/startup", headers={"origin": "http://evil.example"}).status_code == 200
    game = client.post("/api/games", json={"seats": "human,random", "seed": 1}).json()
    evil = {"origin": "http://evil.example"}
    for path in ("/api/games", f"/api/games/{game['id']}/move", f"/api/games/{game['id']}/step",
                 f"/api/games/{game['id']}/hint", "/api/replays", "/api/positions/check", "/api/anything"):
        clean_error(client.post(path, json={}, headers=evil), 403)


def test_the_host_refusal_is_json():
    with TestClient(create_app(allowed_hosts=allowed_hosts_for("127.0.0.1")), base_url="http://127.0.0.1") as c:
        assert c.get("/api/startup").status_code == 200
        assert c.get("/api/startup", headers={"host": "localhost:8123"}).status_code == 200
        assert c.get("/api/startup", headers={"host": "[::1]:8123"}).status_code == 200
        assert "host names" in clean_error(c.get("/api/startup", headers={"host": "attacker.example"}), 400)
        assert "host names" in clean_error(c.get("/", headers={"host": "127.0.0.1.evil.example"}), 400)


# ---------------------------------------------------------------- refusals beyond a rate are answered late

def test_the_refusal_pacer_is_a_token_bucket_with_a_bounded_wait():
    now = [0.0]
    pacer = RefusalPacer(rate=10, burst=2, max_delay=1.0, clock=lambda: now[0])
    assert [pacer.delay() for _ in range(4)] == pytest.approx([0, 0, 0.1, 0.2])   # the 3rd waits its turn
    assert max(pacer.delay() for _ in range(100)) == pytest.approx(1.0)          # never past max_delay
    now[0] += 1.0 + 0.3          # the debt of 1 s is paid back, and 3 tokens more (at most the burst)
    assert [pacer.delay() for _ in range(3)] == pytest.approx([0, 0, 0.1])


def test_create_app_paces_refusals():
    [guard] = [m for m in create_app().user_middleware if m.cls is Guard]
    assert isinstance(guard.kwargs["pacer"], RefusalPacer)


def test_refusals_beyond_the_rate_are_late_and_close_their_connection():
    # the clock stands still: 2 refusals within the burst, then each waits 1 ms more than the one before
    pacer = RefusalPacer(rate=1000, burst=2, clock=lambda: 0.0)
    app = Guard(create_app(pace_refusals=False), pacer=pacer)
    with TestClient(app, raise_server_exceptions=False) as c:
        game = c.post("/api/games", json={"seats": "human,random", "seed": 1}).json()
        for _ in range(5):        # answers that are not refusals take no token
            assert c.get(f"/api/games/{game['id']}").status_code == 200
            assert c.get("/api/games/nosuchgame").status_code == 404
        bad = [c.post("/api/games", json={"seats": "nosuchbot,random"}) for _ in range(4)]
        assert "unknown" in clean_error(bad[2], 400).lower()          # the same answer, late
        assert [r.headers.get("connection") for r in bad] == [None, None, "close", "close"]
        assert pacer.tokens == pytest.approx(-2)
        assert c.get(f"/api/games/{game['id']}").status_code == 200


# ---------------------------------------------------------------- a thinking bot does not freeze the server

class Gate:
    """Makes every search bot's choose() wait until released (a search as long as the test needs)."""

    def __init__(self, monkeypatch):
        self.release = threading.Event()
        self.waiting = threading.Semaphore(0)
        original = SearchBot.choose

        def choose(bot, obs):
            self.waiting.release()
            assert self.release.wait(30), "the test never released the bot"
            return original(bot, obs)
        monkeypatch.setattr(SearchBot, "choose", choose)


@pytest.fixture
def server():
    with BackgroundServer(create_app()) as url:
        with httpx.Client(base_url=url, timeout=30) as http:
            yield http


def in_thread(fn, *args, **kwargs):
    out = {}
    t = threading.Thread(target=lambda: out.setdefault("r", fn(*args, **kwargs)), daemon=True)
    t.start()
    return t, out


def test_the_game_can_be_read_while_its_bot_thinks(server, monkeypatch):
    gate = Gate(monkeypatch)
    game = server.post("/api/games", json={"seats": "mcts(iterations=50),human", "seed": 4}).json()
    gid = game["id"]
    stepping, result = in_thread(server.post, f"/api/games/{gid}/step")
    assert gate.waiting.acquire(timeout=20)
    try:
        # before: these took the game's lock on the event loop and froze every client until the move
        for path in (f"/api/games/{gid}", f"/api/games/{gid}/position", "/api/startup",
                     f"/api/games/{gid}/record"):
            t, out = in_thread(server.get, path)
            t.join(10)
            assert not t.is_alive(), f"GET {path} waited for the bot"
            assert out["r"].status_code == 200, (path, out["r"].text)
        assert out["r"].status_code == 200
        # a second step of the same game is refused, not queued behind the first
        assert "thinking" in clean_error(server.post(f"/api/games/{gid}/step"), 409)
    finally:
        gate.release.set()
    stepping.join(30)
    assert result["r"].status_code == 200 and len(result["r"].json()["view"]["log"]) == 1


def test_searching_bot_steps_are_bounded_in_number(server, monkeypatch):
    gate = Gate(monkeypatch)
    ids = [server.post("/api/games", json={"seats": "mcts(iterations=50),human", "seed": k}).json()["id"]
           for k in range(web_app.MAX_STEPS + 1)]
    threads = []
    try:
        for gid in ids[:web_app.MAX_STEPS]:
            threads.append(in_thread(server.post, f"/api/games/{gid}/step")[0])
            assert gate.waiting.acquire(timeout=20)
        assert "searching" in clean_error(server.post(f"/api/games/{ids[-1]}/step"), 429)
        # a bot that does not search is not held up
        quick = server.post("/api/games", json={"seats": "random,human", "seed": 1}).json()["id"]
        assert server.post(f"/api/games/{quick}/step").status_code == 200
    finally:
        gate.release.set()
    for t in threads:
        t.join(30)
    assert server.post(f"/api/games/{ids[-1]}/step").status_code == 200


@pytest.mark.parametrize("seat, words", [
    ("mcts(time=3600)", "at most 120 seconds"),
    ("mcts(workers=64)", "at most 2 threads"),
    ("pimc(time=121)", "at most 120 seconds"),
    ("pimc(worlds=1000000000)", "worlds must be a whole number from 1 to 1000"),
    ("human(read=1)", "takes no options"),
    ("human(x=1)", "takes no options"),
])
def test_a_seat_asking_more_than_a_search_may_take_is_refused(client, seat, words):
    assert words in clean_error(client.post("/api/games", json={"seats": [seat, "human"]}), 400)


@pytest.mark.parametrize("bot, words", [("mcts(workers=64)", "at most 2 threads"),
                                        ("pimc(worlds=99999999)", "from 1 to 1000")])
def test_a_hint_asking_for_too_many_threads_or_worlds_is_refused(client, bot, words):
    gid = client.post("/api/games", json={"seats": "human,random", "seed": 2}).json()["id"]
    assert words in clean_error(client.post(f"/api/games/{gid}/hint", json={"bot": bot, "iterations": 10}), 400)


def test_unknown_fields_of_a_new_game_are_named(client):
    assert "'colour'" in clean_error(client.post("/api/games", json={"seats": "human,random", "colour": 1}), 400)


class LoopRoundTripSlots(web_app.Slots):
    """Slots whose give-back first waits for one turn of the event loop: if the answer was handed over
    before the slot is given back, the awaiting request resumes (FIFO) before the slot is free, whatever
    the machine's load, so the order is tested without timing."""

    def __init__(self, loop):
        super().__init__(1, "bots are searching")
        self.loop = loop

    def __exit__(self, *exc):
        import asyncio
        asyncio.run_coroutine_threadsafe(asyncio.sleep(0), self.loop).result(timeout=30)
        super().__exit__(*exc)


@pytest.mark.parametrize("fails", [False, True])
def test_a_search_slot_is_given_back_before_its_answer_is_handed_over(fails):
    # before: the answer was settled first and the slot given back after, so a client asking again at once
    # could find the slot still taken (429 "1 bots are searching at once already"; newcomer 6, D2)
    import asyncio

    from thurn_ai.web.hints import in_search_thread

    def fn():
        if fails:
            raise ValueError("no move")
        return "move"

    async def main():
        slots = LoopRoundTripSlots(asyncio.get_running_loop())
        try:
            assert await in_search_thread(fn, slots) == "move"
        except ValueError:
            assert fails
        return slots.taken           # 1 if a client asking again at once would be refused

    assert asyncio.run(main()) == 0


def test_a_bot_with_a_budget_too_short_for_one_iteration_still_moves(client):
    gid = client.post("/api/games", json={"seats": "mcts(time=1e-9),pimc(time=1e-9)", "seed": 5}).json()["id"]
    for _ in range(6):          # before: IndexError, a 500
        r = client.post(f"/api/games/{gid}/step")
        assert r.status_code == 200, r.text


# ---------------------------------------------------------------- replays are bounded in memory

def long_record(players=2, seed=11):
    bots = [make_bot("random", seed + k) for k in range(players)]
    return play_game(thurn_ai.Rules(players=players), bots, seed=seed)


def test_a_replay_keeps_a_state_every_checkpoint_and_recomputes_the_others_exactly():
    rec = long_record()
    replay = sessions.ReplaySession(rec.to_json())
    n = len(rec.moves)
    assert n > 3 * sessions.CHECKPOINT
    # before: a clone of the state after every move (1.5 kB a move)
    assert len(replay.checkpoints) == n // sessions.CHECKPOINT + 1
    state = thurn_ai.new_game(rules=rec.rules, seed=rec.seed)
    for at in range(n + 1):
        if at:
            state.apply(rec.moves[at - 1])
        if at % 7 == 0 or at % sessions.CHECKPOINT in (0, 1, sessions.CHECKPOINT - 1) or at == n:
            assert replay.state_at(at).export() == state.export(), at
    assert replay.state_at(n).is_terminal()


def test_the_replays_kept_are_bounded_in_moves(monkeypatch):
    rec = long_record()
    n = len(rec.moves)
    kept = sessions.Sessions(limit=64, replay_moves=int(2.5 * n))
    game = kept.add(sessions.GameSession(["random", "random"], seed=1))
    replays = [kept.add(sessions.ReplaySession(rec.to_json())) for _ in range(4)]
    alive = [r for r in replays if r.id in kept._items]
    assert alive == replays[-2:]                       # the oldest dropped first, the newest kept
    assert kept.get(game.id, "game") is game           # games are not dropped for replays' sake


@pytest.fixture
def thread_client():
    """Record uploads replayed in a thread of the test's process, where a test can patch the replay."""
    with TestClient(create_app(replay_process=False), raise_server_exceptions=False) as c:
        yield c


def test_record_uploads_are_replayed_in_another_process(client, monkeypatch):
    # the replay holds Python's lock for as long as it runs: in the server's process every request would
    # wait behind it (results/web_load/); in the worker it costs the server only the finished replay
    built = []
    original = sessions.ReplaySession.__init__

    def counted(self, *a, **k):
        built.append(1)
        original(self, *a, **k)
    monkeypatch.setattr(sessions.ReplaySession, "__init__", counted)
    rec = long_record()
    r = client.post("/api/replays", json={"text": rec.to_json()})
    assert r.status_code == 201 and r.json()["n_moves"] == len(rec.moves), r.text
    assert built == []                                     # not built here
    view = client.get(f"/api/replays/{r.json()['id']}/view", params={"at": len(rec.moves) - 1}).json()
    assert view["next_move"]["move"] and view["at"] == len(rec.moves) - 1
    assert "not a game record" in clean_error(client.post("/api/replays", json={"text": "{"}), 400)  # from there


def test_a_record_too_long_for_the_server_is_refused(thread_client, monkeypatch):
    client = thread_client
    rec = long_record()
    monkeypatch.setattr(sessions, "MAX_REPLAY_MOVES", len(rec.moves) - 1)
    message = clean_error(client.post("/api/replays", json={"text": rec.to_json()}), 400)
    assert f"{len(rec.moves):,} moves" in message and "thurn-ai replay" in message


def test_replays_being_built_at_once_are_bounded(thread_client, monkeypatch):
    client = thread_client
    release, started = threading.Event(), threading.Semaphore(0)
    original = sessions.ReplaySession.__init__

    def slow(self, *a, **k):
        started.release()
        release.wait(30)
        original(self, *a, **k)
    monkeypatch.setattr(sessions.ReplaySession, "__init__", slow)
    text = long_record().to_json()
    threads = [in_thread(client.post, "/api/replays", json={"text": text})[0]
               for _ in range(web_app.MAX_REPLAYS_BUILDING)]
    try:
        for _ in threads:
            assert started.acquire(timeout=20)
        assert "being replayed" in clean_error(client.post("/api/replays", json={"text": text}), 429)
    finally:
        release.set()
    for t in threads:
        t.join(30)


# ---------------------------------------------------------------- bodies: size, time, hostile JSON

def test_a_hostile_json_body_is_refused_without_freezing_the_server(client):
    body = ("[" * 65 + '"' + '\\"' * 200_000).encode()   # before: minutes of the event loop
    t0 = time.monotonic()
    assert "nested" in clean_error(client.post("/api/replays", content=body, headers=JSON), 400)
    small = ("[" * 65 + '"' + '\\"' * 100_000).encode()   # under the cap of the other routes
    assert "nested" in clean_error(client.post("/api/games", content=small, headers=JSON), 400)
    assert time.monotonic() - t0 < 20            # a guard against a hang, not a benchmark


def test_bodies_held_at_once_are_bounded(monkeypatch, client):
    monkeypatch.setattr(web_app, "MAX_BODIES", 1000)
    # the budget is made with the app: a new one reads MAX_BODIES now
    with TestClient(create_app(), raise_server_exceptions=False) as small:
        big = json.dumps({"text": "x" * 2000}).encode()
        assert "too many large requests" in clean_error(small.post("/api/replays", content=big, headers=JSON), 429)
        assert small.post("/api/games", json={"seats": "random,random"}).status_code == 201


def raw_request(url: str, head: bytes, body: bytes, wait: float) -> bytes:
    host, port = url.split("//")[1].rstrip("/").split(":")
    with socket.create_connection((host, int(port)), timeout=wait) as s:
        s.sendall(head + body)
        chunks = []
        try:
            while True:
                chunk = s.recv(65536)
                if not chunk:
                    break
                chunks.append(chunk)
        except socket.timeout:
            pass
        return b"".join(chunks)


def test_a_body_that_never_arrives_is_answered_408_and_the_connection_closed(monkeypatch):
    monkeypatch.setattr(web_app, "BODY_SECONDS", 0.5)
    with BackgroundServer(create_app()) as url:
        head = (b"POST /api/games HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                b"Content-Length: 100\r\n\r\n")
        answer = raw_request(url, head, b'{"seats":', wait=10)
    assert answer.startswith(b"HTTP/1.1 408"), answer[:200]
    assert b'"error"' in answer and b"did not arrive" in answer


@pytest.mark.parametrize("path", ["/api/games", "/api/positions/check", "/api/games/{id}/move", "/api/games/{id}/hint"])
def test_a_body_larger_than_a_request_needs_is_refused_before_it_is_read(monkeypatch, path):
    # only a record upload may be large: elsewhere a large body is refused by its Content-Length at once,
    # without waiting for the body (before: read whole, then parsed, up to 40 MB)
    monkeypatch.setattr(web_app, "BODY_SECONDS", 30)
    with BackgroundServer(create_app()) as url:
        path = path.format(id=httpx.post(url + "api/games", json={"seats": "human,random"}).json()["id"])
        head = (f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                f"Content-Length: {web_app.MAX_SMALL_BODY + 1}\r\n\r\n").encode()
        answer = raw_request(url, head, b'{"seats":', wait=10)
    assert answer.startswith(b"HTTP/1.1 413"), answer[:200]
    assert b"larger than 256 kB" in answer


def test_a_record_upload_may_be_larger_than_other_requests(client):
    rec = play_game(thurn_ai.Rules(players=2), [make_bot("random", k) for k in range(2)], seed=3)
    text = (rec.to_json() + "\n") * (web_app.MAX_SMALL_BODY // len(rec.to_json()) + 2)
    assert len(text) > web_app.MAX_SMALL_BODY
    assert client.post("/api/replays", json={"text": text, "game": 2}).status_code == 201
    big = {"position": {"board": "south", "pad": "x" * web_app.MAX_SMALL_BODY}}
    assert "larger than 256 kB" in clean_error(client.post("/api/positions/check", json=big), 413)


def test_a_client_that_disconnects_mid_body_leaves_no_traceback(caplog):
    caplog.set_level(logging.ERROR)
    with BackgroundServer(create_app()) as url:
        host, port = url.split("//")[1].rstrip("/").split(":")
        with socket.create_connection((host, int(port)), timeout=5) as s:
            s.sendall(b"POST /api/replays HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                      b"Content-Length: 1000\r\n\r\n{\"text\": \"")
            time.sleep(0.3)
        time.sleep(0.5)
        assert httpx.get(url + "api/startup").status_code == 200
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert not errors, [r.getMessage() for r in errors]


# ---------------------------------------------------------------- search budgets and bounds (library)

@pytest.mark.parametrize("spec", ["mcts(time=1e-9)", "pimc(time=1e-9)", "mcts(time=1e-9,workers=2)",
                                  "pimc(time=1e-9,worlds=3,workers=2)"])
def test_a_search_too_short_for_one_iteration_still_chooses_a_move(spec):
    # before: 0 iterations, no statistics, IndexError in play, tournament and the web
    rules = thurn_ai.Rules(players=2)
    rec = play_game(rules, [make_bot(spec, 1), make_bot("random", 2)], seed=3)
    assert rec.winner is not None or rec.truncated
    bot = make_bot(spec, 1)
    from thurn_ai.bots.base import Observation
    g = thurn_ai.new_game(rules=rules, seed=1)
    result = bot.search(Observation(g, g.current_player, 1))
    assert result.iterations >= 1 and result.moves


@pytest.mark.parametrize("worlds", [0, 1001, 10 ** 9, True, 2.5])
def test_pimc_worlds_are_bounded(worlds):
    with pytest.raises(BotSpecError, match="from 1 to 1000"):
        make_bot(f"pimc(worlds={worlds})")
    assert make_bot("pimc(worlds=1000)").worlds == 1000
