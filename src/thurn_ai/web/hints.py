"""Hints in the background: a search of one position (thurn_ai.play.analysis.analyse, what `thurn-ai hint`
prints) runs in a thread while the page polls its progress, so the server keeps answering.

The compiled search releases the GIL, so a thread is enough: the server's other requests run on.
analyse() searches from the view of the player to move only (it re-deals what that player cannot see),
whatever state it is given.
"""
from __future__ import annotations

import asyncio
import itertools
import logging
import math
import os
import secrets
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

from ..play.analysis import DEFAULT_SPEC, analyse, bot_spec
from ..play.turn_options import check_turn_question, open_choices, which_official
from ..bots.base import Analyst, Bot, Searcher
from ..bots.spec import BotSpec, make_bot
from ..play.win_chance import chance_line, win_chance_for
from ..bots.search_options import MAX_ITERATIONS
from ..errors import ThurnError
from ..fileio import short_repr
from ..game.state import GameState
from ..game.notation import CITY_KINDS, move_city, move_kind
from .search_limits import MAX_SECONDS, SearchLimit, limited

log = logging.getLogger("thurn_ai.web")

DEFAULT_SECONDS = 2.0       # a laptop answers in a few seconds; the page can ask for more
MAX_RUNNING = 2             # searches at once (a search takes a core)
MAX_WORKERS = 2             # threads of one search (a spec's workers=64 would start 64)
SEARCH_NICE = 10            # searches run this much nicer than the server, so requests get the cores first
KEEP_JOBS = 100             # finished jobs kept for the page to read
#: a hint nobody has polled for this long is called off (the page polls every 0.2 s, a background tab at
#: least once a second): its search stops and gives its slot back
ABANDON_SECONDS = 30.0
#: what a hint answers: the ranked moves of the next decision (thurn-ai hint), or which official to use this
#: turn (thurn-ai hint --which-official)
QUESTIONS = ("moves", "which_official")


@dataclass(frozen=True)
class Budget:
    """A search budget: seconds, or iterations (exactly one is set)."""
    seconds: float | None = None
    iterations: int | None = None

    @classmethod
    def from_request(cls, data: dict, default_seconds: float = DEFAULT_SECONDS) -> "Budget":
        """The budget a request asks for ({"seconds": 2} or {"iterations": 500}; neither: the default);
        ThurnError for anything else."""
        seconds, iterations = data.get("seconds"), data.get("iterations")
        if seconds is not None and iterations is not None:
            raise ThurnError("give seconds or iterations for a hint, not both")
        if iterations is not None:
            if isinstance(iterations, bool) or not isinstance(iterations, int) \
                    or not 1 <= iterations <= MAX_ITERATIONS:
                raise ThurnError(f"iterations must be a whole number from 1 to {MAX_ITERATIONS:,}, "
                                 f"not {short_repr(iterations)}")
            return cls(iterations=iterations)
        if seconds is None:
            seconds = default_seconds
        if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or not math.isfinite(seconds) \
                or not 0 < seconds <= MAX_SECONDS:
            raise ThurnError(f"seconds must be a number above 0 and at most {MAX_SECONDS:g}, "
                             f"not {short_repr(seconds)}")
        return cls(seconds=float(seconds))

    def shared(self, searches: int) -> "Budget":
        """Each of `searches` searches' share of this budget (the page's budget is the whole question's)."""
        if self.iterations is not None:
            return Budget(iterations=max(1, math.ceil(self.iterations / searches)))
        assert self.seconds is not None     # a budget is iterations or seconds
        return Budget(seconds=self.seconds / searches)


def question_of(data: dict) -> str:
    """The question a hint request asks ("moves" unless it says {"question": "which_official"})."""
    q = data.get("question", "moves")
    if q not in QUESTIONS:
        raise ThurnError(f"question must be one of {', '.join(QUESTIONS)}, not {short_repr(q)}")
    return q


def turn_cities(state: GameState, codes) -> list:
    """The city of each move of a turn (None for a move without one), to mark them on the board."""
    return [state.board.cities[move_city(c)] if move_kind(c) in CITY_KINDS else None for c in codes]


def official_choices_result(state: GameState, choices, each: Budget) -> dict:
    """which_official's answer as the page uses it: the choices best first, each with the cities of its
    recommended turn; the best choice's turn as `recommended_turn` (marked on the board like a hint's)."""
    rows = []
    for c in choices:
        # a value the re-rating never reached is nan: JSON has no nan, the page shows null as "–"
        row: dict[str, Any] = {k: None if isinstance(v, float) and math.isnan(v) else v for k, v in c.to_dict().items()}
        row["recommended_turn"]["cities"] = turn_cities(state, c.recommended_turn.codes)
        rows.append(row)
    return {"question": "which_official", "player": state.current_player, "bot": choices[0].bot,
            "choices": rows, "win_prob_calibrated": all(c.calibrated for c in choices),
            "win_chance": (chance := win_chance_for(choices[0].bot, state.n_players)).to_dict(),
            "win_chance_line": chance_line(chance, rows[0]["win_prob"], rows[0]["visits"]),
            "each_search": {"seconds": each.seconds, "iterations": each.iterations},
            "recommended_turn": rows[0]["recommended_turn"]}


