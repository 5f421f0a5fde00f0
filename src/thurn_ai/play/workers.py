"""Worker processes: where many games are played (in this process, a local process pool, a Dask cluster:
run_each), for tournaments, the learned evaluation's data and the officials study; and worker processes
that end with the process that started them (init_worker; also the web server's record replayer: pass
`init_worker` and `os.getpid()` as a ProcessPoolExecutor's initializer and initargs)."""
from __future__ import annotations

import itertools
import os
import signal
import sys
import threading
import time
from collections.abc import Iterable, Sized

from ..errors import TournamentError

PR_SET_PDEATHSIG = 1
NO_PDEATHSIG_ENV = "THURN_AI_TEST_NO_PDEATHSIG"   # tests: rely on the portable watcher alone
PARENT_POLL_SECONDS = 0.5


def init_worker(parent_pid: int):
    """Pool worker set-up. Ctrl-C goes to the whole process group; only the parent handles it (and stops
    the pool). And a worker must not outlive the process that started it: if that is killed (SIGKILL gives it
    no chance to stop its pool), the worker ends too -- at once on Linux (PR_SET_PDEATHSIG), and elsewhere
    within PARENT_POLL_SECONDS (a thread watches for the worker being handed to another parent)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if sys.platform.startswith("linux") and not os.environ.get(NO_PDEATHSIG_ENV):
        try:
            import ctypes
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        except (OSError, AttributeError):
            pass
    ppid = os.getppid()
    if ppid != parent_pid and not _alive(parent_pid):
        os._exit(1)              # the parent died before this worker started

    def watch():
        while True:
            time.sleep(PARENT_POLL_SECONDS)
            if os.getppid() != ppid:
                os._exit(1)

    threading.Thread(target=watch, name="watch-parent", daemon=True).start()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    return True


# ---------------------------------------------------------------- stopping

#: The local worker pools of this process that are running games (a second Ctrl-C kills their workers).
_running_pools: set = set()
#: Tasks handed to a local pool ahead of the workers, per worker: enough to keep every worker busy while
#: the results of others are written, few enough that a run of a million games holds a handful in memory.
AHEAD_PER_WORKER = 2
#: How long a stopped pool's workers get to end after SIGTERM before they are killed (seconds).
TERMINATE_GRACE = 2.0


def _workers(pool) -> list:
    # ProcessPoolExecutor keeps its processes in _processes (Python 3.8-3.14; 3.14 adds terminate_workers)
    return list((getattr(pool, "_processes", None) or {}).values())


def stop_pool(pool) -> None:
    """Stop a pool at once: pending tasks cancelled, running ones abandoned (their workers terminated)
    rather than waited for, as ProcessPoolExecutor.terminate_workers does in Python 3.14."""
    workers = _workers(pool)
    manager = getattr(pool, "_executor_manager_thread", None)     # shutdown() forgets both
    pool.shutdown(wait=False, cancel_futures=True)
    for w in workers:
        try:
            w.terminate()
        except (OSError, ValueError):
            pass                 # already ended
    for w in workers:
        try:
            w.join(TERMINATE_GRACE)
            if w.is_alive():
                w.kill()
                w.join(TERMINATE_GRACE)
        except (OSError, ValueError, AssertionError):
            pass
    if manager is not None:      # sees the workers gone and ends; joined here, not at the interpreter's exit
        manager.join(TERMINATE_GRACE)
        _not_woken_at_exit(manager)


def _not_woken_at_exit(manager) -> None:
    """Python 3.11's exit hook wakes every pool's manager thread by writing to its pipe without the lock the
    thread takes to close that pipe (3.12 added one, CPython gh-125451): a manager still closing when the
    interpreter exits, as after Ctrl-C on a loaded machine, makes it print "Exception ignored ... Bad file
    descriptor". A stopped pool needs no wake-up (its shutdown gave it one); the interpreter still joins the
    thread, which is not a daemon."""
    try:
        from concurrent.futures import process
        process._threads_wakeups.pop(manager, None)
    except (ImportError, AttributeError):
        pass


def _kill_running_workers() -> None:
    for pool in list(_running_pools):
        for w in _workers(pool):
            try:
                os.kill(w.pid, signal.SIGKILL)
            except (OSError, TypeError):
                pass


def _say(text: str) -> None:
    """A line on stderr from a signal handler: written at once, never an encoding error."""
    enc = getattr(sys.stderr, "encoding", None) or "ascii"
    try:
        os.write(2, text.encode(enc, errors="replace"))
    except (OSError, LookupError):
        pass


class stop_on_ctrl_c:
    """For a command's long run (a tournament, the officials study, a data generator): the first Ctrl-C
    says "stopping..." at once and raises KeyboardInterrupt, so the run stops its workers at once (see
    in_processes) and keeps what it saved; any later Ctrl-C kills the workers and exits at once with
    status 130 (what is on disk is safe: every write is atomic or an append a resume checks). Outside the
    main thread, or under a SIGINT handler other than Python's default one (a notebook's), it does nothing.

        with stop_on_ctrl_c():
            run_tournament(...)
    """

    def __enter__(self):
        self._installed = (threading.current_thread() is threading.main_thread()
                           and signal.getsignal(signal.SIGINT) is signal.default_int_handler)
        if self._installed:
            signal.signal(signal.SIGINT, self._first)
        return self

    def _first(self, signum, frame):
        signal.signal(signal.SIGINT, self._again)
        _say("\nstopping\u2026 (what is saved is kept; press Ctrl-C again to quit at once)\n")
        raise KeyboardInterrupt

    @staticmethod
    def _again(signum, frame):
        _kill_running_workers()
        _say("\nstopped at once\n")
        os._exit(130)

    def __exit__(self, *exc):
        # once stopping, a later Ctrl-C (during the clean-up and the interpreter's exit) must still quit at
        # once, never raise a second KeyboardInterrupt into clean-up code: the handler stays
        if self._installed and signal.getsignal(signal.SIGINT) == self._first:
            signal.signal(signal.SIGINT, signal.default_int_handler)
        return False


# ---------------------------------------------------------------- backends

def in_processes(fn, tasks, jobs: int):
    """Yield fn(task) for every task as they finish, in a pool of `jobs` worker processes that end with this
    process. Tasks are handed to the pool as workers free up (AHEAD_PER_WORKER per worker at most), so
    `tasks` may be a long lazy iterable. When the caller stops early (Ctrl-C, an error, closing the
    generator) the pool is stopped at once (stop_pool): games in progress are abandoned, not waited for.
    `fn` must be picklable (a module-level function)."""
    from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
    pool = ProcessPoolExecutor(max_workers=jobs, initializer=init_worker, initargs=(os.getpid(),))
    _running_pools.add(pool)
    todo = iter(tasks)
    running: set = set()
    complete = False

    def hand_out():
        for task in todo:
            running.add(pool.submit(fn, task))
            if len(running) >= jobs * AHEAD_PER_WORKER:
                return

    try:
        hand_out()
        while running:
            finished, _ = wait(running, return_when=FIRST_COMPLETED)
            running.difference_update(finished)
            hand_out()                 # before the caller writes the results: the workers stay busy
            for f in finished:
                yield f.result()
        complete = True
    finally:
        try:
            if complete:
                pool.shutdown(wait=True)
            else:
                stop_pool(pool)
        finally:
            _running_pools.discard(pool)


CONNECT_TIMEOUT = "15s"   # how long a Dask scheduler that does not answer is waited for


def connect(address: str):
    """A Dask client for the scheduler at address (TournamentError if it cannot be reached)."""
    try:
        from distributed import Client
    except ImportError:
        raise TournamentError("--scheduler needs dask.distributed, which is not installed: "
                              "pip install \"thurn-ai[dask]\"") from None
    if address.startswith("tls://"):
        import dask
        if not all(dask.config.get(f"distributed.comm.tls.{k}", None)
                   for k in ("ca-file", "client.cert", "client.key")):
            raise TournamentError(
                f"a tls:// scheduler ({address}) needs the CA file and this client's certificate and key: set "
                "DASK_DISTRIBUTED__COMM__TLS__CA_FILE, DASK_DISTRIBUTED__COMM__TLS__CLIENT__CERT and "
                "DASK_DISTRIBUTED__COMM__TLS__CLIENT__KEY (see docs/tournaments.md)")
    try:
        return Client(address, timeout=CONNECT_TIMEOUT)
    except (OSError, TimeoutError, ValueError, TypeError) as e:
        raise TournamentError(f"cannot reach the Dask scheduler at {address}: {e}") from None


def _run_dask(fn, tasks, client):
    """As in_processes, on a Dask cluster: tasks are handed out as results come back (at most
    AHEAD_PER_WORKER per worker thread of the cluster, at least 64), and cancelled when stopped."""
    from distributed import as_completed
    try:
        ahead = max(64, AHEAD_PER_WORKER * sum(client.nthreads().values()))
    except Exception:        # noqa: BLE001 -- a scheduler that cannot say: a fixed number
        ahead = 64
    todo = iter(tasks)
    first = [client.submit(fn, t, pure=False) for t in itertools.islice(todo, ahead)]
    running = as_completed(first)
    pending = set(first)
    try:
        for f in running:
            pending.discard(f)
            for t in itertools.islice(todo, 1):
                nxt = client.submit(fn, t, pure=False)
                pending.add(nxt)
                running.add(nxt)
            yield f.result()
    finally:
        client.cancel(list(pending))


def run_each(fn, tasks: Iterable, jobs: int = 1, client=None):
    """Yield fn(task) for every task as they finish: on a Dask cluster (a distributed.Client), in a local
    process pool (jobs > 1), or in this process. `tasks` may be a lazy iterable (they are handed out as
    workers free up). `fn` must be picklable (a module-level function)."""
    if client is not None:
        return _run_dask(fn, tasks, client)
    if isinstance(tasks, Sized):
        jobs = min(jobs, len(tasks))
    if jobs > 1:
        return in_processes(fn, tasks, jobs)
    return (fn(t) for t in tasks)


def default_jobs() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1
