"""A path holding a line break or another control character never splits an `error:` line (issue 26): every
message that names a path a user gave shows it through fileio.path_text (quoted when not printable), so
each command still answers with exactly one `error:` line and exit status 2."""
from __future__ import annotations

import os
import subprocess
import sys

import pytest
from click.testing import CliRunner

import thurn_ai
from thurn_ai.cli import cli
from thurn_ai.fileio import path_text

EVIL = "ev\nil\r\x1b[31m"          # a line break, a carriage return and a terminal colour code


def runner() -> CliRunner:
    try:
        return CliRunner(mix_stderr=False)     # click 8.1
    except TypeError:
        return CliRunner()


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """Paths whose names hold EVIL: missing, not JSON, JSON of the wrong shape, a folder of a user's
    files, an empty and a malformed record file."""
    d = tmp_path_factory.mktemp("paths")
    made = {"missing": d / f"{EVIL}missing.json", "bad": d / f"{EVIL}bad.json", "obj": d / f"{EVIL}obj.json",
            "folder": d / f"{EVIL}folder", "empty": d / f"{EVIL}empty.jsonl", "rec": d / f"{EVIL}rec.jsonl"}
    made["bad"].write_text("{not json")
    made["obj"].write_text('{"version": 1}')
    made["folder"].mkdir()
    (made["folder"] / f"user{EVIL}.txt").write_text("mine")
    made["empty"].write_text("")
    made["rec"].write_text('{"a": 1}\n')
    return {k: str(v) for k, v in made.items()}


QUICK = ["--bots", "random,random"]
TOUR = ["tournament", "--bots", "random", "--games", "2", "--no-progress", "--jobs", "1"]


def cases(f):
    """(command line) for every command and every option that takes a path, each failing on purpose."""
    out = []
    for key in ("missing", "bad", "obj", "folder"):
        p = f[key]
        out += [["play", *QUICK, "--board-file", p], ["hint", "--board-file", p, p], ["validate", p],
                ["validate", "--board-file", p, p], ["hint", p], ["show", p], [*TOUR, "--board-file", p],
                ["officials", "--from", p], ["report", p], ["replay", "--board-file", p, p]]
    for key in ("missing", "empty", "rec", "folder"):
        out.append(["replay", f[key]])
    out += [["play", *QUICK, "--record", f["folder"]], ["show", f["missing"], "--png", f["folder"]],
            ["show", f["missing"], "--png", os.path.join(f["missing"], "x.png")],
            [*TOUR, "--out", f["folder"]], [*TOUR, "--out", f["bad"]], [*TOUR, "--out", f["missing"], "--resume"],
            ["officials", "--games", "2", "--out", f["folder"]], ["report", f["folder"], "--plots", f["folder"]]]
    return out


def assert_one_error_line(args, code, stderr):
    assert code == 2, (args, code, stderr)
    assert stderr.count("\n") == 1 and stderr.startswith("error: "), (args, stderr)
    assert stderr[:-1].isprintable(), (args, stderr)       # no raw control character reaches the terminal
    assert "ev\\nil" in stderr, (args, stderr)             # the path is named (escaped), not another error


def test_every_command_names_a_control_character_path_on_one_line(files, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for args in cases(files):
        r = runner().invoke(cli, args)
        assert isinstance(r.exception, SystemExit), (args, repr(r.exception))
        assert_one_error_line(args, r.exit_code, r.stderr)


@pytest.mark.parametrize("option", ["--position", "--record"])
def test_serve_names_a_control_character_path_on_one_line(files, tmp_path, option):
    # a subprocess with a timeout: were the path accepted, the server would start and never return
    env = {**os.environ, "PYTHONPATH": os.path.dirname(os.path.dirname(thurn_ai.__file__))}  # this copy
    for key in ("missing", "bad", "folder"):
        args = ["serve", "--port", "0", option, files[key]]
        r = subprocess.run([sys.executable, "-m", "thurn_ai.cli", *args], capture_output=True, text=True,
                           timeout=60, cwd=tmp_path, stdin=subprocess.DEVNULL, env=env)
        assert_one_error_line(args, r.returncode, r.stderr)


def test_path_text_is_one_printable_line_and_keeps_plain_paths():
    assert path_text("runs/a b.json") == "runs/a b.json"
    for p in (EVIL, "a\tb", "a\x00b", "x\u2028y"):
        shown = path_text(p)
        assert shown.isprintable() and "\n" not in shown and shown == repr(p)
