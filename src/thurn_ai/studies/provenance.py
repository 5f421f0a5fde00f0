"""Where a result came from: the commit it ran at and whether the code had uncommitted changes.

Results in results/ must come from committed code: a study's runner calls `check_clean()` before it plays
(DirtyTree unless the caller allows a dirty tree, which its report then says) and writes `code_state()`
beside what it made."""
from __future__ import annotations

import json
import subprocess
from pathlib import Path

from ..fileio import atomic_write_text

#: the files whose changes make a result not reproducible from its commit
CODE_PATHS = ("src", "cext", "experiments", "setup.py", "pyproject.toml")


class DirtyTree(Exception):
    """The code has uncommitted changes and the caller did not allow them."""


def _git(root: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, check=True).stdout


def commit(root) -> str:
    """The short hash of the checkout's HEAD ('unknown' outside a git checkout)."""
    try:
        return _git(Path(root), "rev-parse", "--short", "HEAD").strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def uncommitted(root, paths=CODE_PATHS) -> list[str]:
    """Files under `paths` that differ from the commit: changed, staged, deleted or new (not ignored);
    ['(not a git checkout)'] when git cannot tell."""
    try:
        out = _git(Path(root), "status", "--porcelain", "--untracked-files=all", "--", *paths)
    except (OSError, subprocess.CalledProcessError):
        return ["(not a git checkout)"]
    return sorted(line[3:] for line in out.splitlines() if line.strip())


def code_state(root) -> str:
    """The commit, and any uncommitted changes to the code: what a report names as its source."""
    changed = uncommitted(root)
    return commit(root) + (f" with uncommitted changes to {', '.join(changed)}" if changed else "")


def check_clean(root, allow_dirty: bool = False) -> list[str]:
    """The uncommitted code files; DirtyTree if there are any and allow_dirty is not set."""
    changed = uncommitted(root)
    if changed and not allow_dirty:
        shown = ", ".join(changed[:8]) + (f" and {len(changed) - 8} more" if len(changed) > 8 else "")
        raise DirtyTree(f"uncommitted changes to {shown}: results must come from committed code. Commit them, "
                        "or pass --allow-dirty (the report is then marked as not reproducible)")
    return changed


def log_run(out, part: str, seconds: float, code: str, **info) -> None:
    """out/runs.json, committed with a study's results: each part's runs (the code they ran, the wall time,
    their settings), appended and written atomically."""
    path = Path(out) / "runs.json"
    runs = json.loads(path.read_text()) if path.exists() else []
    runs.append({"part": part, "code": code, "seconds": round(seconds, 1), **info})
    atomic_write_text(path, json.dumps(runs, indent=1) + "\n")
