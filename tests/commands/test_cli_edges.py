"""The CLI's edge: every usage error and every bad number is exactly one `error:` line on stderr and exit
status 2, never a traceback; `--help` keeps working; files are checked before any work is done.

Every run here is quick: a valid number leads into a command that then stops at a bad argument given on
purpose (a missing file, an unknown bot or board), so no real game or search is started."""
from __future__ import annotations

import json
import math
import re
import subprocess
import sys

import click
import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from thurn_ai.cli import COMMANDS, cli
from thurn_ai.errors import ThurnError

MISSING = "no-such-file.json"


def runner() -> CliRunner:
    try:
        return CliRunner(mix_stderr=False)     # click 8.1
    except TypeError:
        return CliRunner()                     # click >= 8.2 keeps stderr apart


def invoke(args, **kw):
    return runner().invoke(cli, [str(a) for a in args], **kw)


def assert_one_error(result, mentions: str | None = None) -> str:
    """Exit status 2 and exactly one stderr line, starting with `error:`; no traceback anywhere."""
    assert isinstance(result.exception, SystemExit), repr(result.exception)
    assert result.exit_code == 2, (result.exit_code, result.stderr)
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    assert "Traceback" not in result.output
    if mentions is not None:
        assert mentions in lines[0], lines[0]
    return lines[0]


def subprocess_cli(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "thurn_ai.cli", *map(str, args)], capture_output=True,
                          text=True, timeout=120, cwd=cwd)


# ---------------------------------------------------------------- usage errors and --help

USAGE_ERRORS = [
    (["play", "--no-such-option"], "no such option"),
    (["replay"], "missing argument"),
    (["tournament"], "missing option"),
    (["play", "--board", "atlantis"], "'--board'"),
    (["play", "--seed", "seven"], "'--seed'"),
    (["hint", MISSING, "--top"], "requires an argument"),
    (["no-such-command"], "no such command"),
    (["validate", "a.json", "b.json"], "unexpected extra argument"),
]


@pytest.mark.parametrize("args, text", USAGE_ERRORS)
def test_a_usage_error_is_one_line(args, text):
    assert_one_error(invoke(args), text)


def test_usage_errors_from_the_real_entry_point_are_one_line(tmp_path):
    for args, text in USAGE_ERRORS[:5]:
        out = subprocess_cli(*args, cwd=tmp_path)
        assert out.returncode == 2, out
        assert out.stderr.count("\n") == 1 and out.stderr.startswith("error: ") and text in out.stderr, out.stderr
        assert out.stdout == ""


@pytest.mark.parametrize("args", [["--help"], ["-h"]] + [[name, "--help"] for name in COMMANDS])
def test_help_still_works(args):
    r = invoke(args)
    assert r.exit_code == 0 and r.stdout.startswith("Usage:"), r.output


def test_the_version():
    r = invoke(["--version"])
    assert r.exit_code == 0 and "version" in r.stdout


# ---------------------------------------------------------------- every number, at the edge

