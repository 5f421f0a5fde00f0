"""Running the web app with uvicorn: on a socket bound here first (so a free port is known and printed
before the server starts), in the foreground (`thurn-ai serve`) or in a thread (tests, screenshots).
"""
from __future__ import annotations

import ipaddress
import socket
import struct
import sys
import threading
import time
from typing import Any

from ..errors import ThurnError


def is_loopback(host: str) -> bool:
    """Whether `host` reaches only this machine (localhost, 127.x.x.x, ::1)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def bind(host: str = "127.0.0.1", port: int = 0) -> socket.socket:
    """A listening TCP socket on host:port (port 0: a free port the system chooses); ThurnError with the
    reason when it cannot be had (port in use, unknown host, no permission)."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError) as e:
        raise ThurnError(f"cannot listen on {host}: {getattr(e, 'strerror', None) or e}") from None
    family, _, _, _, address = infos[0]
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(128)
    except OSError as e:
        sock.close()
        raise ThurnError(f"cannot listen on {host} port {port}: {e.strerror or e}") from None
    sock.set_inheritable(True)
    return sock


def url_of(sock: socket.socket) -> str:
    host, port = sock.getsockname()[:2]
    if ":" in host:
        host = f"[{host}]"
    return f"http://{host}:{port}/"


def allowed_hosts_for(host: str) -> list[str] | None:
    """The Host names a server bound to `host` answers: the loopback names when bound to loopback (so a
    web page elsewhere cannot reach it under a name of its own); any when another interface was asked for."""
    if not is_loopback(host):
        return None
    return ["localhost", "127.0.0.1", "[::1]", host]


#: Connections held at once. When a new one would pass it, the connection that has waited longest without
#: sending a byte of a request (idle) is closed to make room: idle connections never shut out a request.
#: A connection whose request is being read is never closed for room: when none is idle, the new one is
#: kept, its request answered 503 by uvicorn (limit_concurrency) and the connection then closed, so a
#: burst of requests is answered, not reset (audit 5, N6).
MAX_CONNECTIONS = 256
#: The most connections held even then: beyond, a new connection is closed at once (the file descriptors
#: and buffers of a flood stay bounded: a few MB). Below it every request is answered, by 503 past the limit.
HARD_MAX_CONNECTIONS = 8 * MAX_CONNECTIONS
#: The longest a connection may take to send a request's headers, from when it opens or from its last
#: answer; a connection that sends nothing, or a header line a minute, is closed after it. (uvicorn arms
#: no timer before the first request: its keep-alive timer starts after a response, and stops at the
#: first byte of the next request.) A request's body has its own limit (app.BODY_SECONDS).
HEADER_SECONDS = 10.0
#: The longest a connection may leave a response unread: when none of what the server holds for it is taken
#: for this long, the connection is dropped and what it held freed (a write timeout).
WRITE_SECONDS = 30.0
#: The most response bytes the server holds for all connections together, waiting for clients to read them.
#: When a response would take it past this, the connections that read least recently are dropped (their
#: buffers freed at once) until it fits, and if it still does not, the one writing. One connection holds at
#: most one response beyond its socket's buffer (uvicorn waits for a connection to drain before it writes
#: more), so this bounds the whole server, whatever the number of slow readers.
MAX_BUFFERED_BYTES = 128 * 2 ** 20


class _MeteredTransport:
    """A connection's transport as its protocol uses it, with every write counted against the server's
    budget (see Guarded._wrote). Everything else goes to the transport itself."""

    def __init__(self, transport, owner):
        self._transport = transport
        self._owner = owner

    def write(self, data) -> None:
        self._transport.write(data)
        self._owner._wrote()

    def __getattr__(self, name):
        return getattr(self._transport, name)


def _drop(transport) -> None:
    """Close a connection; one still holding unsent response bytes is aborted, so they are freed now
    (close() would keep them until the client reads them, which a hostile client never does)."""
    if _buffered(transport):
        transport.abort()
    else:
        transport.close()


def _unread(transport) -> int:
    """Bytes the client sent that the kernel holds and the server has not read yet (0 if unknown): closing
    such a connection would reset it (RST) instead of closing it."""
    try:
        import fcntl
        import termios
        sock = transport.get_extra_info("socket")
        if sock is None:
            return 0
        return struct.unpack("i", fcntl.ioctl(sock.fileno(), termios.FIONREAD, b"\0\0\0\0"))[0]
    except (ImportError, OSError, ValueError, AttributeError, RuntimeError):
        return 0


