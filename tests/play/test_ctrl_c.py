"""Ctrl-C during a long run: the first one says "stopping" at once and stops the workers without waiting for
their games; a second one never hangs and never prints a traceback; what was written is intact and
--resume completes to the same results as an uninterrupted run.

The signals are real: SIGINT sent to the process group of a `python -m thurn_ai.cli tournament` subprocess,
as a terminal sends it."""
import itertools
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from thurn_ai.play import workers

pytestmark = pytest.mark.skipif(not hasattr(os, "killpg"), reason="sends real signals to a process group (POSIX)")

SPECS = "mcts(iterations=120),greedy"
SEED = 5
GAMES = 4


def default_sigint():
    """In the child, before it runs Python: Ctrl-C's default disposition. A test runner's worker may ignore
    SIGINT, and an ignored signal stays ignored across exec, so Python would not install its own handler
    and the command under test would never see the Ctrl-C these tests send (as a user's shell never does)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def start(out: Path, *extra: str, bots: str = SPECS) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "thurn_ai.cli", "tournament", "--bots", bots, "--seed", str(SEED),
                             "--no-progress", "--jobs", "2", "--out", str(out), *extra],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
                            preexec_fn=default_sigint)


def wait_for(condition, proc, seconds: float = 120):
    deadline = time.time() + seconds
    while not condition():
        assert proc.poll() is None, proc.communicate()
        assert time.time() < deadline, "the run did not get that far"
        time.sleep(0.05)


def workers_of(proc) -> list:
    psutil = pytest.importorskip("psutil")
    return psutil.Process(proc.pid).children(recursive=True)


def ended_within(proc, seconds: float) -> tuple[str, str]:
    try:
        return proc.communicate(timeout=seconds)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        pytest.fail(f"still running {seconds} s after Ctrl-C")


def test_one_ctrl_c_stops_the_workers_at_once_without_waiting_for_their_games(tmp_path):
    # games of a deep search last minutes: the run must not wait for the two in progress
    p = start(tmp_path / "t", "--games", "4", bots="mcts(iterations=1000000),greedy")
    wait_for(lambda: len(workers_of(p)) >= 2, p)
    time.sleep(1.0)                                 # the workers are inside their games
    children = workers_of(p)
    os.killpg(p.pid, signal.SIGINT)
    _, err = ended_within(p, 20)
    assert "stopping" in err and "Traceback" not in err, err
    assert "--resume" in err
    assert p.returncode == 130, err
    time.sleep(0.5)
    assert not [c.pid for c in children if c.is_running() and c.status() != "zombie"], "workers left running"


def test_one_ctrl_c_stops_a_long_search_in_this_process(tmp_path):
    # --jobs 1 plays in the tournament's own process: the search itself must notice Ctrl-C (it runs in
    # compiled code, in slices with a look for signals between them)
    p = subprocess.Popen([sys.executable, "-m", "thurn_ai.cli", "tournament", "--bots",
                          "mcts(iterations=3000000),greedy", "--games", "2", "--jobs", "1", "--no-progress",
                          "--out", str(tmp_path / "t")],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
                            preexec_fn=default_sigint)
    wait_for(lambda: (tmp_path / "t" / "tournament.json").exists(), p)
    time.sleep(1.5)                                 # inside the first search
    os.killpg(p.pid, signal.SIGINT)
    _, err = ended_within(p, 15)
    assert "stopping" in err and "Traceback" not in err and p.returncode == 130, err


def test_ctrl_c_twice_ends_in_seconds_without_a_traceback_and_resume_completes(tmp_path):
    out = tmp_path / "t"
    p = start(out, "--games", str(GAMES))
    records = out / "records.jsonl"
    wait_for(lambda: records.exists() and records.read_bytes().count(b"\n") >= 1, p)
    os.killpg(p.pid, signal.SIGINT)
    time.sleep(0.2)
    os.killpg(p.pid, signal.SIGINT)                 # pressed twice, as people do
    _, err = ended_within(p, 15)
    assert "Traceback" not in err and "Exception ignored" not in err, err
    assert "stopping" in err
    assert p.returncode in (130, -signal.SIGINT), err
    lines = records.read_text(encoding="utf-8").splitlines(keepends=True)
    assert lines and all(line.endswith("\n") and json.loads(line)["game"] for line in lines)   # intact
    p = start(out, "--resume")
    got, err = ended_within(p, 300)
    assert p.returncode == 0, err
    ref = tmp_path / "ref"
    r = start(ref, "--games", str(GAMES))            # the same tournament, uninterrupted
    ref_table, err = ended_within(r, 300)
    assert r.returncode == 0, err
    for name in ("results.csv", "records.jsonl"):
        assert (out / name).read_bytes() == (ref / name).read_bytes(), name
    assert got.replace(str(out), "OUT") == ref_table.replace(str(ref), "OUT")     # the same table


def test_tasks_are_handed_to_the_pool_as_workers_free_up():
    taken = itertools.count()

    def tasks():
        for k in range(100_000):
            next(taken)
            yield k

    results = workers.in_processes(abs, tasks(), jobs=2)
    first = [next(results) for _ in range(3)]
    results.close()
    assert len(first) == 3
    # lazily: a few ahead of the free workers, not all 100,000 (each result frees a worker, which takes the next,
    # so on a busy machine a few hundred may be handed out while this thread waits for its third result)
    assert next(taken) <= 1_000


def test_one_ctrl_c_stops_the_officials_study_at_once(tmp_path):
    pytest.importorskip("pyarrow")
    p = subprocess.Popen([sys.executable, "-m", "thurn_ai.cli", "officials", "--bot", "mcts", "--budget", "2=2000000",
                          "--players", "2", "--games", "4", "--jobs", "2", "--out", str(tmp_path / "study"), "--quiet"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
                            preexec_fn=default_sigint)
    wait_for(lambda: len(workers_of(p)) >= 2, p)
    time.sleep(1.0)
    os.killpg(p.pid, signal.SIGINT)
    _, err = ended_within(p, 20)
    assert "stopping" in err and "Traceback" not in err and p.returncode == 130, err
    assert "run the same command again to continue" in err


STOPPED_POOL_AT_EXIT = """
import os, sys, time
from concurrent.futures import ProcessPoolExecutor
from thurn_ai.play import workers

pool = ProcessPoolExecutor(1, initializer=workers.init_worker, initargs=(os.getpid(),))
pool.submit(time.sleep, 60)                      # a game in progress
time.sleep(0.5)
wakeup = pool._executor_manager_thread_wakeup
close = wakeup.close

def slow_close():                                # the manager is still closing its pipe when the interpreter exits
    time.sleep(1.0)
    close()

def send_bytes(data):                            # a write after the stop: it races that close (Bad file descriptor)
    os.write(2, b"woken while closing\\n")

wakeup.close = slow_close
workers.TERMINATE_GRACE = 0.2
workers.stop_pool(pool)
wakeup._writer.send_bytes = send_bytes
"""


def test_a_stopped_pool_is_not_woken_while_it_closes_at_the_interpreters_exit():
    # Python 3.11's exit hook writes to a pool manager's pipe without the lock its close takes; after Ctrl-C on
    # a loaded machine the two met and the run ended in "Exception ignored ... Bad file descriptor"
    r = subprocess.run([sys.executable, "-c", STOPPED_POOL_AT_EXIT], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert "woken while closing" not in r.stderr and "Traceback" not in r.stderr, r.stderr