INT, FLOAT = "int", "float"
# option -> (kind, low, high, low bound open?); high bounds are the ones --help states.
BOUNDS = {
    "--seed": (INT, 0, 2**64 - 1), "--iterations": (INT, 1, 10_000_000), "--time": (FLOAT, 0.0, 3600.0),
    "--top": (INT, 1, 1000), "--game": (INT, 1, 1_000_000_000), "--at": (INT, 1, 1_000_000_000),
    "--move": (INT, 1, 1_000_000_000),
    "--games": (INT, 1, 1_000_000),
    "--players": (INT, 2, 4), "--jobs": (INT, 1, 256), "--playouts": (INT, 1, 10_000_000),
    "--choice-games": (INT, 1, 1_000_000), "--choice-iterations": (INT, 1, 10_000_000),
    "--validation-games": (INT, 1, 1_000_000),
    "--port": (INT, 0, 65535), "--hint-time": (FLOAT, 0.0, 120.0), "--budget": (INT, 1, 10_000_000),
    "--bootstrap": (INT, 1, 1_000_000), "--batch": (INT, 1, 1_000_000), "--max-deals": (INT, 1, 1_000_000),
    "--elo0": (FLOAT, -100.0, 100.0), "--elo1": (FLOAT, -100.0, 100.0), "--alpha": (FLOAT, 0.0, 0.5),
    "--beta": (FLOAT, 0.0, 0.5),
}
# (command, option, arguments that stop the command quickly after a valid number, what that error says)
NUMERIC = [
    ("validate", "--seed", [MISSING], "cannot read"),
    ("show", "--seed", [MISSING], "cannot read"),
    ("hint", "--seed", [MISSING], "cannot read"),
    ("hint", "--iterations", [MISSING], "cannot read"),
    ("hint", "--time", [MISSING], "cannot read"),
    ("hint", "--top", [MISSING], "cannot read"),
    ("replay", "--game", [MISSING], "cannot read"),
    ("replay", "--at", [MISSING], "cannot read"),
    ("replay", "--move", [MISSING], "cannot read"),
    ("review", "--game", [MISSING], "cannot read"),
    ("review", "--budget", [MISSING], "cannot read"),
    ("review", "--seed", [MISSING], "cannot read"),
    ("review", "--jobs", [MISSING], "cannot read"),
    ("play", "--seed", ["--bots", "nosuchbot,random"], "unknown bot"),
    ("tournament", "--seed", ["--bots", "nosuchbot,greedy"], "unknown bot"),
    ("tournament", "--games", ["--bots", "nosuchbot,greedy"], "unknown bot"),
    ("tournament", "--players", ["--bots", "nosuchbot,greedy"], "unknown bot"),
    ("tournament", "--jobs", ["--bots", "nosuchbot,greedy"], "unknown bot"),
    ("officials", "--seed", ["--bot", "nosuchbot"], "unknown bot"),
    ("officials", "--games", ["--bot", "nosuchbot"], "unknown bot"),
    ("officials", "--jobs", ["--bot", "nosuchbot"], "unknown bot"),
    # (each with a part that reads it: another part refuses it)
    ("officials", "--choice-games", ["--part", "choice", "--bot", "nosuchbot"], "needs --out"),
    ("officials", "--choice-iterations", ["--part", "choice", "--bot", "nosuchbot"], "needs --out"),
    ("officials", "--validation-games", ["--part", "validation", "--bot", "nosuchbot"], "unknown bot"),
    ("bench", "--playouts", ["--board", "atlantis"], "unknown board"),
    ("league", "--games", ["--bots", "nosuchbot,greedy", "--anchor", "greedy"], "unknown bot"),
    ("league", "--seed", ["--bots", "nosuchbot,greedy", "--anchor", "greedy"], "unknown bot"),
    ("league", "--jobs", ["--bots", "nosuchbot,greedy", "--anchor", "greedy"], "unknown bot"),
    ("league", "--bootstrap", ["--bots", "nosuchbot,greedy", "--anchor", "greedy"], "unknown bot"),
    *[("sprt", option, ["nosuchbot", "--against", "greedy"], "unknown bot")
      for option in ("--players", "--elo0", "--elo1", "--alpha", "--beta", "--batch", "--max-deals", "--seed",
                     "--jobs")],
    ("serve", "--port", ["--record", MISSING], "cannot read"),
    ("serve", "--game", ["--record", MISSING], "cannot read"),
    ("serve", "--hint-time", ["--record", MISSING], "cannot read"),
]
IDS = [f"{c} {o}" for c, o, _, _ in NUMERIC]


def test_every_numeric_option_of_every_command_is_covered():
    """A new numeric option must join NUMERIC (and so the fuzz test below)."""
    covered = {(c, o) for c, o, _, _ in NUMERIC}
    for name in COMMANDS:
        command = cli.get_command(click.Context(cli), name)
        for p in command.params:
            if isinstance(p.type, (click.types.IntParamType, click.types.FloatParamType)):
                opt = max(p.opts, key=len)
                assert (name, opt) in covered, f"{name} {opt} is numeric but not tested here"
                assert opt in BOUNDS


def accepted(option: str, text: str) -> bool:
    """Whether the CLI should accept `text` for `option` (an independent statement of the contract)."""
    kind, lo, hi = BOUNDS[option]
    if kind == INT:
        m = re.fullmatch(r"\s*[+-]?0*([0-9]*)\s*", text, re.ASCII)
        return bool(m) and re.search("[0-9]", text) is not None and len(m.group(1)) <= 25 \
            and lo <= int(text) <= hi
    if len(text) > 100:                 # no number needs more characters
        return False
    try:
        x = float(text)
    except ValueError:
        return False
    return math.isfinite(x) and lo < x <= hi


