"""Hostile input to the loaders and the commands (issue 26): the JSON check in linear time, files that
are not what a record file should be, damaged tournament settings, a worker killed mid-tournament, bounds
on search budgets. Each case is one `error:` line and exit status 2 (or a clean result), never a
traceback, never a file replaced that should not be."""
from __future__ import annotations

import json
import os
import signal
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import thurn_ai
import thurn_ai.play.tournament as tournament
from thurn_ai.errors import ThurnError
from thurn_ai.fileio import MAX_JSON_DEPTH, loads_json, path_text, read_existing
from thurn_ai.play.tournament import TournamentError, cycle_length, run_tournament, seatings

from tests.commands.test_cli_edges import assert_one_error, invoke

# ---------------------------------------------------------------- the JSON loader


def depth_of(value) -> int:
    if isinstance(value, dict):
        return 1 + max((depth_of(v) for v in value.values()), default=0)
    if isinstance(value, list):
        return 1 + max((depth_of(v) for v in value), default=0)
    return 0


tricky_text = st.text(alphabet='[]{}"\\/:,abu0 \n', max_size=12)
json_values = st.recursive(st.none() | st.booleans() | st.integers(-10 ** 6, 10 ** 6) | tricky_text,
                           lambda inner: st.lists(inner, max_size=3)
                           | st.dictionaries(tricky_text, inner, max_size=3), max_leaves=30)


@settings(max_examples=300, deadline=None)
@given(value=json_values, wrap=st.integers(0, 70))
def test_valid_json_loads_exactly_when_it_is_not_too_deep(value, wrap):
    # strings full of brackets, quotes and backslashes must not count as nesting, and real nesting must
    value = [value] if wrap == 0 else value
    for _ in range(wrap):
        value = [value]
    text = json.dumps(value)
    if depth_of(value) <= MAX_JSON_DEPTH:
        assert loads_json(text, "t") == value
    else:
        with pytest.raises(ThurnError, match="nested more than"):
            loads_json(text, "t")


@settings(max_examples=300, deadline=None)
@given(text=st.text(alphabet='[]{}"\\,1a ', max_size=400), repeat=st.integers(1, 200))
def test_any_text_loads_or_gives_one_error(text, repeat):
    try:
        loads_json(text * repeat, "t")
    except ThurnError as e:
        assert "\n" not in str(e)


@pytest.mark.parametrize("text", [
    "[" * 65 + '"' + '\\"' * 200_000,          # the issue's reproduction (before: ~10 minutes)
    '["' * 200_000,
    "[" * 65 + '"' + "\\\\" * 200_000,
    "[" * 400_000,
])
def test_hostile_json_is_refused_in_linear_time(text):
    t0 = time.monotonic()
    with pytest.raises(ThurnError):
        loads_json(text, "t")
    assert time.monotonic() - t0 < 20        # guards against a hang; the timing is experiments/json_depth_bench.py


def whole_text_depth_ok(text: str) -> bool:
    """The depth check on the whole text at once (the rule the sliced check must keep)."""
    from itertools import accumulate
    from thurn_ai import fileio
    brackets = fileio._NOT_BRACKET.sub("", fileio._STRING.sub("", fileio._ESCAPE.sub("", text)))
    return max(accumulate(map(fileio._STEP.__getitem__, brackets)), default=0) <= MAX_JSON_DEPTH


@settings(max_examples=400, deadline=None)
@given(text=st.text(alphabet='[]{}"\\a', max_size=300), prefix=st.integers(0, 70), size=st.integers(1, 7))
def test_the_depth_check_in_slices_decides_as_on_the_whole_text(text, prefix, size):
    # slices of a few characters put every boundary case (a backslash, a quote, a string) on a slice's end
    from thurn_ai import fileio
    text = "[" * prefix + text
    try:
        fileio._check_depth(text, size)
        sliced_ok = True
    except fileio._Refused:
        sliced_ok = False
    assert sliced_ok == whole_text_depth_ok(text)


