"""The web server under attack: `thurn-ai serve` on 127.0.0.1 with hostile and normal clients at once.

    nice -n 10 python experiments/web_load.py                    # 50 hostile, 4 normal clients, 60 s
    nice -n 10 python experiments/web_load.py --hostile 50 --normal 4 --seconds 60 --out results/web_load

The server runs in its own process (the installed code of this checkout, with an audit hook that logs
every file it opens). Hostile clients loop over the attacks of issue 26 for `--seconds` (each request with
a 30 s client timeout): quadratic and deep JSON bodies, board paths (/dev/zero, /etc/hostname, a FIFO),
searching bots at the largest budget a seat may have (mcts(time=120)), hints at the largest budget, too many
threads or worlds, requests from another origin or as text/plain, a foreign Host, bodies that never arrive,
huge Content-Length, 20 MB bodies, long records to replay. Normal clients play games as the page does
(new game, view, move, bot step, position, startup) and time every request.

Reported (JSON in --out/web_load.json, a table on stdout): normal requests' latency percentiles (ms) while
attacked, their status counts and errors; hostile requests by status and by error class; the server's peak
resident memory (VmHWM, MB); tracebacks in its log; files it opened outside the packaged boards, page and
Python's own files. Stops by itself: the clients end after --seconds, the server is then killed.
Targets (issue 26): normal p99 < 200 ms, peak memory < 2 GB, 0 tracebacks, 0 paths opened outside.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent

# The server process: thurn-ai serve with an audit hook that logs each file opened (to find any path a
# request made the server open). Files of the package and of Python itself are expected.
SERVER = r"""
import os, sys
log = open(sys.argv[1], "a", buffering=1)
def hook(event, args):
    if event == "open" and args and isinstance(args[0], str):
        log.write(args[0] + "\n")