BAD = ["nan", "NaN", "-nan", "inf", "-inf", "Infinity", "1e400", "-1e400", "99999999999999999999",
       "-99999999999999999999", "18446744073709551616", "-1", "0", "", " ", "abc", "1.5", "1e3", "0x10",
       "--", "1" * 5000, "\u0661\u0662", "2,3"]


@pytest.mark.parametrize("command, option, rest, then", NUMERIC, ids=IDS)
def test_bad_numbers_are_one_error_line(command, option, rest, then):
    for text in BAD:
        if accepted(option, text):
            continue
        line = assert_one_error(invoke([command, *rest, option, text]), option)
        assert len(line) < 300, line


@pytest.mark.parametrize("command, option, rest, then", NUMERIC, ids=IDS)
def test_numbers_at_the_bounds_are_accepted(command, option, rest, then):
    kind, lo, hi = BOUNDS[option]
    values = [hi, "0.001", "1e-3"] if kind == FLOAT else [lo, hi]
    for v in values:
        assert accepted(option, str(v))
        assert_one_error(invoke([command, *rest, option, v]), then)   # past the number, at the bad argument
    if kind == INT:
        assert_one_error(invoke([command, *rest, option, hi + 1]), option)
        assert_one_error(invoke([command, *rest, option, lo - 1]), option)


def test_help_states_the_bounds():
    assert "0 to 2**64-1" in invoke(["play", "--help"]).stdout
    text = " ".join(invoke(["hint", "--help"]).stdout.split())
    assert "1 to 10,000,000" in text and "0 < x <= 3,600" in text
    assert "1 to 1,000,000" in " ".join(invoke(["tournament", "--help"]).stdout.split())
    assert "1 to 10,000,000" in " ".join(invoke(["bench", "--help"]).stdout.split())


numbers = st.one_of(
    st.sampled_from(BAD + ["1", "2", "3", "4", "10", "+3", " 7 ", "007", "3600", "3600.0", "3600.0001",
                           "18446744073709551615", "1e-400", "-0", "-0.0"]),
    st.integers(min_value=-10**25, max_value=10**25).map(str),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.floats(allow_nan=True, allow_infinity=True).map(str),
    st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), max_size=12),
)


@given(case=st.sampled_from(NUMERIC), text=numbers)
def test_fuzzed_numbers_are_accepted_or_one_error_line(case, text):
    command, option, rest, then = case
    result = invoke([command, *rest, option, text])
    if result.exit_code == 0:           # cannot happen with these arguments, but would be fine
        return
    line = assert_one_error(result)
    if accepted(option, text):
        assert then in line, (text, line)
    else:
        assert option in line, (text, line)


def test_players_lists_are_checked_at_the_edge():
    for text in ["2,5", "nan", "", "99999999999999999999", "2,,3", "-2", "2.0"]:
        assert_one_error(invoke(["bench", "--board", "atlantis", "--players", text]), "--players")
        assert_one_error(invoke(["officials", "--bot", "nosuchbot", "--players", text]), "--players")
    assert_one_error(invoke(["bench", "--board", "atlantis", "--players", "4, 2,2"]), "unknown board")


def test_bench_with_one_playout_runs_and_zero_is_refused():
    assert_one_error(invoke(["bench", "--playouts", "0"]), "--playouts")
    assert_one_error(invoke(["bench", "--playouts", "-3"]), "--playouts")
    r = invoke(["bench", "--playouts", "1", "--players", "2", "--no-search", "--json"])
    assert r.exit_code == 0, r.output
    row = json.loads(r.stdout)["engine"][0]
    assert row["players"] == 2 and row["playouts_per_s"] > 0


# ---------------------------------------------------------------- files are checked before any work

def test_play_record_in_a_missing_folder_fails_before_playing(tmp_path, monkeypatch):
    import thurn_ai.commands.play as play_mod

    def no_game(*a, **k):
        raise AssertionError("the game was played before the record path was checked")

    monkeypatch.setattr(play_mod, "play_game", no_game)
    assert_one_error(invoke(["play", "--record", tmp_path / "nodir" / "g.jsonl"]), "does not exist")
    assert_one_error(invoke(["play", "--record", tmp_path]), "--record")        # a folder
    assert not (tmp_path / "nodir").exists()


