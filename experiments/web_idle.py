"""The web server against idle and slow connections, and searches that nobody waits for (issue 44).

    nice -n 10 python experiments/web_idle.py                          # both parts, about 5 minutes
    nice -n 10 python experiments/web_idle.py --part connections --idle 300 --seconds 30
    nice -n 10 python experiments/web_idle.py --part searches

`thurn-ai serve --port 0` runs in its own process (this checkout's code). One normal client does what the
page does, one request every 50 ms (GET its game, GET /api/startup, POST /api/positions/check) and times
each; meanwhile an attacker holds --idle TCP connections that:

    idle      send nothing (opened once, held for the phase)
    slow      send a request's headers one byte every 2 s (never finishing them)
    reopen    send nothing, and open a new connection as soon as the server closes one

Reported for each phase (a table, and JSON in --out/web_idle.json): the normal requests' p50/p90/p99/max
latency (ms) and status counts; how many of the attacker's connections the server closed and how long they
had been open (the header limit is server.HEADER_SECONDS). Target (issue 44): with 300 idle connections a
normal request's p99 stays under 200 ms, and no normal request is refused.

The `searches` part measures the time bound of web searches (search_limits): a hint of 10,000,000
iterations polled to its end (it must end by MAX_SECONDS = 120 s with what it found), the same hint
started and never polled again (called off after hints.ABANDON_SECONDS), and a seat
`mcts(iterations=10000000)` whose step request is dropped after 2 s (called off at once): for each, the
seconds until its search slot was free again (a new hint or step is accepted).
"""
from __future__ import annotations

import argparse
import json
import os
import re
import signal
import socket
import statistics
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent


