"""Worker processes: where many games are played (in this process, a local process pool, a Dask cluster:
run_each), for tournaments, the learned evaluation's data and the officials study; and worker processes
that end with the process that started them (init_worker; also the web server's record replayer: pass
`init_worker` and `os.getpid()` as a ProcessPoolExecutor's initializer and initargs)."""
from __future__ import annotations

import os
import signal
import sys
import threading
import time

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


# ---------------------------------------------------------------- backends

def in_processes(fn, tasks, jobs: int):
    """Yield fn(task) for every task as they finish, in a pool of `jobs` worker processes that end with this
    process (Ctrl-C stops them; see init_worker). `fn` must be picklable (a module-level function)."""
    from concurrent.futures import ProcessPoolExecutor, as_completed
    pool = ProcessPoolExecutor(max_workers=jobs, initializer=init_worker, initargs=(os.getpid(),))
    try:
        futures = [pool.submit(fn, t) for t in tasks]
        for f in as_completed(futures):
            yield f.result()
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


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
        return Client(address, timeout="15s")
    except (OSError, TimeoutError, ValueError, TypeError) as e:
        raise TournamentError(f"cannot reach the Dask scheduler at {address}: {e}") from None


def _run_dask(fn, tasks, client):
    from distributed import as_completed
    futures = client.map(fn, tasks, pure=False)
    try:
        for f in as_completed(futures):
            yield f.result()
    finally:
        client.cancel(futures)


def run_each(fn, tasks: list, jobs: int = 1, client=None):
    """Yield fn(task) for every task as they finish: on a Dask cluster (a distributed.Client), in a local
    process pool (jobs > 1), or in this process. `fn` must be picklable (a module-level function)."""
    if client is not None:
        return _run_dask(fn, tasks, client)
    if jobs > 1 and len(tasks) > 1:
        return in_processes(fn, tasks, min(jobs, len(tasks)))
    return (fn(t) for t in tasks)


def default_jobs() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1
