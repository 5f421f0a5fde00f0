"""Where a result came from: the commit it ran at, whether the code had uncommitted changes, the machine.

Results in results/ must come from committed code: a study's runner calls `check_clean()` before it plays
(DirtyTree unless the caller allows a dirty tree, which its report then says) and writes `code_state()`
beside what it made; `log_run` keeps each part's runs in OUT/runs.json, one list of runs for every study
(`tally_run`: their time and code by part); `write_results_readme` writes a results folder's README (or
report) with the command, commit and machine that made it. `machine_info` (what `thurn-ai bench` prints)
names the commit of the checkout the package itself runs from."""
from __future__ import annotations

import json
import platform
import subprocess
import sys
import time
from collections.abc import Callable
from functools import wraps
from pathlib import Path

from ..errors import ThurnError
from ..fileio import atomic_write_text, load_json, path_text

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


def code_state(root, paths=CODE_PATHS) -> str:
    """The commit, and any uncommitted changes to the code (the files under `paths`): what a report names
    as its source."""
    changed = uncommitted(root, paths)
    return commit(root) + (f" with uncommitted changes to {', '.join(changed)}" if changed else "")


def check_clean(root, allow_dirty: bool = False) -> list[str]:
    """The uncommitted code files; DirtyTree if there are any and allow_dirty is not set."""
    changed = uncommitted(root)
    if changed and not allow_dirty:
        shown = ", ".join(changed[:8]) + (f" and {len(changed) - 8} more" if len(changed) > 8 else "")
        raise DirtyTree(f"uncommitted changes to {shown}: results must come from committed code. Commit them, "
                        "or pass --allow-dirty (the report is then marked as not reproducible)")
    return changed


def committed_code_or_exit(root, allow_dirty: bool = False) -> str:
    """For an experiment script, before it plays: check_clean, then the code_state its outputs name. On
    uncommitted code (unless allow_dirty) it prints the one `error:` line and exits with status 2."""
    try:
        check_clean(root, allow_dirty)
    except DirtyTree as e:
        print(f"error: {e}", file=sys.stderr)
        raise SystemExit(2) from None
    return code_state(root)


def error_line(e: BaseException) -> str:
    """The one `error: ...` line an experiment script prints for e (an OSError by its message and file, no
    [Errno N])."""
    if isinstance(e, OSError) and e.strerror:
        return f"error: {e.strerror}" + (f": {e.filename}" if e.filename else "")
    return f"error: {e}"


#: what an experiment script's run may raise that is its user's to fix: bad input, uncommitted code, a missing
#: or unwritable file
SCRIPT_ERRORS: tuple[type[BaseException], ...] = (ThurnError, DirtyTree, OSError)


def script_main(main: Callable[..., int] | None = None, *, errors=SCRIPT_ERRORS):
    """Decorates an experiment script's main(argv) -> int: an error of these kinds becomes one `error:` line on
    stderr and the exit status 2 (returned), never a traceback. `@script_main` or `@script_main(errors=...)`."""
    def decorate(main: Callable[..., int]) -> Callable[..., int]:
        @wraps(main)
        def run(*args, **kwargs) -> int:
            try:
                return main(*args, **kwargs)
            except errors as e:
                print(error_line(e), file=sys.stderr)
                return 2
        return run
    return decorate if main is None else decorate(main)


def read_runs(out, runs_file: str = "runs.json") -> list[dict]:
    """OUT/<runs_file>: the runs of a study's parts, one dict a run ({'part', 'code', 'seconds', ...}),
    in the order they were logged ([] before the first). A file in the officials study's earlier tally form
    ({part: {'seconds', 'played_with'}}) reads as one run a code, the part's time on the first."""
    path = Path(out) / runs_file
    runs = load_json(path, "runs file", ThurnError) if path.exists() else []     # one line if damaged
    if not isinstance(runs, (list, dict)) or (isinstance(runs, list) and not all(isinstance(r, dict) for r in runs)):
        raise ThurnError(f"runs file {path_text(path)} is not a list of runs; delete it or restore it")
    if isinstance(runs, dict):
        runs = [{"part": part, "code": code, "seconds": v.get("seconds", 0.0) if i == 0 else 0.0}
                for part, v in runs.items() if isinstance(v, dict)
                for i, code in enumerate(v.get("played_with") or [""])]
    return runs


def cpu_clock() -> float:
    """CPU seconds (user + system) of this process and of its finished child processes: what a run that
    plays in worker processes (--jobs) used, read before and after it. Workers still running are not
    counted, so read it after the pool has stopped."""
    import resource
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def _write_runs(out, runs: list[dict], runs_file: str = "runs.json") -> None:
    atomic_write_text(Path(out) / runs_file, json.dumps(runs, indent=1) + "\n")