@pytest.mark.parametrize("text", ["[" * 1_000_000, "[" * 65 + '"' + '\\"' * 500_000], ids=["deep", "escaped quotes"])
def test_no_pass_of_the_depth_check_covers_more_than_a_slice(monkeypatch, text):
    # a regex pass is one C call that holds Python's lock: over a whole 1 MB body it froze the web
    # server's event loop for ~0.1 s per hostile request (experiments/web_load.py, measured with py-spy)
    from thurn_ai import fileio
    seen = []

    class Watched:
        def __init__(self, pattern):
            self.pattern = pattern

        def sub(self, repl, s):
            seen.append(len(s))
            return self.pattern.sub(repl, s)
    for name in ("_ESCAPE", "_STRING", "_NOT_BRACKET"):
        monkeypatch.setattr(fileio, name, Watched(getattr(fileio, name)))
    with pytest.raises(ThurnError, match="nested more than"):
        loads_json(text, "t")
    assert seen and max(seen) <= fileio.JSON_SLICE


def test_validate_refuses_the_issues_file_with_one_line(tmp_path):
    evil = tmp_path / "evil.json"
    evil.write_text("[" * 65 + '"' + '\\"' * 100_000)
    assert_one_error(invoke(["validate", evil]), "nested more than 64")


def test_a_path_with_a_line_break_stays_on_one_error_line(tmp_path):
    odd = tmp_path / "a\nb.json"
    assert_one_error(invoke(["validate", odd]), "cannot read")
    assert path_text("a\nb") == repr("a\nb") and path_text("plain.json") == "plain.json"


# ---------------------------------------------------------------- play --record writes only to regular files

@pytest.fixture
def no_game(monkeypatch):
    import thurn_ai.commands.play as play_mod

    def refuse(*a, **k):
        raise AssertionError("the game was played before the record path was checked")
    monkeypatch.setattr(play_mod, "play_game", refuse)


def test_play_record_refuses_a_symbolic_link_and_leaves_it(tmp_path, no_game):
    target = tmp_path / "target.jsonl"
    target.write_text("{}\n")
    link = tmp_path / "link.jsonl"
    link.symlink_to(target)
    assert_one_error(invoke(["play", "--record", link]), "symbolic link")
    assert link.is_symlink() and target.read_text() == "{}\n"
    dangling = tmp_path / "dangling.jsonl"
    dangling.symlink_to(tmp_path / "nowhere.jsonl")
    assert_one_error(invoke(["play", "--record", dangling]), "symbolic link")
    assert dangling.is_symlink()


def test_play_record_refuses_a_hard_link(tmp_path, no_game):
    a = tmp_path / "a.jsonl"
    a.write_text("{}\n")
    os.link(a, tmp_path / "b.jsonl")
    assert_one_error(invoke(["play", "--record", a]), "hard links")
    assert os.stat(a).st_nlink == 2


def test_play_record_refuses_a_fifo_and_a_device(tmp_path, no_game):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    assert_one_error(invoke(["play", "--record", fifo]), "not a regular file")     # before: blocked forever
    assert_one_error(invoke(["play", "--record", os.devnull]), "not a regular file")
    assert os.path.exists(os.devnull) and not os.path.isfile(os.devnull)


def test_play_record_refuses_an_empty_name(no_game):
    assert_one_error(invoke(["play", "--record", ""]), "empty")


def test_the_old_record_is_read_only_up_to_a_bound(tmp_path):
    big = tmp_path / "big.jsonl"
    with open(big, "wb") as f:
        f.truncate(2 ** 20 + 10)               # sparse: no disk used
    with pytest.raises(ThurnError, match="larger than 1 MB"):
        read_existing(big, "record file", ThurnError, max_bytes=2 ** 20)
    assert read_existing(tmp_path / "missing.jsonl", "record file") == b""


def test_play_record_still_appends_to_a_regular_file(tmp_path):
    rec = tmp_path / "g.jsonl"
    for seed in (1, 2):
        assert invoke(["play", "--quiet", "--seed", seed, "--record", rec]).exit_code == 0
    assert [json.loads(x)["seed"] for x in rec.read_text().splitlines()] == [1, 2]