sys.addaudithook(hook)
sys.argv = ["thurn-ai", "serve", "--host", "127.0.0.1", "--port", "0"]
from thurn_ai.cli import main
main()
"""


def long_record() -> str:
    """A legal record of a long game (random bots: thousands of moves), as the page would upload it."""
    import thurn_ai
    from thurn_ai.bots import make_bot
    from thurn_ai.play.match import play_game
    rec = play_game(thurn_ai.Rules(players=4), [make_bot("random", k) for k in range(4)], seed=7)
    return rec.to_json()


class Stats:
    def __init__(self):
        self.normal_ms: list[float] = []
        self.normal_status: Counter = Counter()
        self.normal_errors: Counter = Counter()
        self.hostile_status: Counter = Counter()
        self.hostile_errors: Counter = Counter()
        self.attacks: Counter = Counter()
        self.samples: dict[str, str] = {}      # the first answer of each (attack, status)


async def normal_client(url: str, stop: float, stats: Stats, rng: random.Random):
    """Plays games as the page does, timing every request."""
    async with httpx.AsyncClient(base_url=url, timeout=30) as c:
        async def timed(method, path, **kw):
            t0 = time.perf_counter()
            try:
                r = await c.request(method, path, **kw)
            except httpx.HTTPError as e:
                stats.normal_errors[type(e).__name__] += 1
                return None
            stats.normal_ms.append((time.perf_counter() - t0) * 1000)
            stats.normal_status[r.status_code] += 1
            return r

        game = None
        while time.monotonic() < stop:
            if game is None or game.get("over"):
                r = await timed("POST", "/api/games", json={"seats": "human,random", "seed": rng.getrandbits(32)})
                game = r.json() if r is not None and r.status_code == 201 else None
                continue
            gid = game["id"]
            if game["waiting_for"] == "person" and game["legal"]:
                r = await timed("POST", f"/api/games/{gid}/move", json={"move": rng.choice(game["legal"])["move"]})
                game = r.json()["view"] if r is not None and r.status_code == 200 else None
            elif game["waiting_for"] == "bot":
                r = await timed("POST", f"/api/games/{gid}/step")
                game = r.json()["view"] if r is not None and r.status_code == 200 else None
            else:
                game = None
            if rng.random() < 0.3:
                await timed("GET", f"/api/games/{gid}")
            if rng.random() < 0.1:
                await timed("GET", f"/api/games/{gid}/position")
            if rng.random() < 0.05:
                await timed("GET", "/api/startup")
            await asyncio.sleep(0.02)     # a person clicks; the page polls


def attacks(fifo: str, record: str):
    evil = ("[" * 65 + '"' + '\\"' * 500_000).encode()                 # 1 MB: the quadratic check
    deep = b"[" * 1_000_000
    big = json.dumps({"text": "x" * (20 * 2 ** 20)}).encode()          # 20 MB body
    js = {"content-type": "application/json"}
    return {
        "quadratic JSON 1 MB": lambda c: c.post("/api/games", content=evil, headers=js),
        "deep JSON 1 MB": lambda c: c.post("/api/positions/check", content=deep, headers=js),
        # the record upload is the one route that reads bodies this large: there they are checked
        "quadratic JSON 1 MB as a record": lambda c: c.post("/api/replays", content=evil, headers=js),
        "deep JSON 1 MB as a record": lambda c: c.post("/api/replays", content=deep, headers=js),
        "board /dev/zero": lambda c: c.post("/api/games", json={"seats": "random,random", "board": "/dev/zero"}),
        "board /etc/hostname": lambda c: c.post("/api/games",
                                                json={"seats": "random,random", "board": "/etc/hostname"}),
        "board FIFO": lambda c: c.post("/api/games", json={"seats": "random,random", "board": fifo}),
        "foreign origin": lambda c: c.post("/api/games", json={"seats": "random,random"},
                                           headers={"origin": "http://evil.example"}),
        "text/plain body": lambda c: c.post("/api/games", content=b'{"seats":"random,random"}',
                                            headers={"content-type": "text/plain"}),
        "foreign Host": lambda c: c.get("/api/startup", headers={"host": "evil.example"}),
        "huge Content-Length": "huge",
        "20 MB body": lambda c: c.post("/api/replays", content=big, headers=js),
        "long record": lambda c: c.post("/api/replays", json={"text": record}),
        "mcts(time=120) seat step": "step",
        "mcts(workers=64) seat": lambda c: c.post("/api/games", json={"seats": "mcts(workers=64),human"}),
        "pimc(worlds=1e9) seat": lambda c: c.post("/api/games", json={"seats": "pimc(worlds=1000000000),human"}),
        "mcts(time=3600) seat": lambda c: c.post("/api/games", json={"seats": "mcts(time=3600),human"}),
        "mcts(time=1e-9) step": "tiny step",
        "hint 120 s": "hint",
        "hint workers=64": "hint workers",
        "slow body": "slow",
    }


async def raw_request(url: str, length: int) -> int:
    """Headers saying `length` bytes and 9 of them, then nothing: the server must answer (413 for a huge
    length, 408 when the body does not arrive) and close."""
    host, port = url.split("//")[1].rstrip("/").split(":")
    reader, writer = await asyncio.open_connection(host, int(port))
    try:
        writer.write(b"POST /api/games HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                     b"Content-Length: %d\r\n\r\n{\"seats\":" % length)
        await writer.drain()
        line = await asyncio.wait_for(reader.readline(), 40)
        m = re.match(rb"HTTP/1.1 (\d+)", line)
        return int(m.group(1)) if m else 0
    finally:
        writer.close()


async def hostile_client(url: str, stop: float, stats: Stats, rng: random.Random, kinds: dict):
    async with httpx.AsyncClient(base_url=url, timeout=30) as c:
        while time.monotonic() < stop:
            name = rng.choice(list(kinds))
            what = kinds[name]
            stats.attacks[name] += 1
            r = None
            try:
                if what in ("slow", "huge"):
                    status = await raw_request(url, 1000 if what == "slow" else 2 ** 40)
                elif what in ("step", "tiny step"):
                    seat = "mcts(time=120)" if what == "step" else "mcts(time=1e-9)"
                    r = await c.post("/api/games", json={"seats": f"{seat},human"})
                    if r.status_code == 201:
                        r = await c.post(f"/api/games/{r.json()['id']}/step")
                elif what in ("hint", "hint workers"):
                    r = await c.post("/api/games", json={"seats": "human,random"})
                    if r.status_code == 201:
                        body = {"seconds": 120} if what == "hint" else {"bot": "mcts(workers=64)"}
                        r = await c.post(f"/api/games/{r.json()['id']}/hint", json=body)
                else:
                    r = await what(c)
                if r is not None:
                    status = r.status_code
                    stats.samples.setdefault(f"{name}: {status}", r.text[:160])
                stats.hostile_status[f"{name}: {status}"] += 1
            except (httpx.HTTPError, OSError, asyncio.TimeoutError) as e:
                stats.hostile_errors[f"{name}: {type(e).__name__}"] += 1
            await asyncio.sleep(rng.random() * 0.05)


def peak_rss_mb(pid: int) -> float:
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return float("nan")


def outside_paths(log: Path) -> list[str]:
    """Files the server opened that are neither the package's nor Python's own (nor /proc, /dev/urandom)."""
    import thurn_ai
    allowed = [str(Path(thurn_ai.__file__).parent), sys.prefix, sys.base_prefix, "/proc/", "/dev/urandom",
               "/etc/localtime", "/etc/mime.types", "/usr/share/zoneinfo", "/sys/"]
    allowed += [p for p in sys.path if p and os.path.isdir(p)]
    opened = [line.strip() for line in log.read_text(errors="replace").splitlines() if line.strip()]
    return sorted({p for p in opened if not any(os.path.abspath(p).startswith(a) for a in allowed)})


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    values = sorted(values)
    return values[min(len(values) - 1, int(q / 100 * len(values)))]


async def attack(url: str, args, fifo: str, record: str) -> Stats:
    stats = Stats()
    stop = time.monotonic() + args.seconds
    rng = random.Random(args.seed)
    kinds = attacks(fifo, record)
    clients = [hostile_client(url, stop, stats, random.Random(rng.getrandbits(32)), kinds)
               for _ in range(args.hostile)]
    clients += [normal_client(url, stop, stats, random.Random(rng.getrandbits(32))) for _ in range(args.normal)]
    await asyncio.gather(*clients)
    return stats


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hostile", type=int, default=50)
    ap.add_argument("--normal", type=int, default=4)
    ap.add_argument("--seconds", type=float, default=60.0)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", type=Path, default=None, help="folder for web_load.json and server.log")
    args = ap.parse_args(argv)
    record = long_record()
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        fifo = str(tmp / "fifo")
        os.mkfifo(fifo)
        opened_log = tmp / "opened.txt"
        stderr_log = tmp / "server.log"
        env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
        with open(stderr_log, "w") as err:
            server = subprocess.Popen([sys.executable, "-c", SERVER, str(opened_log)], cwd=tmp, env=env,
                                      stdout=subprocess.PIPE, stderr=err, text=True)
            try:
                first = server.stdout.readline()
                m = re.search(r"(http://\S+/)", first)
                if not m:
                    raise SystemExit(f"the server did not start: {first!r}")
                url = m.group(1)
                opened_log.write_text("")          # what it opened to start is not the requests' doing
                t0 = time.monotonic()
                stats = asyncio.run(attack(url, args, fifo, record))
                elapsed = time.monotonic() - t0
                peak = peak_rss_mb(server.pid)
                alive = server.poll() is None
            finally:
                server.kill()
                server.wait(10)
        log_text = stderr_log.read_text(errors="replace")
        outside = outside_paths(opened_log)
        if args.out:
            args.out.mkdir(parents=True, exist_ok=True)
            (args.out / "server.log").write_text(log_text)
    result = {
        "settings": {"hostile_clients": args.hostile, "normal_clients": args.normal, "seconds": args.seconds,
                     "seed": args.seed, "elapsed_s": round(elapsed, 1)},
        "normal": {"requests": len(stats.normal_ms),
                   "latency_ms": {q: round(percentile(stats.normal_ms, q), 1) for q in (50, 90, 99, 100)},
                   "mean_ms": round(statistics.fmean(stats.normal_ms), 1) if stats.normal_ms else None,
                   "status": dict(sorted(stats.normal_status.items())), "errors": dict(stats.normal_errors)},
        "hostile": {"requests": sum(stats.attacks.values()), "by_attack": dict(sorted(stats.attacks.items())),
                    "status": dict(sorted(stats.hostile_status.items())),
                    "errors": dict(sorted(stats.hostile_errors.items())),
                    "first_answer": dict(sorted(stats.samples.items()))},
        "server": {"peak_rss_mb": round(peak, 1), "alive_at_end": alive,
                   "tracebacks": log_text.count("Traceback"), "paths_opened_outside": outside},
    }
    text = json.dumps(result, indent=1)
    print(text)
    if args.out:
        from thurn_ai.fileio import atomic_write_text
        atomic_write_text(args.out / "web_load.json", text + "\n")
    ok = (result["normal"]["latency_ms"][99] < 200 and peak < 2048 and not result["server"]["tracebacks"]
          and not outside and alive)
    print("targets met" if ok else "targets NOT met", file=sys.stderr)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
