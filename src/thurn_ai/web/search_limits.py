"""Every search the server runs is bounded in time and can be called off: whatever its budget (a hint of
10 million iterations, a seat `mcts(iterations=10000000)`), it stops after MAX_SECONDS with what it found,
and it stops at once, without a move, when the one who asked for it has gone (the page closed: nobody
polls the hint; the step's request was dropped).

The compiled search (`_search.Tree.run(iterations, seconds)`) cannot be interrupted from outside while it
runs, so a limited search runs each tree in slices of at most SLICE_SECONDS (`run` with both an iteration
and a time budget stops at the first reached) and checks the deadline and the call-off between slices.
A tree's search continues where the last slice stopped (the same tree, the same random stream), so an
iteration budget reached within the deadline gives exactly the answer an unsliced search gives.

How it reaches the trees: `limited(limit)` marks the calling thread; `SearchBot.search` (wrapped once by
install()) hands the trees of a search made in a marked thread to `LimitedTree`. Outside a marked thread
(the command line, tournaments) nothing changes.
"""
from __future__ import annotations

import contextlib
import functools
import threading
import time
from dataclasses import dataclass
from typing import Callable

from ..bots.mcts import SearchBot
from ..errors import ThurnError

#: the longest a search may run on this server, whatever its budget (docs/serve.md promises 120 s)
MAX_SECONDS = 120.0
#: how often a running search checks its deadline and whether it was called off
SLICE_SECONDS = 0.25

_marked = threading.local()


class SearchCancelled(ThurnError):
    """The search was called off: the one who asked for it has gone."""


@dataclass
class SearchLimit:
    """A deadline (time.monotonic()) and a test of whether the search was called off."""
    deadline: float
    cancelled: Callable[[], bool] = lambda: False
    why: str = "the search was called off"

    @classmethod
    def from_now(cls, seconds: float = MAX_SECONDS, cancelled: Callable[[], bool] = lambda: False,
                 why: str = "the search was called off") -> "SearchLimit":
        return cls(time.monotonic() + seconds, cancelled, why)

    def check(self) -> None:
        if self.cancelled():
            raise SearchCancelled(self.why)

    def left(self) -> float:
        return self.deadline - time.monotonic()


class LimitedTree:
    """A search tree whose run() keeps to a SearchLimit (see the module doc); everything else is the tree's."""

    def __init__(self, tree, limit: SearchLimit):
        self._tree = tree
        self._limit = limit

    def __getattr__(self, name):
        return getattr(self._tree, name)

    def run(self, iterations: int = 0, seconds: float = 0.0, cpu: bool = False) -> int:
        """Tree.run's budget (iterations, or seconds of wall-clock or, cpu=True, of this thread's CPU time;
        both: the first reached), in slices that keep to the limit. The slices are timed by the wall
        clock and never longer than what is left of a CPU budget (CPU time never runs ahead of it)."""
        limit, tree = self._limit, self._tree
        clock = time.thread_time if cpu else time.monotonic
        start = clock()
        done = 0
        while True:
            limit.check()
            left = limit.left()
            if seconds > 0:
                left = min(left, seconds - (clock() - start))
            if left <= 0:
                break
            todo = iterations - done if iterations > 0 else 0
            done += tree.run(todo, min(SLICE_SECONDS, left))
            if iterations > 0 and done >= iterations:
                break
        if done == 0 and iterations + seconds > 0:      # past the deadline already: one iteration, so the
            limit.check()                                # search still has a move to give
            done = tree.run(1, 0.0)
        return done


@contextlib.contextmanager
def limited(limit: SearchLimit):
    """Searches made by the calling thread inside this block keep to `limit`."""
    install()
    before = getattr(_marked, "limit", None)
    _marked.limit = limit
    try:
        yield limit
    finally:
        _marked.limit = before


def _limited_search(search):
    @functools.wraps(search)
    def wrapper(self, obs):
        limit = getattr(_marked, "limit", None)
        if limit is None or "_jobs" in self.__dict__:
            return search(self, obs)
        plain = self._jobs
        self._jobs = lambda o, seed: [(LimitedTree(t, limit), i, s) for t, i, s in plain(o, seed)]
        try:
            return search(self, obs)
        finally:
            del self._jobs
    # typeshed types wraps()'s result as functools._Wrapped, which declares no attributes of its own; at run
    # time it is the function `wrapper`, which takes any
    wrapper.limited = True  # type: ignore[attr-defined]
    return wrapper


_install_lock = threading.Lock()


def install() -> None:
    """Wrap SearchBot.search once (see the module doc); a search outside `limited` is unchanged."""
    with _install_lock:
        if not getattr(SearchBot.search, "limited", False):
            SearchBot.search = _limited_search(SearchBot.search)  # type: ignore[method-assign]  # the wrap
