"""Hostile input, fourth round, the web server (issue 57): clients that ask for a large response and never
read it cannot make the server hold it without bound -- a write timeout drops them, and what the server
holds for all connections together stays under MAX_BUFFERED_BYTES.

The server is the project's own (web.server's protocol, uvicorn) serving a small app whose one route
answers a large body, so any response of the real app behaves alike."""
from __future__ import annotations

import socket
import time

import pytest

pytest.importorskip("starlette")
httpx = pytest.importorskip("httpx")

from starlette.applications import Starlette
from starlette.responses import Response
from starlette.routing import Route

from thurn_ai.web import BackgroundServer
from thurn_ai.web import server as web_server

BIG = 16 * 2 ** 20          # larger than what the kernel's socket buffers take for a client that reads nothing


def big_app() -> Starlette:
    body = b"x" * BIG

    async def big(request):
        return Response(body, media_type="application/octet-stream")

    async def small(request):
        return Response(b"ok")

    return Starlette(routes=[Route("/big", big), Route("/small", small)])


def slow_reader(url: str) -> socket.socket:
    """A client that asks for the large response and reads none of it (a tiny receive window)."""
    host, port = url.split("//")[1].rstrip("/").split(":")
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    s.connect((host, int(port)))
    s.sendall(f"GET /big HTTP/1.1\r\nHost: {host}\r\n\r\n".encode())
    return s


def held(server: BackgroundServer) -> int:
    """Response bytes the server holds in its transports for clients to read."""
    return sum(c.transport.get_write_buffer_size() for c in list(server.server.server_state.connections)
               if c.transport is not None)


def test_a_client_that_never_reads_is_dropped_and_its_response_freed(monkeypatch):
    monkeypatch.setattr(web_server, "WRITE_SECONDS", 1.0)
    server = BackgroundServer(big_app())
    with server as url:
        s = slow_reader(url)
        try:
            deadline = time.time() + 20
            while held(server) == 0:                   # the response is written, most of it held
                assert time.time() < deadline, "the response was never held"
                time.sleep(0.05)
            deadline = time.time() + 20
            while held(server) > 0 or server.server.server_state.connections:
                assert time.time() < deadline, f"still holding {held(server)} bytes for a client that reads nothing"
                time.sleep(0.1)
            assert httpx.get(url + "small", timeout=20).text == "ok"
        finally:
            s.close()


def test_what_all_slow_readers_hold_together_is_bounded(monkeypatch):
    budget = 2 * BIG + 2 ** 20          # 8 readers of 16 MB each held 107 MB before the bound
    monkeypatch.setattr(web_server, "MAX_BUFFERED_BYTES", budget)
    server = BackgroundServer(big_app())
    with server as url:
        readers = []
        most = 0
        try:
            for _ in range(8):
                readers.append(slow_reader(url))
                for _ in range(10):
                    time.sleep(0.05)
                    most = max(most, held(server))
            # the budget, and for a moment the response being written before the oldest readers are dropped
            assert most <= budget + BIG, f"held {most / 2 ** 20:.0f} MB for slow readers, over the budget"
            r = httpx.get(url + "big", timeout=60)      # a client that reads gets its whole response
            assert r.status_code == 200 and len(r.content) == BIG
        finally:
            for s in readers:
                s.close()
