"""Test hook of the tournament's durable store: the environment variable THURN_AI_FAULT=POINT[@N] makes
this process kill itself (SIGKILL) the N-th time (default: the first) it reaches the named point (the
fault() calls in store.py), so tests can stop a run at exact moments, e.g. half-way through the final
rewrite of records.jsonl ("finish-records-half"). Unset, it does nothing."""
from __future__ import annotations

import os
import signal
import sys
import time

FAULT_ENV = "THURN_AI_FAULT"
_fault_counts: dict[str, int] = {}


def fault_target() -> tuple[str, int] | None:
    spec = os.environ.get(FAULT_ENV, "").strip()
    if not spec:
        return None
    point, _, nth = spec.partition("@")
    return point, int(nth) if nth.isdigit() else 1


def fault(point: str) -> None:
    """Test hook: SIGKILL this process when it reaches `point` for the N-th time, if THURN_AI_FAULT says so
    (a no-op otherwise)."""
    target = fault_target()
    if target is None or target[0] != point:
        return
    _fault_counts[point] = _fault_counts.get(point, 0) + 1
    if _fault_counts[point] == target[1]:
        sys.stdout.flush()
        sys.stderr.flush()
        os.kill(os.getpid(), signal.SIGKILL)
        time.sleep(10)      # the signal is delivered at once; never go on


def write(f, text: str, point: str) -> None:
    """f.write(text) in one write, or, when the test hook names `point`, in two halves with the hook between
    them (so a test can kill the process with half of the text on disk)."""
    target = fault_target()
    if target is None or target[0] != point or len(text) < 2:
        f.write(text)
        return
    f.write(text[:len(text) // 2])
    f.flush()
    os.fsync(f.fileno())
    fault(point)
    f.write(text[len(text) // 2:])