def start_server(log_path: Path) -> tuple[subprocess.Popen, str]:
    log = open(log_path, "w")
    proc = subprocess.Popen([sys.executable, "-m", "thurn_ai.cli", "serve", "--host", "127.0.0.1", "--port", "0"],
                            stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    deadline = time.time() + 60
    while time.time() < deadline:
        m = re.search(r"http://127\.0\.0\.1:(\d+)/", log_path.read_text())
        if m:
            return proc, m.group(0).rstrip("/")
        if proc.poll() is not None:
            raise SystemExit(f"the server stopped: {log_path.read_text()}")
        time.sleep(0.2)
    raise SystemExit("the server did not start")


def stop_server(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(10)
    except (ProcessLookupError, subprocess.TimeoutExpired):
        os.killpg(proc.pid, signal.SIGKILL)


def percentile(values, q):
    if not values:
        return float("nan")
    s = sorted(values)
    return s[min(len(s) - 1, int(round(q / 100 * (len(s) - 1))))]


class Attacker:
    """Holds `n` connections of one kind (see the module doc) until stop(); counts those the server closed."""

    def __init__(self, url: str, n: int, kind: str):
        host, port = url.split("//")[1].split(":")
        self.address = (host, int(port))
        self.n, self.kind = n, kind
        self.closed_after: list[float] = []
        self.opened = 0
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self.socks: dict[socket.socket, float] = {}
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _open(self):
        s = socket.create_connection(self.address)
        s.setblocking(False)
        with self._lock:
            self.socks[s] = time.monotonic()
            self.opened += 1
        return s

    def start(self):
        for _ in range(self.n):
            self._open()
        self.thread.start()
        return self

    def _run(self):
        header = b"GET /api/startup HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: " + b"a" * 10_000
        sent: dict[socket.socket, int] = {}
        while not self._stop.is_set():
            for s, opened in list(self.socks.items()):
                closed = False
                try:
                    if s.recv(4096) == b"":
                        closed = True
                except BlockingIOError:
                    pass
                except OSError:
                    closed = True
                if not closed and self.kind == "slow":
                    k = sent.get(s, 0)
                    try:
                        s.send(header[k:k + 1])
                        sent[s] = k + 1
                    except BlockingIOError:
                        pass
                    except OSError:
                        closed = True
                if closed:
                    with self._lock:
                        self.closed_after.append(time.monotonic() - opened)
                        del self.socks[s]
                    s.close()
                    if self.kind == "reopen":
                        try:
                            self._open()
                        except OSError:
                            pass
            self._stop.wait(2.0 if self.kind == "slow" else 0.05)

    def stop(self):
        self._stop.set()
        self.thread.join(10)
        for s in list(self.socks):
            s.close()


def normal_client(url: str, seconds: float) -> dict:
    """The page's requests every 50 ms for `seconds`: latencies (ms) and status counts."""
    lat, status = [], Counter()
    with httpx.Client(base_url=url, timeout=30, headers={"Content-Type": "application/json"}) as c:
        game = c.post("/api/games", json={"seats": "human,random"}).json()["id"]
        position = c.get(f"/api/games/{game}/position").json()
        requests = [("GET", f"/api/games/{game}", None), ("GET", "/api/startup", None),
                    ("POST", "/api/positions/check", {"position": position})]
        end = time.monotonic() + seconds
        k = 0
        while time.monotonic() < end:
            method, path, body = requests[k % len(requests)]
            k += 1
            t = time.perf_counter()
            try:
                r = c.request(method, path, json=body)
                status[r.status_code] += 1
            except httpx.HTTPError as e:
                status[type(e).__name__] += 1
            lat.append((time.perf_counter() - t) * 1000)
            time.sleep(0.05)
    return {"requests": len(lat), "p50": percentile(lat, 50), "p90": percentile(lat, 90),
            "p99": percentile(lat, 99), "max": max(lat), "status": dict(status)}


def connections(url: str, args) -> list[dict]:
    rows = []
    for phase in ["baseline", "idle", "slow", "reopen", "baseline again"]:
        attacker = None
        if phase in ("idle", "slow", "reopen"):
            attacker = Attacker(url, args.idle, phase).start()
            time.sleep(1.0)
        row = {"phase": phase, "connections": args.idle if attacker else 0}
        row.update(normal_client(url, args.seconds))
        if attacker:
            attacker.stop()
            closed = attacker.closed_after
            row.update(opened=attacker.opened, closed_by_server=len(closed),
                       closed_after_s=[round(min(closed), 1), round(statistics.median(closed), 1),
                                       round(max(closed), 1)] if closed else None)
        rows.append(row)
        print(f"{phase:15s} {row['connections']:4d} conns  p50 {row['p50']:6.1f}  p90 {row['p90']:6.1f}  "
              f"p99 {row['p99']:6.1f}  max {row['max']:7.1f} ms  {row['status']}"
              + (f"  server closed {row['closed_by_server']} of {row['opened']} "
                 f"(after min/median/max {row['closed_after_s']} s)" if attacker else ""), flush=True)
        time.sleep(2)
    return rows


def slot_free(c: httpx.Client, game: str) -> bool:
    """Whether a small hint is accepted now (202), i.e. a search slot is free."""
    r = c.post(f"/api/games/{game}/hint", json={"iterations": 50})
    return r.status_code == 202


def searches(url: str) -> list[dict]:
    rows = []
    with httpx.Client(base_url=url, timeout=200, headers={"Content-Type": "application/json"}) as c:
        game = c.post("/api/games", json={"seats": "human,random"}).json()["id"]
        # 1. a hint of 10^7 iterations, polled to its end
        t = time.monotonic()
        job = c.post(f"/api/games/{game}/hint", json={"iterations": 10_000_000}).json()
        while True:
            snap = c.get(f"/api/hints/{job['id']}").json()
            if snap["status"] != "running":
                break
            time.sleep(1.0)
        visits = sum(o["visits"] for o in snap["result"]["options"]) if snap.get("result") else None
        rows.append({"case": "hint of 10^7 iterations, polled", "ended_after_s": round(time.monotonic() - t, 1),
                     "status": snap["status"], "root_visits": visits})
        print(rows[-1], flush=True)
        # 2. two such hints started and never polled: both slots taken, then given back
        t = time.monotonic()
        for _ in range(2):
            c.post(f"/api/games/{game}/hint", json={"iterations": 10_000_000})
        refused = not slot_free(c, game)
        while not slot_free(c, game):
            time.sleep(1.0)
        rows.append({"case": "2 hints of 10^7 iterations, never polled", "slots_full_at_start": refused,
                     "slot_free_after_s": round(time.monotonic() - t, 1)})
        print(rows[-1], flush=True)
        time.sleep(1.0)
        # 3. a seat mcts(iterations=10^7): its step request dropped after 2 s
        g2 = c.post("/api/games", json={"seats": "mcts(iterations=10000000),human"}).json()["id"]
        t = time.monotonic()
        try:
            httpx.post(f"{url}/api/games/{g2}/step", json={}, timeout=2.0)
        except httpx.TimeoutException:
            pass
        while True:          # 409 while the bot still thinks; a new step starts (and times out) once it stopped
            try:
                r = httpx.post(f"{url}/api/games/{g2}/step", json={}, timeout=1.0)
                if r.status_code != 409:
                    break
            except httpx.TimeoutException:
                break
            time.sleep(0.5)
        rows.append({"case": "step of mcts(iterations=10^7), request dropped after 2 s",
                     "bot_free_after_s": round(time.monotonic() - t, 1)})
        time.sleep(2.0)      # the last probe's own step, dropped too, is called off
        print(rows[-1], flush=True)
    return rows


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--part", choices=("all", "connections", "searches"), default="all")
    ap.add_argument("--idle", type=int, default=300, help="attacking connections")
    ap.add_argument("--seconds", type=float, default=30.0, help="seconds a phase")
    ap.add_argument("--out", type=Path, default=None, help="write web_idle.json here")
    args = ap.parse_args(argv)
    log = Path(os.environ.get("TMPDIR", "/tmp")) / f"web_idle_server_{os.getpid()}.log"
    proc, url = start_server(log)
    result = {"idle": args.idle, "seconds": args.seconds}
    try:
        if args.part in ("all", "connections"):
            result["connections"] = connections(url, args)
        if args.part in ("all", "searches"):
            result["searches"] = searches(url)
    finally:
        stop_server(proc)
    text = log.read_text()
    result["server_tracebacks"] = text.count("Traceback")
    print(f"tracebacks in the server's log: {result['server_tracebacks']}")
    if args.out:
        args.out.mkdir(parents=True, exist_ok=True)
        (args.out / "web_idle.json").write_text(json.dumps(result, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
