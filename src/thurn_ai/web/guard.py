"""What every request passes before the app sees it (an ASGI middleware): the Host it names, and for a
request that changes something, where it comes from.

A server on 127.0.0.1 is reachable from every web page the user opens. Two checks keep other sites out:
- Host: when bound to loopback, only the loopback names are answered, so a page elsewhere that makes its
  own name resolve to this machine (DNS rebinding) is refused.
- Origin: a request that is not GET/HEAD/OPTIONS is refused when the browser says it comes from another
  site (an `Origin` header that is not this server's own, or `Sec-Fetch-Site` other than same-origin /
  none), and when it carries a body that is not `application/json` (a page can send text/plain or a form
  to any address without asking; JSON from another origin needs the server's permission first, which
  this server never gives). Clients that are not browsers (curl, scripts) send neither header and pass.
Every refusal is JSON, as the API promises.

Refusals are also paced (RefusalPacer): a client that repeats refused requests as fast as they are
answered is the cheapest way to keep the server's one Python thread busy, so beyond a rate of refusals
they are answered late, and the connection closed.
"""
from __future__ import annotations

import asyncio
import json
import time
from urllib.parse import urlsplit

SAFE_METHODS = {"GET", "HEAD", "OPTIONS"}
SAME_SITE_FETCH = {"same-origin", "none"}     # `none`: the user typed the address or used a bookmark


def _header(scope, name: bytes) -> str | None:
    for k, v in scope.get("headers", ()):
        if k == name:
            return v.decode("latin-1")
    return None


def _host_name(host: str) -> str:
    """'127.0.0.1' from '127.0.0.1:8000', '[::1]' from '[::1]:8000'."""
    if host.startswith("["):
        return host[:host.find("]") + 1] if "]" in host else host
    return host.rsplit(":", 1)[0] if host.count(":") == 1 else host


def refusal(scope, allowed_hosts: list[str] | None) -> tuple[int, str] | None:
    """(status, message) when the request must be refused, else None."""
    host = _header(scope, b"host") or ""
    if allowed_hosts is not None and _host_name(host).lower() not in allowed_hosts:
        return 400, (f"this server answers only the host names {', '.join(allowed_hosts)}, not "
                     f"{json.dumps(host[:100])} (a page on another site may not reach it)")
    if scope["method"] in SAFE_METHODS:
        return None
    fetch_site = _header(scope, b"sec-fetch-site")
    if fetch_site is not None and fetch_site.lower() not in SAME_SITE_FETCH:
        return 403, f"a request from another site ({fetch_site}) may not change anything on this server"
    origin = _header(scope, b"origin")
    if origin is not None:
        parts = urlsplit(origin)
        if origin == "null" or parts.scheme not in ("http", "https") or parts.netloc.lower() != host.lower():
            return 403, (f"a request from {json.dumps(origin[:100])} may not change anything on this server "
                         "(only its own page may)")
    content_type = (_header(scope, b"content-type") or "").split(";")[0].strip().lower()
    length = _header(scope, b"content-length")
    has_body = (length is not None and length.strip() not in ("", "0")) or _header(scope, b"transfer-encoding")
    if has_body and content_type != "application/json":
        return 415, ("a request body must be JSON with the header Content-Type: application/json, not "
                     f"{json.dumps(content_type[:60] or 'none')}")
    return None


# The answers that refuse a request (bad input, another site, too large, too slow, too many at once).
# 404 and 409 are not among them: a page meets them in normal use (a game pushed out, a move too late).
REFUSED = {400, 403, 408, 413, 415, 429}


class RefusalPacer:
    """A token bucket over the refusals of all clients: `rate` a second on average, bursts of `burst`.
    A refusal beyond it waits until its turn (at most `max_delay` seconds) and closes its connection.
    Measured under 50 hostile clients (results/web_load/): answering ~60 refusals a second was the largest
    share of the work the event loop did for them; a client that waits for each answer (as they do) is
    slowed to the rate, and the wait costs the server only an idle connection (uvicorn keeps at most 256)."""

    def __init__(self, rate: float = 20.0, burst: float = 40.0, max_delay: float = 5.0, clock=time.monotonic):
        self.rate, self.burst, self.max_delay, self.clock = rate, burst, max_delay, clock
        self.tokens, self.last = burst, clock()

    def delay(self) -> float:
        """Seconds this refusal waits (0 within the rate); takes its token (a late one keeps its place)."""
        now = self.clock()
        self.tokens = min(self.burst, self.tokens + (now - self.last) * self.rate)
        self.last = now
        self.tokens = max(self.tokens - 1, -self.max_delay * self.rate)     # waiting at most max_delay
        return 0.0 if self.tokens >= 0 else -self.tokens / self.rate

    def wrap(self, send):
        async def paced_send(message):
            if message["type"] == "http.response.start" and message["status"] in REFUSED:
                wait = self.delay()
                if wait > 0:
                    await asyncio.sleep(wait)
                    headers = [h for h in message.get("headers", ()) if h[0].lower() != b"connection"]
                    message = {**message, "headers": headers + [(b"connection", b"close")]}
            await send(message)
        return paced_send


class Guard:
    """ASGI middleware: refuses (JSON 400/403/415) what `refusal` refuses, passes the rest to `app`;
    every refusal (its own and the app's) is paced by `pacer` (None: not paced)."""

    def __init__(self, app, allowed_hosts: list[str] | None = None, pacer: RefusalPacer | None = None):
        self.app = app
        self.allowed_hosts = [h.lower() for h in allowed_hosts] if allowed_hosts else None
        self.pacer = pacer

    async def __call__(self, scope, receive, send):
        if scope["type"] == "http":
            if self.pacer is not None:
                send = self.pacer.wrap(send)
            refused = refusal(scope, self.allowed_hosts)
            if refused is not None:
                status, message = refused
                body = json.dumps({"error": message}).encode()
                await send({"type": "http.response.start", "status": status,
                            "headers": [(b"content-type", b"application/json"),
                                        (b"content-length", str(len(body)).encode()),
                                        (b"connection", b"close")]})
                await send({"type": "http.response.body", "body": body})
                return
        await self.app(scope, receive, send)