def hint_result(state: GameState, analysis) -> dict:
    """The analysis as the page uses it: analyse()'s JSON form, with the city of each option and of each
    move of the recommended turn (to mark them on the board)."""
    d = analysis.to_dict()
    d["question"] = "moves"
    for row, option in zip(d["options"], analysis.options):
        row["city"] = turn_cities(state, [option.move])[0]
        row["kind"] = move_kind(option.move)
    d["recommended_turn"]["cities"] = turn_cities(state, analysis.recommended_turn.codes)
    return d


def lower_priority() -> None:
    """Make the calling thread (a search) yield the cores to the server's requests: on Linux a nice value
    is a thread's own, and threads it starts (a search's workers) inherit it. Elsewhere nothing changes."""
    try:
        tid = threading.get_native_id()
        os.setpriority(os.PRIO_PROCESS, tid, min(19, os.getpriority(os.PRIO_PROCESS, tid) + SEARCH_NICE))
    except (AttributeError, OSError):
        pass


async def in_search_thread(fn, slots=None, cancelled: threading.Event | None = None):
    """fn() in a thread of its own at lower priority (lower_priority), awaited without holding a worker
    of the server's pool; its exception is raised here. `slots` (a context manager that refuses when
    full) is taken now and given back when fn ends, before its answer is handed over, even if the request
    was given up meanwhile. Every search fn makes stops after MAX_SECONDS, and at once (SearchCancelled)
    when `cancelled` is set."""
    loop = asyncio.get_running_loop()
    limit = SearchLimit.from_now(MAX_SECONDS, cancelled.is_set if cancelled is not None else (lambda: False),
                                 "the search was called off: its request was given up")
    done = loop.create_future()
    if slots is not None:
        slots.__enter__()

    def settle(result, error):
        if not done.done():          # the request may have been cancelled (the client went away)
            done.set_exception(error) if error is not None else done.set_result(result)

    def run():
        lower_priority()
        result, error = None, None
        try:
            with limited(limit):
                result = fn()
        except Exception as e:        # noqa: BLE001 - handed to the request, which answers with it
            error = e
        finally:
            # the slot is given back BEFORE the answer is handed over: a client that asks again as soon as
            # it has the answer must find it free (else 429 under load)
            if slots is not None:
                slots.__exit__(None, None, None)
        loop.call_soon_threadsafe(settle, result, error)
    threading.Thread(target=run, name="bot-step", daemon=True).start()
    return await done


#: how often a waiting step request checks whether its client is still there
DISCONNECT_CHECK = 0.5


async def search_while_connected(request, fn, slots=None):
    """in_search_thread(fn, slots), called off (its search stops, SearchCancelled) as soon as the client
    of `request` disconnects or the request is cancelled: a search nobody waits for gives its slot back."""
    gone = threading.Event()
    task = asyncio.ensure_future(in_search_thread(fn, slots, gone))
    try:
        while True:
            done, _ = await asyncio.wait({task}, timeout=DISCONNECT_CHECK)
            if done:
                return task.result()
            if not gone.is_set() and await request.is_disconnected():
                gone.set()
    except asyncio.CancelledError:
        gone.set()
        raise


def check_search_limits(bot: Bot | None) -> None:
    """ThurnError for a bot whose searches would take more than the server gives one search: more than
    MAX_SECONDS a decision or more than MAX_WORKERS threads (iterations are bounded by the search's own
    MAX_ITERATIONS, pimc's worlds by its MAX_WORLDS; however many, a search on this server stops after
    MAX_SECONDS: search_limits). Bots that do not search pass."""
    if not isinstance(bot, Searcher):
        return
    if bot.time is not None and bot.time > MAX_SECONDS:
        raise ThurnError(f"bot {short_repr(bot.spec)}: a search on this server takes at most {MAX_SECONDS:g} "
                         f"seconds a move, not {bot.time:g}")
    if bot.workers > MAX_WORKERS:
        raise ThurnError(f"bot {short_repr(bot.spec)}: a search on this server uses at most {MAX_WORKERS} "
                         f"threads (workers), not {bot.workers}")


def check_searcher(bot: BotSpec, budget: Budget, players: int) -> None:
    """ThurnError now, not in the search thread, for a spec that cannot search with this budget."""
    if not isinstance(make_bot(bot), Analyst):
        raise ThurnError(f"bot {short_repr(str(bot))} cannot analyse a position; use a search bot such as mcts "
                         "or pimc")
    check_search_limits(make_bot(bot_spec(bot, budget.iterations, budget.seconds, players)))


