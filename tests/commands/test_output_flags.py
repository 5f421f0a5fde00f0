"""Every output flag of every command goes through the same check before any work (issue 72, audit 5 N3):
an existing file is replaced only when it is of the kind the command writes, or with --force, and never
when it is a file the command reads; a folder option writes only into a new, empty or marked folder.

The test enumerates the options of every click command: an option naming a path is either one the
command reads (INPUTS below) or of the type OutputFile / OutputFolder, and each of those is tried here
against a user's file, so a new output flag cannot skip the check."""
from __future__ import annotations

import click
import pytest

from thurn_ai.cli import COMMANDS, cli
from thurn_ai.commands.options import OutputFile, OutputFolder

from tests.commands.test_cli_edges import assert_one_error, invoke
from tests.helpers import write_random_record

#: Options (and arguments) naming a file or folder a command only reads.
INPUTS = {("hint", "position_file"), ("officials", "from_path"), ("replay", "record_file"),
          ("report", "results_dir"), ("review", "record"), ("serve", "record_file"), ("serve", "position_file"),
          ("show", "position_file"), ("validate", "position_file")} | \
    {(name, "board_file") for name in COMMANDS}

#: How each output is tried: the command's arguments with OUT where the output goes; the input it reads
#: (never replaced, even with --force) as IN.
FILE_OUTPUTS = {
    ("show", "png_path"): ["show", "IN", "--png", "OUT"],
    ("replay", "position_out"): ["replay", "IN", "--at", "3", "--position-out", "OUT"],
    ("review", "png"): ["review", "IN", "--budget", "5", "--moves", "1-2", "--png", "OUT"],
    ("play", "record_path"): ["play", "--bots", "random,random", "--quiet", "--record", "OUT"],
}
FOLDER_OUTPUTS = {
    ("tournament", "out_dir"): ["tournament", "--bots", "random,random", "--games", "2", "--no-progress",
                                "--out", "OUT"],
    ("officials", "out_dir"): ["officials", "--part", "ablation", "--games", "2", "--players", "2", "--quiet",
                               "--out", "OUT"],
    ("report", "plots_dir"): ["report", "TOURNAMENT", "--plots", "OUT"],
    ("league", "out_dir"): ["league", "--bots", "random,greedy", "--players", "2", "--games", "2", "--no-progress",
                            "--out", "OUT"],
    ("sprt", "out_dir"): ["sprt", "random", "--against", "greedy", "--batch", "1", "--max-deals", "1", "--out", "OUT"],
}


def every_path_option():
    ctx = click.Context(cli)
    for name in COMMANDS:
        command = cli.get_command(ctx, name)
        for param in command.params:
            if isinstance(param.type, click.Path):
                yield name, param


def test_every_option_naming_a_path_is_an_input_or_a_checked_output():
    outputs = set()
    for name, param in every_path_option():
        key = (name, param.name)
        if isinstance(param.type, OutputFile):
            outputs.add(key)
            assert key in FILE_OUTPUTS, f"{key}: a new output file option: add it to FILE_OUTPUTS"
        elif isinstance(param.type, OutputFolder):
            outputs.add(key)
            assert key in FOLDER_OUTPUTS, f"{key}: a new output folder option: add it to FOLDER_OUTPUTS"
        else:
            assert key in INPUTS, f"{key} names a path: an input (INPUTS) or an OutputFile/OutputFolder"
            assert not getattr(param.type, "writable", False), f"{key} is writable: make it an OutputFile"
    assert outputs == set(FILE_OUTPUTS) | set(FOLDER_OUTPUTS)


@pytest.fixture(scope="module")
def inputs(tmp_path_factory):
    folder = tmp_path_factory.mktemp("inputs")
    record = write_random_record(folder / "game.jsonl")
    position = folder / "pos.json"
    assert invoke(["replay", record, "--at", "3", "--position-out", position]).exit_code == 0
    tournament = folder / "t"
    r = invoke(["tournament", "--bots", "random,greedy", "--games", "2", "--no-progress", "--out", tournament])
    assert r.exit_code == 0, r.output
    return {"show": position, "replay": record, "review": record, "TOURNAMENT": tournament}


def argv(template, out, source, tournament):
    return [{"OUT": out, "IN": source, "TOURNAMENT": tournament}.get(a, a) for a in template]


@pytest.mark.parametrize("key", sorted(FILE_OUTPUTS))
def test_an_output_file_never_replaces_a_users_file_nor_the_input(key, inputs, tmp_path):
    template = FILE_OUTPUTS[key]
    source = inputs.get(key[0])
    for content in (b"my notes\n", b"%PDF-1.4 my thesis\n", b"\x89PNG\r\n\x1a\n a photo, not a plot"):
        for name in ("notes.txt", "thesis.pdf", "notes.png"):
            mine = tmp_path / name
            mine.write_bytes(content)
            if key == ("show", "png_path") and content.startswith(b"\x89PNG"):
                continue          # show --png replaces a PNG (its kind); review --png only a plot it drew
            assert_one_error(invoke(argv(template, mine, source, inputs["TOURNAMENT"])))
            assert mine.read_bytes() == content, (key, name)
    if source is not None:                 # the file read is never the one written, not even with --force
        copy = tmp_path / f"input{source.suffix}"
        copy.write_bytes(source.read_bytes())
        for extra in ([], ["--force"]):
            assert_one_error(invoke(argv(template, copy, copy, inputs["TOURNAMENT"]) + extra))
            assert copy.read_bytes() == source.read_bytes()


@pytest.mark.parametrize("key", sorted(FOLDER_OUTPUTS))
def test_an_output_folder_never_takes_a_folder_of_the_users(key, inputs, tmp_path):
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("my notes\n")
    assert_one_error(invoke(argv(FOLDER_OUTPUTS[key], mine, None, inputs["TOURNAMENT"])))
    assert [p.name for p in mine.iterdir()] == ["notes.txt"] and (mine / "notes.txt").read_text() == "my notes\n"
    a_file = tmp_path / "a_file"
    a_file.write_text("mine\n")
    assert_one_error(invoke(argv(FOLDER_OUTPUTS[key], a_file, None, inputs["TOURNAMENT"])))
    assert a_file.read_text() == "mine\n"


def test_review_png_replaces_its_own_plot_and_with_force_a_users_file(inputs, tmp_path):
    out = tmp_path / "review.svg"
    base = ["review", inputs["review"], "--budget", "5", "--moves", "1-2", "--png", out]
    assert invoke(base).exit_code == 0
    first = out.read_bytes()
    assert b"matplotlib" in first.lower()
    assert invoke(base + ["--seed", "1"]).exit_code == 0            # its own plot again: replaced
    thesis = tmp_path / "thesis.pdf"
    thesis.write_bytes(b"%PDF-1.4 my thesis\n")
    base[-1] = thesis
    assert_one_error(invoke(base), "--force")
    assert invoke(base + ["--force"]).exit_code == 0
    assert thesis.read_bytes() != b"%PDF-1.4 my thesis\n"


def test_review_png_of_a_format_matplotlib_cannot_write_is_refused_before_the_review(inputs, tmp_path, monkeypatch):
    from thurn_ai.play import review as R
    monkeypatch.setattr(R, "run_each", lambda *a, **k: pytest.fail("reviewed before refusing the name"))
    line = assert_one_error(invoke(["review", inputs["review"], "--no-cache", "--png", tmp_path / "out.jsonl"]))
    assert "'jsonl'" in line and "png" in line