#: At most this often the C library is asked to give freed memory back to the system (malloc_trim).
TRIM_SECONDS = 1.0
_trimmed_at = [0.0]


def _give_back_memory(now: float) -> None:
    """Freed response buffers given back to the system (glibc keeps freed heap memory for reuse, so RSS
    stayed at its peak after slow readers were dropped: audit 5); at most every TRIM_SECONDS."""
    if now - _trimmed_at[0] < TRIM_SECONDS:
        return
    _trimmed_at[0] = now
    libc = _libc()
    if libc is not None:
        libc.malloc_trim(0)


def _libc():
    try:
        import ctypes
        libc = ctypes.CDLL("libc.so.6")
        return libc if hasattr(libc, "malloc_trim") else None
    except (OSError, AttributeError):
        return None


def fixed_mmap_threshold(size: int = 256 * 2 ** 10) -> None:
    """Allocations of `size` bytes or more (response bodies and buffers) mapped on their own and unmapped
    when freed. glibc raises this threshold after each such free, after which large buffers come from the
    heap and their memory is kept; setting it fixes it (glibc's mallopt M_MMAP_THRESHOLD). No-op elsewhere."""
    libc = _libc()
    if libc is not None:
        libc.mallopt(-3, size)           # M_MMAP_THRESHOLD


def _buffered(transport) -> int:
    try:
        return transport.get_write_buffer_size()
    except (AttributeError, RuntimeError):
        return 0


class _WriteGuard:
    """What the server holds for clients that do not read (WRITE_SECONDS, MAX_BUFFERED_BYTES): the part of
    guarded_protocol's class that watches the response bytes buffered for each connection."""
    _write_timer: Any = None
    _read_at = 0.0           # when the client last took some of what is buffered for it
    _last_buffered = 0
    loop: Any
    transport: Any
    connections: Any

    def _wrote(self) -> None:
        now = self.loop.time()
        held = _buffered(self.transport)
        if held and self._write_timer is None:
            self._read_at, self._last_buffered = now, held
            self._write_timer = self.loop.call_later(WRITE_SECONDS / 3, self._check_reading)
        self._last_buffered = held
        if held and self._total_buffered() > MAX_BUFFERED_BYTES:
            self._free_buffers()

    def _check_reading(self) -> None:
        """The write timeout: a connection that took nothing for WRITE_SECONDS is dropped."""
        self._write_timer = None
        held = _buffered(self.transport)
        if not held or self.transport.is_closing():
            return
        now = self.loop.time()
        if held < self._last_buffered:
            self._read_at = now
        elif now - self._read_at >= WRITE_SECONDS:
            self.transport.abort()
            _give_back_memory(now)
            return
        self._last_buffered = held
        self._write_timer = self.loop.call_later(WRITE_SECONDS / 3, self._check_reading)

    def _total_buffered(self) -> int:
        return sum(_buffered(c.transport) for c in self.connections if isinstance(c, _WriteGuard))

    def _free_buffers(self) -> None:
        """Over the budget: drop the connections holding response bytes that read least recently
        (this one last) until the rest fits."""
        holders = sorted((c for c in self.connections
                          if isinstance(c, _WriteGuard) and c is not self and _buffered(c.transport)),
                         key=lambda c: c._read_at)
        total = self._total_buffered()
        for c in holders + [self]:
            if total <= MAX_BUFFERED_BYTES:
                break
            total -= _buffered(c.transport)
            c.transport.abort()
            self.connections.discard(c)
        _give_back_memory(self.loop.time())