def test_play_record_appends_whole_lines(tmp_path):
    rec = tmp_path / "g.jsonl"
    first = invoke(["play", "--quiet", "--seed", 1, "--json"]).stdout.strip()
    rec.write_text(first, encoding="utf-8")     # a last record without its line break stays apart
    for seed in (2, 3):
        r = invoke(["play", "--quiet", "--seed", seed, "--record", rec])
        assert r.exit_code == 0, r.output
    lines = rec.read_text(encoding="utf-8").splitlines()
    assert lines[0] == first and len(lines) == 3
    assert [json.loads(x)["seed"] for x in lines] == [1, 2, 3]
    assert [p.name for p in tmp_path.iterdir()] == ["g.jsonl"]      # no temporary file left behind


def test_show_png_in_a_missing_folder_fails_first(tmp_path):
    assert_one_error(invoke(["show", MISSING, "--png", tmp_path / "nodir" / "x.png"]), "does not exist")


# ---------------------------------------------------------------- errors raised deep inside a command

@pytest.mark.parametrize("exc, text", [
    (ThurnError("a clear problem"), "error: a clear problem"),
    (ValueError("bad value"), "error: bad value"),
    (OverflowError("int too large to convert"), "out of range"),
    (RecursionError("maximum recursion depth exceeded"), "nested too deeply"),
    (UnicodeDecodeError("utf-8", b"\xff", 0, 1, "invalid start byte"), "not valid UTF-8"),
    (FileNotFoundError(2, "No such file or directory", "x.jsonl"), "No such file"),
])
def test_errors_raised_late_are_one_line(monkeypatch, tmp_path, exc, text):
    import thurn_ai.commands.replay as replay_mod

    def boom(path, **kw):
        raise exc

    monkeypatch.setattr(replay_mod, "read_records", boom)
    monkeypatch.delenv("THURN_AI_DEBUG", raising=False)
    assert_one_error(invoke(["replay", tmp_path / "r.jsonl"]), text)


def test_internal_bugs_keep_their_traceback(monkeypatch, tmp_path):
    import thurn_ai.commands.replay as replay_mod

    def bug(path, **kw):
        raise KeyError("a bug")

    monkeypatch.setattr(replay_mod, "read_records", bug)
    r = invoke(["replay", tmp_path / "r.jsonl"])
    assert isinstance(r.exception, KeyError)


def test_debug_shows_the_traceback_of_input_errors(monkeypatch, tmp_path):
    import thurn_ai.commands.replay as replay_mod

    def boom(path, **kw):
        raise OverflowError("too big")

    monkeypatch.setattr(replay_mod, "read_records", boom)
    monkeypatch.setenv("THURN_AI_DEBUG", "1")
    assert isinstance(invoke(["replay", tmp_path / "r.jsonl"]).exception, OverflowError)


def test_a_huge_number_from_the_real_entry_point_has_no_traceback(tmp_path):
    for args in (["hint", MISSING, "--iterations", "99999999999999999999"], ["hint", MISSING, "--time", "nan"],
                 ["bench", "--playouts", "0"], ["play", "--record", "nodir/g.jsonl"]):
        out = subprocess_cli(*args, cwd=tmp_path)
        assert out.returncode == 2 and out.stderr.count("\n") == 1 and out.stderr.startswith("error: "), \
            (args, out.stderr)


# ---------------------------------------------------------------- a game on a board file is read back with it

def test_records_and_positions_of_a_board_file_game_are_read_with_board_file(tmp_path):
    from pathlib import Path

    import thurn_ai
    from thurn_ai.position import save_position

    mini = Path(__file__).parents[1] / "data" / "mini.json"
    rec = tmp_path / "g.jsonl"
    assert invoke(["play", "--board-file", mini, "--quiet", "--seed", 9, "--record", rec]).exit_code == 0
    assert_one_error(invoke(["replay", rec, "--quiet"]), "--board-file")        # a record names no file
    r = invoke(["replay", rec, "--quiet", "--board-file", mini])
    assert r.exit_code == 0, r.output
    g = thurn_ai.new_game(rules=thurn_ai.Rules(board=str(mini)), seed=3)
    for _ in range(10):
        g.apply_random()
    pos = tmp_path / "p.json"
    save_position(g, pos)
    assert_one_error(invoke(["validate", pos]), "--board-file")
    for args in (["validate", pos], ["show", pos], ["hint", pos, "--iterations", 20, "--top", 1]):
        r = invoke([*args, "--board-file", mini])
        assert r.exit_code == 0, (args, r.output)
