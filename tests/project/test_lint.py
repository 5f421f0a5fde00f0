"""Lint and types, in the test command: ruff finds nothing in the library, the tests and the experiments,
and mypy finds nothing in the library. Both read their settings from pyproject.toml ([tool.ruff],
[tool.mypy]); both come with the test extra (pip install -e ".[test]"). A tool that is not installed skips
its test, saying so. Each check is also shown to catch a planted fault, so that a setting that silences
everything cannot pass unnoticed.
"""
from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PYPROJECT = ROOT / "pyproject.toml"


def run_tool(module: str, *args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    """`python -m <module> args` from `cwd`; a skip naming the missing tool when it is not installed."""
    if importlib.util.find_spec(module) is None:
        pytest.skip(f"{module} is not installed (it comes with the test extra: pip install -e \".[test]\")")
    return subprocess.run([sys.executable, "-m", module, *args], cwd=cwd, capture_output=True, text=True,
                          timeout=600)


def report(run: subprocess.CompletedProcess) -> str:
    return f"exit status {run.returncode}\n{run.stdout}{run.stderr}"


def test_ruff_finds_nothing():
    run = run_tool("ruff", "check", "--no-cache", "src/thurn_ai", "tests", "experiments")
    assert run.returncode == 0, report(run)


def test_mypy_finds_nothing_in_the_library():
    run = run_tool("mypy")              # the files and the settings: pyproject.toml's [tool.mypy]
    assert run.returncode == 0, report(run)


def test_ruff_catches_a_planted_fault(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("import os\n\n\ndef f(x=[]):\n    return x\n")     # unused import; mutable default
    run = run_tool("ruff", "check", "--no-cache", "--config", str(PYPROJECT), str(bad), cwd=tmp_path)
    assert run.returncode == 1 and "F401" in run.stdout and "B006" in run.stdout, report(run)


def test_mypy_catches_a_planted_fault(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("def half(n: int) -> int:\n    return n / 2\n")                  # float is not int
    run = run_tool("mypy", "--config-file", str(PYPROJECT), "--cache-dir", str(tmp_path / "cache"), str(bad),
                   cwd=tmp_path)
    assert run.returncode == 1 and "bad.py:2: error" in run.stdout, report(run)


def test_mypy_checks_inside_unannotated_functions(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("def label():\n    return 1 + 'st'\n")             # int + str in a function with no annotation
    run = run_tool("mypy", "--config-file", str(PYPROJECT), "--cache-dir", str(tmp_path / "cache"), str(bad),
                   cwd=tmp_path)
    assert run.returncode == 1 and "bad.py:2: error" in run.stdout, report(run)
