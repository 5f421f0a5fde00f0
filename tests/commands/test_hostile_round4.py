"""Hostile input, fourth round, the command line (issue 57, ../shared/reviews/reliability-audit-4.md):
outputs never replace a file they did not write (unless --force), and file errors are one line naming the
file (no file descriptor, no raw [Errno N])."""
from __future__ import annotations

import errno
import os

import pytest

from thurn_ai import fileio

from tests.commands.test_cli_edges import assert_one_error, invoke
from tests.helpers import write_random_record


@pytest.fixture(scope="module")
def record(tmp_path_factory):
    return write_random_record(tmp_path_factory.mktemp("rec") / "game.jsonl")


@pytest.fixture(scope="module")
def position(record, tmp_path_factory):
    out = tmp_path_factory.mktemp("pos") / "pos.json"
    r = invoke(["replay", record, "--at", "3", "--position-out", out])
    assert r.exit_code == 0, r.output
    return out


def test_position_out_never_replaces_the_record_it_replays(record, tmp_path):
    copy = tmp_path / "g2.jsonl"
    copy.write_bytes(record.read_bytes())
    r = invoke(["replay", copy, "--at", "5", "--position-out", copy])            # audit 4's typo
    assert_one_error(r, "is the file this command reads")
    assert copy.read_bytes() == record.read_bytes()


def test_position_out_replaces_a_position_and_with_force_anything(record, tmp_path):
    out = tmp_path / "p.json"
    assert invoke(["replay", record, "--at", "3", "--position-out", out]).exit_code == 0
    first = out.read_text()
    assert invoke(["replay", record, "--at", "4", "--position-out", out]).exit_code == 0    # its own kind
    assert out.read_text() != first
    notes = tmp_path / "notes.txt"
    notes.write_text("my notes\n")
    assert_one_error(invoke(["replay", record, "--at", "3", "--position-out", notes]), "--force")
    assert notes.read_text() == "my notes\n"
    assert invoke(["replay", record, "--at", "3", "--position-out", notes, "--force"]).exit_code == 0
    assert '"rules"' in notes.read_text()


def test_show_png_never_replaces_another_kind_of_file(position, tmp_path):
    notes = tmp_path / "notes.txt"
    notes.write_text("my notes\n")
    assert_one_error(invoke(["show", position, "--png", notes]), "is not a PNG image")
    assert notes.read_text() == "my notes\n"
    png = tmp_path / "board.png"
    assert invoke(["show", position, "--png", png]).exit_code == 0
    assert invoke(["show", position, "--png", png]).exit_code == 0                  # drawn again: fine
    assert invoke(["show", position, "--png", notes, "--force"]).exit_code == 0
    assert notes.read_bytes().startswith(b"\x89PNG")


def test_empty_and_overlong_output_names_are_one_plain_line(position, tmp_path):
    assert_one_error(invoke(["show", position, "--png", ""]), "an empty name is not a file name")
    line = assert_one_error(invoke(["show", position, "--png", tmp_path / ("a" * 300 + ".png")]),
                            "File name too long")
    assert "[Errno" not in line


def test_a_full_disk_names_the_file_being_written(record, tmp_path, monkeypatch):
    def full(fd):
        raise OSError(errno.ENOSPC, "No space left on device")
    monkeypatch.setattr(fileio.os, "fsync", full)
    out = tmp_path / "p.json"
    line = assert_one_error(invoke(["replay", record, "--at", "3", "--position-out", out]))
    assert line == f"error: {out}: No space left on device"
    assert not out.exists() and not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def test_a_results_file_that_is_a_folder_is_named_not_its_descriptor(tmp_path):
    (tmp_path / "t").mkdir()
    (tmp_path / "t" / "results.csv").mkdir()
    line = assert_one_error(invoke(["report", tmp_path / "t"]))
    assert "results.csv" in line and "is not a regular file" in line and "Errno" not in line


def test_read_bounded_of_a_folder_names_the_folder(tmp_path):
    with pytest.raises(fileio.ThurnError, match=f"{tmp_path} is not a regular file"):
        fileio.read_bounded(tmp_path, "log file")
    assert os.listdir(tmp_path) == []


def test_a_record_file_out_of_range_is_named_without_a_stray_the(record):
    pytest.importorskip("starlette")
    from thurn_ai.web.sessions import ReplaySession
    from thurn_ai.errors import PositionError
    with pytest.raises(PositionError) as e:
        ReplaySession(record.read_text(), game=5, source="rec_two.jsonl")
    assert str(e.value).startswith("rec_two.jsonl holds 1 game; game 5 is out of range")
    with pytest.raises(PositionError, match="^the record holds 1 game"):
        ReplaySession(record.read_text(), game=5)