def guarded_protocol(base: type[Any]) -> type[Any]:
    """uvicorn's HTTP protocol class `base` (h11 or httptools) with HEADER_SECONDS and the connection
    budget of MAX_CONNECTIONS (see both). uvicorn's protocols keep the server's connections in one set and
    a request's cycle in `cycle`; this uses only those, connection_made/lost and on_response_complete.
    (`base` is chosen at run time, so the type checker reads what the class inherits as Any.)"""

    class Guarded(_WriteGuard, base):
        _header_timer = None
        _waiting_since = 0.0
        _reading = False          # bytes of a request came since the last answer (or the connection opened)

        def connection_made(self, transport) -> None:
            super().connection_made(_MeteredTransport(transport, self))
            self._await_request()
            if len(self.connections) > MAX_CONNECTIONS:
                self._make_room()

        def data_received(self, data) -> None:
            self._reading = True
            super().data_received(data)

        def on_response_complete(self) -> None:
            super().on_response_complete()
            if self.transport.is_closing():
                return
            if len(self.connections) > MAX_CONNECTIONS:      # answered past the limit: closed, not kept
                self.transport.close()
                return
            self._await_request()

        def connection_lost(self, exc) -> None:
            for name in ("_header_timer", "_write_timer"):
                timer = getattr(self, name)
                if timer is not None:
                    timer.cancel()
                    setattr(self, name, None)
            super().connection_lost(exc)

        def waiting(self) -> bool:
            """Whether the connection waits for a request (none started, or the last one answered)."""
            return self.cycle is None or self.cycle.response_complete

        def _await_request(self) -> None:
            self._reading = False
            self._waiting_since = self.loop.time()
            if self._header_timer is not None:
                self._header_timer.cancel()
            self._header_timer = self.loop.call_later(HEADER_SECONDS, self._header_timeout)

        def _header_timeout(self) -> None:
            self._header_timer = None
            if self.waiting() and not self.transport.is_closing():
                _drop(self.transport)

        def _make_room(self) -> None:
            """Close the connection idle longest (no byte of a request since its last answer, none waiting
            unread in the kernel); if none is idle, keep this one (its request is answered 503) unless the
            server holds HARD_MAX_CONNECTIONS already."""
            idle = [c for c in self.connections
                    if c is not self and isinstance(c, Guarded) and c.waiting() and not c._reading
                    and not c.transport.is_closing()]
            while idle:              # the one idle longest (one pass: min, not a sort, under a flood)
                victim = min(idle, key=lambda c: c._waiting_since)
                if _unread(victim.transport):         # a request arrived, not yet read: not idle
                    idle.remove(victim)
                    continue
                _drop(victim.transport)
                self.connections.discard(victim)     # counted out now, not when the loop gets to it
                return
            if len(self.connections) > HARD_MAX_CONNECTIONS:
                _drop(self.transport)
                self.connections.discard(self)

    Guarded.__name__ = Guarded.__qualname__ = f"Guarded{base.__name__}"
    return Guarded


def _uvicorn_server(app, log_level: str):
    import uvicorn
    from uvicorn.protocols.http.auto import AutoHTTPProtocol
    config = uvicorn.Config(app, log_level=log_level, lifespan="off", access_log=False,
                            http=guarded_protocol(AutoHTTPProtocol),
                            # 503 only when every connection is busy (idle ones make room, see above; the
                            # margin covers a closed connection not yet counted out)
                            limit_concurrency=MAX_CONNECTIONS + 16)
    return uvicorn.Server(config)


#: How often a thread holding the GIL hands it over (Python's default: 5 ms). The server's event loop takes
#: the GIL many times a request; behind a thread that parses or replays, 1 ms keeps its answers quick.
SWITCH_INTERVAL = 0.001


def run(app, sock: socket.socket, log_level: str = "warning") -> None:
    """Serve `app` on `sock` until interrupted (Ctrl+C)."""
    sys.setswitchinterval(SWITCH_INTERVAL)
    fixed_mmap_threshold()
    _allow_open_files(HARD_MAX_CONNECTIONS + 256)
    _uvicorn_server(app, log_level).run(sockets=[sock])


def _allow_open_files(n: int) -> None:
    """Raise the soft limit of open files to `n` (within the hard limit) so HARD_MAX_CONNECTIONS can be held
    (a common soft limit is 1024); unchanged where it cannot be."""
    try:
        import resource
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        want = n if hard == resource.RLIM_INFINITY else min(n, hard)
        if soft != resource.RLIM_INFINITY and soft < want:
            resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))
    except (ImportError, ValueError, OSError):
        pass


class BackgroundServer:
    """The app served in a thread on a loopback port, for tests and scripts:

        with BackgroundServer(create_app()) as url: ...     # url: http://127.0.0.1:PORT/
    """

    def __init__(self, app, host: str = "127.0.0.1", port: int = 0, log_level: str = "warning"):
        self.sock = bind(host, port)
        self.url = url_of(self.sock)
        self.server = _uvicorn_server(app, log_level)
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [self.sock]},
                                       name="thurn-ai-web", daemon=True)

    def start(self, timeout: float = 20.0) -> str:
        self.thread.start()
        deadline = time.monotonic() + timeout
        while not self.server.started:
            if not self.thread.is_alive() or time.monotonic() > deadline:
                raise ThurnError("the web server did not start")
            time.sleep(0.02)
        return self.url

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(10)
        self.sock.close()
        web = getattr(getattr(self.server.config.app, "state", None), "web", None)
        if web is not None and web.replay_worker is not None:
            web.replay_worker.close()

    def __enter__(self) -> str:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()
