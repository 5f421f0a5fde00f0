"""Hostile input, fifth round, the web server (issue 72, audit 5 N6): past its connection limit the
server answers 503 and closes, it never resets a request it is reading; idle connections still make room."""
from __future__ import annotations

import socket

import pytest

pytest.importorskip("starlette")
httpx = pytest.importorskip("httpx")

from thurn_ai.web import BackgroundServer, create_app
from thurn_ai.web import server as web_server

from tests.web.test_hostile_round3_web import address

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

REQUEST = b"GET /api/startup HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"


def answer(sock: socket.socket) -> str:
    """The status line the server answered with, 'closed' if it closed without one, 'reset' if it reset."""
    sock.settimeout(60)
    data = b""
    try:
        while b"\r\n" not in data:
            part = sock.recv(4096)
            if not part:
                return "closed" if not data else data.decode(errors="replace")
            data += part
    except ConnectionResetError:
        return "reset"
    except socket.timeout:
        return "timeout"
    return data.split(b"\r\n", 1)[0].decode(errors="replace")


def test_a_burst_past_the_connection_limit_is_answered_not_reset(monkeypatch):
    # before: each connection past the limit closed the oldest one not yet answered: most of a burst reset
    monkeypatch.setattr(web_server, "MAX_CONNECTIONS", 10)
    monkeypatch.setattr(web_server, "HARD_MAX_CONNECTIONS", 400, raising=False)
    # every connection has its request waiting in the kernel (as in a burst): none is idle, whatever the
    # order in which the server gets to them
    monkeypatch.setattr(web_server, "_unread", lambda transport: 1, raising=False)
    with BackgroundServer(create_app(replay_process=False)) as url:
        burst = [socket.create_connection(address(url)) for _ in range(80)]
        try:
            for s in burst:                                  # every request sent before any is answered
                s.sendall(REQUEST)
            got = [answer(s) for s in burst]
        finally:
            for s in burst:
                s.close()
        statuses = {g.split(" ")[1] if g.startswith("HTTP/") else g for g in got}
        assert statuses <= {"200", "503"}, sorted(set(got))
        assert httpx.get(url + "api/startup", timeout=20).status_code == 200     # and it serves on


def test_idle_connections_still_make_room_and_a_half_sent_request_is_not_idle(monkeypatch):
    monkeypatch.setattr(web_server, "MAX_CONNECTIONS", 10)
    with BackgroundServer(create_app(replay_process=False)) as url:
        started = socket.create_connection(address(url))
        started.sendall(REQUEST[:20])                       # a request being read
        idle = [socket.create_connection(address(url)) for _ in range(40)]
        try:
            for _ in range(3):
                assert httpx.get(url + "api/startup", timeout=20).status_code == 200
            started.sendall(REQUEST[20:])
            assert answer(started).split(" ")[1] in ("200", "503")
        finally:
            for s in [started, *idle]:
                s.close()