@pytest.mark.parametrize("content", [
    b"my notes\n",                                         # a text file
    b'{"version": 1, "board": "south", "players": 2}\n',  # JSON, not a game record
    b'{"cut": ',                                            # a line cut short
    b"\xff\xfe\x00garbage",                                # not UTF-8
])
def test_play_record_refuses_a_file_that_holds_no_game_records(tmp_path, no_game, content):
    rec = tmp_path / "notes.jsonl"
    rec.write_bytes(content)
    msg = assert_one_error(invoke(["play", "--record", rec]), "file of game records")
    assert "notes.jsonl" in msg
    assert rec.read_bytes() == content        # before: the record was appended to it


def test_play_record_refuses_other_lines_after_records(tmp_path, no_game):
    rec = tmp_path / "g.jsonl"
    good = json.dumps({"seed": 1, "rules": {"players": 2}, "bots": ["random", "random"], "moves": []})
    rec.write_text(good + "\n" + "a line of text\n")
    assert_one_error(invoke(["play", "--record", rec]), "line 2")


def test_play_record_appends_to_an_empty_file_and_to_records(tmp_path):
    rec = tmp_path / "g.jsonl"
    rec.write_bytes(b"")
    for seed in (1, 2):
        assert invoke(["play", "--quiet", "--seed", seed, "--record", rec]).exit_code == 0
    rec.write_text(rec.read_text() + "\n")    # a blank line between records is fine
    assert invoke(["play", "--quiet", "--seed", 3, "--record", rec]).exit_code == 0
    assert [json.loads(x)["seed"] for x in rec.read_text().splitlines() if x] == [1, 2, 3]


# ---------------------------------------------------------------- search budgets and bounds in the CLI

def test_play_with_a_budget_too_short_for_one_iteration_plays_the_game():
    r = invoke(["play", "--quiet", "--bots", "mcts(time=1e-9),pimc(time=1e-9)", "--seed", 3])
    assert r.exit_code == 0, (r.output, r.stderr)      # before: IndexError
    assert "winner" in r.output


def test_pimc_with_absurd_worlds_is_one_error_line():
    assert_one_error(invoke(["play", "--bots", "pimc(worlds=1000000000),random"]), "worlds")


# ---------------------------------------------------------------- saved tournament settings

def saved_tournament(tmp_path):
    out = tmp_path / "t"
    run_tournament(["random", "greedy"], games=4, seed=1, jobs=1, out_dir=out, progress=False)
    return out


@pytest.mark.parametrize("games", [True, "100", 0, -3, 2.0, 10 ** 30, None])
def test_a_damaged_games_in_tournament_json_is_refused_not_replaced(tmp_path, games):
    out = saved_tournament(tmp_path)
    meta = json.loads((out / "tournament.json").read_text())
    meta["games"] = games
    (out / "tournament.json").write_text(json.dumps(meta))
    before = (out / "tournament.json").read_text()
    with pytest.raises(TournamentError, match="games"):
        run_tournament(["random", "greedy"], seed=1, jobs=1, out_dir=out, resume=True, progress=False)
    assert (out / "tournament.json").read_text() == before      # before: rewritten with 100 games
    r = invoke(["tournament", "--bots", "random,greedy", "--seed", 1, "--out", out, "--resume", "--jobs", 1])
    assert_one_error(r, "games")


def test_the_library_bounds_games_as_the_command_line_does():
    with pytest.raises(TournamentError, match="1 to 1,000,000"):
        run_tournament(["random", "greedy"], games=10 ** 30, progress=False)
    from thurn_ai.commands.options import GAMES
    assert (GAMES.min, GAMES.max) == (1, tournament.MAX_GAMES)


def test_the_seating_cycle_is_counted_before_it_is_built():
    for n in range(1, 7):
        for players in (2, 3, 4):
            assert cycle_length(n, players) == len(seatings(n, players))
    t0 = time.monotonic()
    with pytest.raises(TournamentError, match="11,703,240 games"):
        seatings(60, 4)                       # before: 30 s and gigabytes, then a game
    with pytest.raises(TournamentError, match="use fewer bots"):
        seatings(500, 2)
    assert time.monotonic() - t0 < 10


def kill_the_worker(task):
    """Stands in for play_task in a pool worker: the out-of-memory killer ends the worker."""
    if task.game > 2:
        os.kill(os.getpid(), signal.SIGKILL)
    return REAL_PLAY_TASK(task)


