"""Worker processes that end with the process that started them: a tournament's pool, the web server's
record replayer. Pass `init_worker` and `os.getpid()` as a ProcessPoolExecutor's initializer and initargs."""
from __future__ import annotations

import os
import signal
import sys
import threading
import time

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

