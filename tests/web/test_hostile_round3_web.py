"""Hostile input, third round, the web server (issue 44): idle and slow connections cannot starve it, and
every search it runs is bounded in time and called off when the one who asked for it leaves.

Bounds here are generous (they prove that something ends, not how fast): the time a server takes is
measured in experiments/web_idle.py.
"""
from __future__ import annotations

import socket
import time

import pytest

pytest.importorskip("starlette")
httpx = pytest.importorskip("httpx")

import thurn_ai
from thurn_ai.bots import make_bot
from thurn_ai.bots.base import Observation
from thurn_ai.web import BackgroundServer, create_app
from thurn_ai.web import hints as web_hints
from thurn_ai.web import server as web_server

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")
JSON = {"content-type": "application/json"}


def closed_by_server(sock: socket.socket, within: float) -> bool:
    """Whether the server closes `sock` (recv returns b"" or the connection is reset) within `within` s."""
    sock.settimeout(within)
    try:
        return sock.recv(1024) == b""
    except socket.timeout:
        return False
    except OSError:
        return True


def address(url: str) -> tuple[str, int]:
    host, port = url.split("//")[1].rstrip("/").split(":")
    return host, int(port)


def test_a_connection_that_sends_no_request_is_closed(monkeypatch):
    monkeypatch.setattr(web_server, "HEADER_SECONDS", 0.5)
    with BackgroundServer(create_app(replay_process=False)) as url:
        silent = socket.create_connection(address(url))
        slow = socket.create_connection(address(url))
        slow.sendall(b"GET /api/startup HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: a")   # never finished
        assert closed_by_server(silent, 20)
        assert closed_by_server(slow, 20)
        assert httpx.get(url + "api/startup").status_code == 200
        silent.close()
        slow.close()


def test_idle_connections_beyond_the_budget_make_room_for_a_request(monkeypatch):
    monkeypatch.setattr(web_server, "MAX_CONNECTIONS", 20)
    with BackgroundServer(create_app(replay_process=False)) as url:
        idle = [socket.create_connection(address(url)) for _ in range(60)]
        try:
            time.sleep(0.2)
            for _ in range(5):
                r = httpx.get(url + "api/startup", timeout=20)
                assert r.status_code == 200, r.status_code
        finally:
            for s in idle:
                s.close()


def test_a_limited_search_stops_at_its_deadline_and_is_called_off():
    from thurn_ai.web.search_limits import SearchCancelled, SearchLimit, limited
    g = thurn_ai.new_game(players=2, seed=3)
    bot = make_bot("mcts(iterations=10000000)", 1)
    with limited(SearchLimit.from_now(0.3)):
        result = bot.search(Observation(g, 0, 7))
    assert 0 < result.iterations < 10_000_000
    bot = make_bot("mcts(iterations=10000000)", 1)
    with pytest.raises(SearchCancelled), limited(SearchLimit.from_now(60, lambda: True, "gone")):
        bot.search(Observation(g, 0, 7))
    # outside a limit, nothing changes
    bot = make_bot("mcts(iterations=300)", 1)
    assert bot.search(Observation(g, 0, 8)).iterations == 300


def test_a_limited_search_that_ends_in_time_gives_the_same_answer():
    from thurn_ai.web.search_limits import SearchLimit, limited
    from thurn_ai.play.analysis import analyse
    g = thurn_ai.new_game(players=2, seed=5)
    plain = analyse(g, iterations=600, seed=2).to_dict()
    with limited(SearchLimit.from_now(60)):
        sliced = analyse(g, iterations=600, seed=2).to_dict()
    assert sliced == plain


def test_a_hint_of_ten_million_iterations_ends_by_the_deadline(monkeypatch):
    monkeypatch.setattr(web_hints, "MAX_SECONDS", 1.0)
    jobs = web_hints.HintJobs()
    g = thurn_ai.new_game(players=2, seed=3)
    job = jobs.start(g, web_hints.Budget(iterations=10_000_000))
    job.thread.join(60)              # unlimited, it would search for minutes
    assert not job.thread.is_alive()
    assert job.status == "done", job.error
    assert 0 < sum(o["visits"] for o in job.result["options"]) < 10_000_000


def test_a_hint_nobody_polls_is_called_off(monkeypatch):
    monkeypatch.setattr(web_hints, "ABANDON_SECONDS", 0.5)
    jobs = web_hints.HintJobs()
    g = thurn_ai.new_game(players=2, seed=3)
    job = jobs.start(g, web_hints.Budget(iterations=10_000_000))
    job.thread.join(60)
    assert not job.thread.is_alive()
    assert job.status == "error" and "called off" in job.error
    assert jobs.running() == 0


def test_a_step_whose_client_leaves_is_called_off():
    app = create_app(replay_process=False)
    with BackgroundServer(app) as url:
        with httpx.Client(base_url=url, headers=JSON, timeout=20) as c:
            gid = c.post("/api/games", json={"seats": "mcts(iterations=10000000),human"}).json()["id"]
        game = app.state.web.sessions.get(gid, "game")
        with pytest.raises(httpx.TimeoutException):
            httpx.post(f"{url}api/games/{gid}/step", json={}, headers=JSON, timeout=1.0)
        deadline = time.monotonic() + 60     # unlimited, the bot would think for minutes
        while game.thinking and time.monotonic() < deadline:
            time.sleep(0.2)
        assert not game.thinking
        assert len(game.table.moves) == 0    # called off: no move played from half a search
