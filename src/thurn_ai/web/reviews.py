"""The board's "Review this game": a replay's record reviewed in the server's background (thurn_ai.play.review,
the same review as `thurn-ai review`), its progress polled by the page.

A review takes a core for a minute or two, so it is bounded like every search of this server: one review
runs at a time on the whole server (MAX_RUNNING: a second replay's review is refused with 429, the same
replay's running review is answered again), its budget is at most MAX_BUDGET iterations a search, it stops
after MAX_SECONDS, and it is called off when asked (POST /api/reviews/{id}/cancel) or when the page stops
polling for ABANDON_SECONDS. It runs in a thread at lower priority, each search sliced and checked
(search_limits.limited), so a call-off ends it within a fraction of a second. The record is the replay's
own (nothing a request names is opened); the review is cached as on the command line (play.review).
"""
from __future__ import annotations

import logging
import secrets
import threading
import time
from collections import OrderedDict

from ..errors import ThurnError
from ..play.match import GameRecord
from ..play.review import DEFAULT_BUDGET, Review, default_cache_dir, review
from .hints import BusyError, lower_priority
from .search_limits import SearchLimit, limited

MAX_RUNNING = 1              # reviews at once on the server (each takes a core for a minute or two)
MAX_BUDGET = DEFAULT_BUDGET  # iterations a search at most: the default review is already the deep one here
MIN_BUDGET = 100
MAX_SECONDS = 600.0          # the longest a review may run
ABANDON_SECONDS = 30.0       # a review nobody polled for this long is called off (the page was closed)
KEEP_JOBS = 20               # finished reviews kept for the page to read
log = logging.getLogger("thurn_ai.web")


class ReviewJob:
    """One review running (or run) in a thread of its own."""

    def __init__(self, replay_id: str, record_line: str, budget: int):
        self.id = secrets.token_hex(8)
        self.replay_id = replay_id
        self.budget = budget
        self.status = "running"
        self.done, self.total = 0, 0
        self.result: dict | None = None
        self.error: str | None = None
        self.started = self.seen = time.monotonic()
        self.finished: float | None = None
        self._line = record_line
        self._stop = threading.Event()
        self.thread = threading.Thread(target=self._run, name=f"review-{self.id}", daemon=True)

    def cancel(self) -> None:
        self._stop.set()

    def _called_off(self) -> bool:
        return (self._stop.is_set() or time.monotonic() - self.seen > ABANDON_SECONDS
                or time.monotonic() - self.started > MAX_SECONDS)

    def _why_stopped(self) -> str:
        if time.monotonic() - self.started > MAX_SECONDS:
            return (f"the review took longer than this server gives one ({MAX_SECONDS:.0f} s); "
                    "`thurn-ai review` reviews a game of any length")
        return "the review was called off"

    def _progress(self, done: int, total: int) -> None:
        self.done, self.total = done, total

    def _run(self) -> None:
        lower_priority()
        limit = SearchLimit(self.started + MAX_SECONDS, self._called_off, "the review was called off")
        try:
            record = GameRecord.from_json(self._line)
            with limited(limit):
                r = review(record, budget=self.budget, progress=self._progress,
                           cancelled=self._called_off, cache_dir=default_cache_dir())
            self.result = review_result(r, record)
            self.status = "done"
        except ThurnError as e:
            self.status = "cancelled" if self._called_off() else "error"
            self.error = str(e) if self.status == "error" else self._why_stopped()
        except Exception as e:       # a bug: the page gets one line, the server log the traceback
            log.exception("review failed")
            self.error = f"the review failed ({type(e).__name__}: {e})"
            self.status = "error"
        finally:
            self.finished = time.monotonic()

    def snapshot(self) -> dict:
        """What the page polls: status (running, done, error, cancelled), decisions done of total, elapsed
        seconds, and the review (review_result) or the error."""
        self.seen = time.monotonic()
        end = self.finished if self.finished is not None else self.seen
        return {"id": self.id, "replay": self.replay_id, "status": self.status, "done": self.done,
                "total": self.total, "elapsed": round(end - self.started, 2), "budget": self.budget,
                "result": self.result, "error": self.error}


#: the labels "Learn from your mistakes" asks about: mistakes and blunders
LEARN_LABELS = ("mistake", "blunder")


def review_result(r: Review, record: GameRecord | None = None) -> dict:
    """The review as the page reads it: Review.to_dict() (every decision: the graph; the labelled ones: the
    list) and, with the record, `learn`: for each mistake and blunder, the legal moves at its position (the
    choices "Learn from your mistakes" offers; the page judges an answer by the decision's best and
    good_moves)."""
    out = r.to_dict()
    if record is not None:
        out["learn"] = learn_positions(r, record)
    return out


def learn_positions(r: Review, record: GameRecord) -> list[dict]:
    """[{index, seat, choices: [{move, official}]}] for each decision labelled a mistake or worse, in game
    order."""
    from ..game.officials import official_of
    from ..play.review import decisions_of
    wanted = {d.index for d in r.decisions if d.label in LEARN_LABELS}
    if not wanted:
        return []
    return [{"index": d.index, "seat": d.seat,
             "choices": [{"move": d.state.move_str(m), "official": official_of(d.state, m)}
                         for m in d.state.legal_moves()]}
            for d in decisions_of(record, moves=wanted)]


class ReviewJobs:
    """The reviews of one server: at most MAX_RUNNING at once, the last KEEP_JOBS kept."""

    def __init__(self, max_running: int = MAX_RUNNING, keep: int = KEEP_JOBS):
        self.max_running = max_running
        self.keep = keep
        self._jobs: OrderedDict[str, ReviewJob] = OrderedDict()
        self._lock = threading.Lock()

    def start(self, replay_id: str, record_line: str, budget: int | None = None) -> ReviewJob:
        """The running review of this replay, or a new one; BusyError when another replay's review runs."""
        budget = DEFAULT_BUDGET if budget is None else budget
        if not MIN_BUDGET <= budget <= MAX_BUDGET:
            raise ThurnError(f"budget must be {MIN_BUDGET} to {MAX_BUDGET} iterations a search on this server, "
                             f"not {budget}")
        with self._lock:
            running = [j for j in self._jobs.values() if j.status == "running"]
            same = [j for j in running if j.replay_id == replay_id and j.budget == budget]
            if same:
                return same[0]
            if len(running) >= self.max_running:
                raise BusyError("another game is being reviewed; wait for it or cancel it")
            job = ReviewJob(replay_id, record_line, budget)
            self._jobs[job.id] = job
            self._forget_old()
        job.thread.start()
        return job

    def _forget_old(self) -> None:
        """Drop the oldest finished reviews beyond KEEP_JOBS (running ones stay)."""
        finished = (k for k, j in list(self._jobs.items()) if j.status != "running")
        while len(self._jobs) > self.keep and (oldest := next(finished, None)) is not None:
            del self._jobs[oldest]

    def get(self, job_id: str) -> ReviewJob | None:
        return self._jobs.get(job_id)

    def cancel_all(self) -> None:
        """Call off every review (tests, shutdown); wait_all(timeout) then waits for their threads."""
        for job in list(self._jobs.values()):
            job.cancel()

    def wait_all(self, timeout: float = 10.0) -> None:
        for job in list(self._jobs.values()):
            job.thread.join(timeout)