class HintJob:
    """One search running (or run) in a thread."""

    def __init__(self, state: GameState, budget: Budget, seed: int, bot: BotSpec, question: str = "moves"):
        self.id = secrets.token_hex(8)
        self.budget = budget
        self.question = question
        self.rated: tuple[int, int] | None = None      # (choices rated, choices) of a which-official job
        self.player = state.current_player
        self.status = "running"
        self.result: dict | None = None
        self.error: str | None = None
        self.started = time.monotonic()
        self.seen = self.started           # when the page last asked about it (snapshot)
        self.finished: float | None = None
        self._state = state.clone()        # the caller's state may move on meanwhile
        self._seed = seed
        self._bot = bot
        self.thread = threading.Thread(target=self._run, name=f"hint-{self.id}", daemon=True)

    def abandoned(self) -> bool:
        """Whether nobody has asked about this hint for ABANDON_SECONDS (the page was closed)."""
        return time.monotonic() - self.seen > ABANDON_SECONDS

    def _run(self) -> None:
        lower_priority()
        limit = SearchLimit(self.started + MAX_SECONDS, self.abandoned,
                            f"the hint was called off: nobody asked for it for {ABANDON_SECONDS:g} seconds")
        try:
            with limited(limit):     # at most MAX_SECONDS whatever the budget; stopped when abandoned
                if self.question == "which_official":
                    self.result = self._which_official()
                else:
                    a = analyse(self._state, bot=self._bot, iterations=self.budget.iterations,
                                seconds=self.budget.seconds, seed=self._seed)
                    self.result = hint_result(self._state, a)
            self.status = "done"
        except ThurnError as e:
            self.error = str(e)
            self.status = "error"
        except Exception as e:       # a bug: the page gets one line, the server log the traceback
            log.exception("hint search failed")
            self.error = f"the search failed ({type(e).__name__}: {e})"
            self.status = "error"
        finally:
            self.finished = time.monotonic()

    def _which_official(self) -> dict:
        """Rate every open choice of official (two searches each, sharing the job's budget)."""
        searches = 2 * len(open_choices(self._state))
        each = self.budget.shared(searches)
        self.rated = (0, searches // 2)

        def rated(done, total):
            self.rated = (done, total)
        choices = which_official(self._state, bot=self._bot, iterations=each.iterations, seconds=each.seconds,
                                 seed=self._seed, on_rated=rated)
        return official_choices_result(self._state, choices, each)

    def snapshot(self) -> dict:
        """What the page polls: status, elapsed seconds, progress (0-1 for a time budget, None when the
        budget is in iterations and the end cannot be foreseen), and the result or the error."""
        self.seen = time.monotonic()
        end = self.finished if self.finished is not None else self.seen
        elapsed = end - self.started
        if self.status != "running":
            progress = 1.0
        elif self.budget.seconds:
            progress = min(elapsed / self.budget.seconds, 0.99)
        elif self.rated is not None:
            progress = min(self.rated[0] / self.rated[1], 0.99)
        else:
            progress = None
        return {"id": self.id, "status": self.status, "question": self.question, "player": self.player,
                "elapsed": round(elapsed, 2),
                "progress": progress, "seconds": self.budget.seconds, "iterations": self.budget.iterations,
                "result": self.result, "error": self.error}


class HintJobs:
    """The hint searches of one server: at most MAX_RUNNING at once, the last KEEP_JOBS kept."""

    def __init__(self, max_running: int = MAX_RUNNING, keep: int = KEEP_JOBS):
        self.max_running = max_running
        self.keep = keep
        self._jobs: OrderedDict[str, HintJob] = OrderedDict()
        self._lock = threading.Lock()

    def running(self) -> int:
        return sum(j.status == "running" for j in self._jobs.values())

    def start(self, state: GameState, budget: Budget, seed: int = 0, bot: BotSpec = DEFAULT_SPEC,
              question: str = "moves") -> HintJob:
        """Start a search of `state` for the player to move (question: "moves", or "which_official" for
        the turn's choice of official, see QUESTIONS); ThurnError when the game is over or there is no
        choice of official to make, and BusyError when MAX_RUNNING searches are running already."""
        if state.is_terminal():
            raise ThurnError("the game is over: there is no move to hint")
        if question == "which_official":
            check_turn_question(state)
        check_searcher(bot, budget, state.n_players)
        with self._lock:
            if self.running() >= self.max_running:
                raise BusyError(f"{self.running()} searches are running already; wait for one to finish")
            job = HintJob(state, budget, seed, bot, question)
            self._jobs[job.id] = job
            finished = [k for k, j in self._jobs.items() if j.status != "running"]
            for k in itertools.islice(finished, max(0, len(self._jobs) - self.keep)):
                del self._jobs[k]
        job.thread.start()
        return job

    def get(self, job_id: str) -> HintJob | None:
        return self._jobs.get(job_id)

    def wait_all(self, timeout: float = 10.0) -> None:
        """Wait for running searches (tests, shutdown)."""
        for job in list(self._jobs.values()):
            job.thread.join(timeout)


class BusyError(ThurnError):
    """Too many searches at once (the page is asked to wait: HTTP 429)."""