REAL_PLAY_TASK = tournament.play_task


def test_a_killed_worker_ends_the_tournament_with_the_resume_line(tmp_path, monkeypatch):
    monkeypatch.setattr(tournament.plan, "play_task", kill_the_worker)   # the forked workers inherit it
    out = tmp_path / "t"
    with pytest.raises(TournamentError, match="continue with --resume") as e:
        run_tournament(["random", "greedy"], games=8, seed=1, jobs=2, out_dir=out, progress=False)
    assert "worker process died" in str(e.value)
    monkeypatch.setattr(tournament.plan, "play_task", REAL_PLAY_TASK)
    df = run_tournament(["random", "greedy"], seed=1, jobs=1, out_dir=out, resume=True, progress=False)
    assert sorted(df.game.unique()) == list(range(1, 9))
    assert df.equals(run_tournament(["random", "greedy"], games=8, seed=1, jobs=1, progress=False))


# ---------------------------------------------------------------- item 11: checked before anything starts

def test_serve_refuses_a_broken_position_before_the_server_starts(tmp_path, monkeypatch):
    pytest.importorskip("starlette")
    import thurn_ai.web.server as web_server
    from thurn_ai.position import save_position

    def refuse(*a, **k):
        raise AssertionError("the server started with a broken position")
    monkeypatch.setattr(web_server, "bind", refuse)
    good = tmp_path / "good.json"
    save_position(thurn_ai.new_game(2, seed=1), good)
    data = json.loads(good.read_text())
    data["display"][0] = "Atlantis"          # valid JSON, a position object, a city that is not on the board
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(data))
    assert_one_error(invoke(["serve", "--position", bad]), "Atlantis")


def test_a_budget_giving_a_player_count_twice_is_refused():
    from thurn_ai.studies.officials.plan import StudyError, parse_budget
    with pytest.raises(StudyError, match="2 players given twice"):
        parse_budget("2=100,2=200")
    assert parse_budget("2=100,3=200") == {2: 100, 3: 200}


def test_a_results_file_whose_rows_disagree_with_players_is_refused(tmp_path):
    from thurn_ai.play.tournament import load_results
    out = tmp_path / "t"
    run_tournament(["random", "greedy"], games=4, seed=3, out_dir=out, progress=False, jobs=1)
    (out / "results.parquet").unlink()
    lines = (out / "results.csv").read_text().splitlines(keepends=True)
    header = lines[0].rstrip("\n").split(",")
    k = header.index("players")
    cut = lines[:-1] + [lines[-1][:20]]                       # a partly written last game: dropped, as before
    (out / "results.csv").write_text("".join(cut))
    assert sorted(load_results(out)["game"].unique()) == [1, 2, 3]
    row = lines[3].rstrip("\n").split(",")                    # game 2, seat 0 says 3 players
    row[k] = "3"
    (out / "results.csv").write_text("".join(lines[:3] + [",".join(row) + "\n"] + lines[4:]))
    with pytest.raises(TournamentError, match="game 2 has 2 rows but players is"):
        load_results(out)


def test_ctrl_c_in_a_tournament_prints_one_line(tmp_path, monkeypatch):
    def interrupted(*a, **k):
        raise KeyboardInterrupt
    monkeypatch.setattr(tournament, "run_plan", interrupted)
    result = invoke(["tournament", "--bots", "random,greedy", "--games", "2", "--out", tmp_path / "t"])
    assert result.exit_code == 130
    after_start = [line for line in result.stderr.splitlines() if not line.startswith("tournament:")]
    assert after_start == [f"interrupted: finished games are saved; continue with --out {tmp_path / 't'} --resume"]


def test_ctrl_c_in_any_command_prints_one_line(monkeypatch):
    # click itself would print an empty line and "Aborted!" before the command line's own line
    import thurn_ai.commands.play as play_command

    def interrupted(*a, **k):
        raise KeyboardInterrupt
    monkeypatch.setattr(play_command, "play_game", interrupted)
    result = invoke(["play", "--bots", "random,random", "--quiet"])
    assert result.exit_code == 130
    assert result.stderr.splitlines() == ["interrupted"]