def run_command() -> str:
    """The command line this process runs, as it would be typed again from the repository's root (the
    script's path relative to the working folder): what a findings file names as the run's command."""
    import shlex
    import sys
    script = Path(sys.argv[0])
    if script.is_absolute() and script.is_relative_to(Path.cwd()):
        script = script.relative_to(Path.cwd())
    return " ".join(["python", shlex.quote(str(script)), *map(shlex.quote, sys.argv[1:])])


def log_run(out, part: str, seconds: float, code: str, runs_file: str = "runs.json", **info) -> None:
    """out/<runs_file>, committed with a study's results: each part's runs (the code they ran, the wall time,
    their settings, the command line: run_command), appended and written atomically. Re-read before every
    write, as two studies may run in two processes."""
    runs = read_runs(out, runs_file)
    runs.append({"part": part, "code": code, "seconds": round(seconds, 1), "command": run_command(), **info})
    _write_runs(out, runs, runs_file)


def tally_run(out, name: str, seconds: float = 0.0, played_with: str | None = None, keep_only=None) -> dict:
    """Log a run of part `name` in OUT/runs.json (log_run's list: its code, or its time when it ends) and
    return the runs as a tally per part: {part: {'seconds': the time of all its runs, 'played_with': the
    codes they played with, each once}}. keep_only: drop every run of a part not named there (the report's
    parts) and save. An empty name logs nothing."""
    runs = read_runs(out)
    if keep_only is not None and any(r.get("part") not in keep_only for r in runs):
        runs = [r for r in runs if r.get("part") in keep_only]
        _write_runs(out, runs)
    if name:
        runs.append({"part": name, "code": played_with or "", "seconds": round(seconds, 1)})
        _write_runs(out, runs)
    tally: dict = {}
    for r in runs:
        entry = tally.setdefault(r["part"], {"seconds": 0.0, "played_with": []})
        entry["seconds"] += r.get("seconds", 0.0)
        if r.get("code") and r["code"] not in entry["played_with"]:
            entry["played_with"].append(r["code"])
    return tally


def package_root(checkout) -> Path:
    """The folder that holds a checkout's thurn_ai package: src/ since the src layout, the root before (the
    speed comparisons load an older checkout's package beside this one's)."""
    checkout = Path(checkout)
    return checkout / "src" if (checkout / "src" / "thurn_ai").is_dir() else checkout


def source_commit() -> tuple[str | None, str]:
    """(commit, how it was found) of the code that runs: the git commit of the checkout this package is
    in (with '+changes' when its files differ from that commit), or (None, why not) when the package is
    not in a git checkout (an installed copy): the current folder's repository is never consulted."""
    pkg = Path(__file__).resolve().parent.parent

    def git(*args):
        return subprocess.run(["git", "-C", str(pkg), *args], capture_output=True, text=True, timeout=5)
    try:
        tracked = git("ls-files", "--error-unmatch", "__init__.py").returncode == 0
        head = git("rev-parse", "--short", "HEAD").stdout.strip() if tracked else ""
        if not head:
            return None, "not run from a git checkout (an installed copy)"
        dirty = git("diff", "--quiet", "HEAD", "--", ".").returncode != 0
    except (OSError, subprocess.SubprocessError):
        return None, "git is not available"
    return head + ("+changes" if dirty else ""), "the git checkout the package runs from"


def machine_info() -> dict:
    """The commit the package runs from (source_commit), the CPU, Python, the machine and the time."""
    head, commit_source = source_commit()
    cpu = platform.processor()
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return {"commit": head, "commit_source": commit_source, "cpu": cpu, "python": platform.python_version(),
            "machine": platform.machine(), "time": time.strftime("%Y-%m-%dT%H:%M:%S")}


def write_results_readme(out, title: str, command: str, lines: list[str], setup: str = "2 worker processes",
                         name: str = "README.md") -> None:
    """OUT/<name>: the title, the command that produced the folder with the commit and CPU it ran on
    (machine_info) and `setup`, then `lines`, atomically. A README.md gets OUT/NOTES.md (hand-written notes)
    appended; a folder of results/ itself writes its report.md this way, and its README.md is the front page
    studies/pages.py renders from its findings (which appends the notes there)."""
    m = machine_info()
    text = [f"# {title}", "", f"Produced by `{command}` (commit {m['commit']}, {m['cpu']}, {setup}).", "", *lines]
    notes = Path(out) / "NOTES.md"
    if notes.exists() and name == "README.md":
        text += [notes.read_text(encoding="utf-8").rstrip(), ""]
    atomic_write_text(Path(out) / name, "\n".join(text))
