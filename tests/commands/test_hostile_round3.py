"""Hostile input, third round (issue 44; docs/serve.md, reliability audit 3): each defect of the audit, pinned
by a test that fails on the code it audited.

The CLI cases run in-process (click's runner): one `error:` line and exit status 2, never a traceback.
"""
from __future__ import annotations

import gzip
import json
import math
import os
import stat
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

import thurn_ai
from thurn_ai.cli import cli
from thurn_ai.errors import BotSpecError, ThurnError
from thurn_ai.fileio import atomic_write_text
from thurn_ai.learned.model import DEFAULT_PATH, ModelError, ValueModel, model_from

ROOT = Path(__file__).resolve().parents[2]


def runner() -> CliRunner:
    try:
        return CliRunner(mix_stderr=False)     # click 8.1
    except TypeError:
        return CliRunner()


def run(*args):
    return runner().invoke(cli, [str(a) for a in args], catch_exceptions=False)


def one_error(result, *words):
    """The command failed with exactly one `error:` line (and no traceback) holding every word."""
    err = result.stderr if hasattr(result, "stderr") else result.output
    lines = [ln for ln in err.splitlines() if ln.startswith("error")]   # a tournament says first what it runs
    assert result.exit_code == 2, (result.exit_code, result.output, err)
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    assert "Traceback" not in err
    for w in words:
        assert w in lines[0], (w, lines[0])
    return lines[0]


@pytest.fixture()
def pos(tmp_path):
    p = tmp_path / "pos.json"
    thurn_ai.position.save_position(thurn_ai.new_game(players=2, seed=1), p)
    return p


def shipped() -> dict:
    return json.loads(DEFAULT_PATH.read_text())


# ---------------------------------------------------------------- 2, 3: weights files are data

def model_variants():
    """(name, change) pairs: each makes the shipped weights file invalid in one way the audit tried."""
    def models(v):
        return lambda d: d.__setitem__("models", v)

    def weight(key, v, players="2"):
        return lambda d: d["models"][players].__setitem__(key, [v] * len(d["models"][players][key]))
    return [
        ("models-list", models([1, 2])), ("models-string", models("x")), ("models-number", models(3)),
        ("models-true", models(True)), ("models-empty", models({})),
        ("entry-list", lambda d: d["models"].__setitem__("2", [1, 2])),
        ("players-x", lambda d: d["models"].__setitem__("x", d["models"]["2"])),
        ("players-99", lambda d: d["models"].__setitem__("99", d["models"]["2"])),
        ("players-1e1", lambda d: d["models"].__setitem__("1e1", d["models"]["2"])),
        ("overflow", weight("win", 1e308)), ("overflow-neg", weight("score", -1e308)),
        ("absurd", weight("win", 1e200)), ("bool-weights", weight("win", True)),
        ("string-weights", weight("win", "1.5")), ("nested", weight("win", [1.0])),
        ("short", lambda d: d["models"]["2"].__setitem__("win", [0.1] * 3)),
        ("version-999", lambda d: d.__setitem__("version", 999)),
        ("version-string", lambda d: d.__setitem__("version", "1")),
        ("version-true", lambda d: d.__setitem__("version", True)),
        ("version-missing", lambda d: d.pop("version")),
        ("meta-list", lambda d: d.__setitem__("meta", [1, 2])),
        ("meta-string", lambda d: d.__setitem__("meta", "ab")),
    ]


@pytest.mark.parametrize("name,change", model_variants(), ids=[n for n, _ in model_variants()])
def test_a_malformed_weights_file_is_one_model_error(tmp_path, name, change):
    d = shipped()
    change(d)
    p = tmp_path / f"{name}.json"
    p.write_text(json.dumps(d))
    with pytest.raises(ModelError):
        ValueModel.load(p)


def test_weights_that_overflow_are_refused_by_every_command(tmp_path, pos):
    d = shipped()
    d["models"]["2"]["win"] = [1e308] * len(d["models"]["2"]["win"])
    w = tmp_path / "nan.json"
    w.write_text(json.dumps(d))
    one_error(run("hint", pos, "--bot", f"mcts(eval=learned,model={w})", "--iterations", 20, "--json"),
              "at most 10,000")
    one_error(run("play", "--bots", f"mcts(eval=learned,model={w},iterations=20),random"), "at most 10,000")


def test_models_not_an_object_and_a_link_loop_are_one_error_line(tmp_path, pos):
    d = shipped()
    d["models"] = "x"
    w = tmp_path / "w.json"
    w.write_text(json.dumps(d))
    one_error(run("hint", pos, "--bot", f"mcts(eval=learned,model={w})", "--iterations", 20), "'models'")
    loop = tmp_path / "loop"
    loop.symlink_to(loop)
    one_error(run("hint", pos, "--bot", f"mcts(eval=learned,model={loop})", "--iterations", 20),
              "cannot read value model")
    with pytest.raises(ModelError):
        model_from(loop)
    with pytest.raises(ModelError):
        model_from(123)


def test_the_gymnasium_env_refuses_a_bad_weights_file_by_name(tmp_path):
    pytest.importorskip("gymnasium")
    from thurn_ai.adapters.gym import ThurnUndTaxisGymEnv as ThurnEnv
    d = shipped()
    d["models"] = [1]
    w = tmp_path / "w.json"
    w.write_text(json.dumps(d))
    with pytest.raises(ThurnError, match="'models'"):
        ThurnEnv(opponents=f"mcts(eval=learned,model={w})")


def test_the_shipped_model_still_loads_and_saves(tmp_path):
    from thurn_ai.learned.model import MAX_WEIGHT
    m = ValueModel.load()
    assert set(m.players()) == {2, 3, 4}
    assert max(abs(v) for n in m.players() for v in m.score[n]) < MAX_WEIGHT
    m.save(tmp_path / "m.json")
    assert ValueModel.load(tmp_path / "m.json").to_dict() == m.to_dict()


def test_json_output_never_holds_nan():
    from thurn_ai.fileio import finite_json
    assert finite_json({"a": [1.0, math.nan, {"b": math.inf}], "c": "x"}) == {"a": [1.0, None, {"b": None}], "c": "x"}
    assert "NaN" not in json.dumps(finite_json([math.nan]), allow_nan=False)


# ---------------------------------------------------------------- 4: writes refuse links and devices

def targets(tmp_path):
    """A user's file, a symbolic link and a hard link to it, a FIFO and a folder."""
    mine = tmp_path / "mine.png"
    mine.write_bytes(b"my notes\n")
    (tmp_path / "link.png").symlink_to(mine)
    (tmp_path / "dangling.png").symlink_to(tmp_path / "nowhere.png")
    os.link(mine, tmp_path / "hard.png")
    os.mkfifo(tmp_path / "fifo.png")
    return mine, ["link.png", "dangling.png", "hard.png", "fifo.png"]


def test_show_png_never_writes_through_a_link_or_into_a_fifo(tmp_path, pos):
    mine, names = targets(tmp_path)
    for name in names:
        one_error(run("show", pos, "--png", tmp_path / name), name)
    assert mine.read_bytes() == b"my notes\n"
    assert not (tmp_path / "nowhere.png").exists()
    assert stat.S_ISFIFO(os.lstat(tmp_path / "fifo.png").st_mode)


def test_save_png_is_atomic_and_refuses_links(tmp_path):
    from thurn_ai.render.board import save_png
    mine, _ = targets(tmp_path)
    g = thurn_ai.new_game(players=2, seed=1)
    with pytest.raises(ThurnError, match="symbolic link"):
        save_png(g, tmp_path / "link.png")
    assert mine.read_bytes() == b"my notes\n"
    # the write goes through a temporary file: a failure while drawing leaves the old file whole
    import matplotlib.figure
    real = matplotlib.figure.Figure.savefig

    def broken(self, f, **kw):
        f.write(b"half a PNG")
        raise OSError(28, "No space left on device")
    (tmp_path / "old.png").write_bytes(b"the old PNG")
    matplotlib.figure.Figure.savefig = broken
    try:
        with pytest.raises(ThurnError, match="No space left"):
            save_png(g, tmp_path / "old.png")
    finally:
        matplotlib.figure.Figure.savefig = real
    assert (tmp_path / "old.png").read_bytes() == b"the old PNG"
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def test_save_position_and_the_model_refuse_links_folders_and_fifos(tmp_path):
    mine, names = targets(tmp_path)
    g = thurn_ai.new_game(players=2, seed=1)
    (tmp_path / "folder").mkdir()
    for name in names + ["folder"]:
        with pytest.raises(ThurnError):
            thurn_ai.position.save_position(g, tmp_path / name)
        with pytest.raises(ThurnError):
            ValueModel.load().save(tmp_path / name)
    assert mine.read_bytes() == b"my notes\n"
    assert stat.S_ISFIFO(os.lstat(tmp_path / "fifo.png").st_mode)


def test_every_atomic_write_refuses_a_device(tmp_path):
    # a character device (a private copy of /dev/null, never the system's: the code this test pins replaced
    # the device it was given by a file) stands in for /dev/sda or /dev/full
    dev = tmp_path / "null"
    try:
        os.mknod(dev, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    except (PermissionError, AttributeError):
        pytest.skip("making a device node needs root")
    with pytest.raises(ThurnError, match="not a regular file"):
        atomic_write_text(dev, "x")
    assert stat.S_ISCHR(os.lstat(dev).st_mode)


def test_record_to_a_name_ending_in_a_slash_is_refused(tmp_path):
    one_error(run("play", "--bots", "random,random", "--record", f"{tmp_path}/newdir/"), "slash")
    assert not (tmp_path / "newdir").exists()


def test_log_appends_refuse_links(tmp_path):
    from thurn_ai.fileio import open_append
    mine = tmp_path / "mine.txt"
    mine.write_text("mine\n")
    (tmp_path / "log").symlink_to(mine)
    with pytest.raises(ThurnError):
        open_append(tmp_path / "log")
    with open_append(tmp_path / "new.log") as f:
        f.write("a line\n")
    assert (tmp_path / "new.log").read_text() == "a line\n"
    assert mine.read_text() == "mine\n"


# ---------------------------------------------------------------- 5: bounded reads

def test_read_bounded_refuses_devices_and_large_files(tmp_path):
    from thurn_ai.fileio import read_bounded
    with pytest.raises(ThurnError, match="not a regular file"):
        read_bounded("/dev/zero", "log file")
    big = tmp_path / "big"
    big.write_bytes(b"x" * 2000)
    with pytest.raises(ThurnError, match="larger than"):
        read_bounded(big, "log file", max_bytes=1000)
    assert read_bounded(big, "log file", max_bytes=2000) == b"x" * 2000


@pytest.fixture()
def tournament(tmp_path):
    out = tmp_path / "t"
    r = run("tournament", "--bots", "random,greedy", "--games", 4, "--seed", 1, "--out", out, "--no-progress",
            "--jobs", 1)
    assert r.exit_code == 0, r.output
    return out


@pytest.mark.parametrize("name", ["records.jsonl", "results.csv"])
def test_resume_with_a_log_linked_to_dev_zero_is_one_error(tournament, name):
    (tournament / name).unlink()
    (tournament / name).symlink_to("/dev/zero")
    one_error(run("tournament", "--bots", "random,greedy", "--games", 4, "--seed", 1, "--out", tournament,
                  "--resume", "--no-progress", "--jobs", 1), name)


def test_report_of_a_csv_linked_to_dev_zero_is_one_error(tournament):
    (tournament / "results.parquet").unlink()
    (tournament / "results.csv").unlink()
    (tournament / "results.csv").symlink_to("/dev/zero")
    one_error(run("report", tournament, "--no-plots"), "not a regular file")


def test_resume_drops_a_row_whose_bot_label_was_damaged(tournament):
    csv = tournament / "results.csv"
    lines = csv.read_text().splitlines(keepends=True)
    row = lines[1].split(",")
    assert row[3] == row[4]                          # the label is the spec (no repeated bots)
    row[3] = row[3][:2] + "\x01" + row[3][2:]
    lines[1] = ",".join(row)
    csv.write_text("".join(lines))
    (tournament / "results.parquet").unlink()
    r = run("tournament", "--bots", "random,greedy", "--games", 4, "--seed", 1, "--out", tournament,
            "--resume", "--no-progress", "--jobs", 1)
    assert r.exit_code == 0, r.output
    df = pd.read_parquet(tournament / "results.parquet")
    assert set(df["bot"]) == {"random", "greedy"}
    assert len(df) == 8


# ---------------------------------------------------------------- officials_save.py

def save_script():
    import importlib.util
    spec = importlib.util.spec_from_file_location("officials_save", ROOT / "experiments" / "officials_save.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.parametrize("damage", ["{broken\n", "[1, 2]\n", '{"game": "1"}\n', b"\xff\xfe bad\n"])
def test_officials_save_keeps_going_past_a_damaged_line(tmp_path, tournament, damage, capsys):
    raw = tmp_path / "raw" / "study"
    raw.mkdir(parents=True)
    os.rename(tournament, raw / "t")
    rec = raw / "t" / "records.jsonl"
    good = rec.read_bytes()
    lines = good.splitlines(keepends=True)
    rec.write_bytes(lines[0] + (damage if isinstance(damage, bytes) else damage.encode()) + b"".join(lines[1:]))
    assert save_script().main(["save", "--raw", str(tmp_path / "raw"), "--saved", str(tmp_path / "saved")]) == 0
    kept = gzip.decompress((tmp_path / "saved" / "study" / "t" / "records.jsonl.gz").read_bytes())
    assert kept == good                              # the damaged line is the one a resume drops too


def test_officials_restore_is_bounded(tmp_path, monkeypatch, capsys):
    from thurn_ai.studies.officials import records
    saved = tmp_path / "saved" / "study"
    saved.mkdir(parents=True)
    (saved / "zeros.csv.gz").write_bytes(gzip.compress(b"0" * 3_000_000))
    monkeypatch.setattr(records, "MAX_RESTORED_BYTES", 1_000_000)
    assert save_script().main(["restore", "--saved", str(tmp_path / "saved"), "--raw", str(tmp_path / "raw")]) == 2
    assert "expands to more than" in capsys.readouterr().err
    assert not (tmp_path / "raw").exists()
    (saved / "zeros.csv.gz").unlink()
    (saved / "dev.csv.gz").symlink_to("/dev/zero")
    assert save_script().main(["restore", "--saved", str(tmp_path / "saved"), "--raw", str(tmp_path / "raw")]) == 2
    assert "not a regular file" in capsys.readouterr().err


# ---------------------------------------------------------------- 7: the board loader is linear

def test_the_board_loader_is_linear_in_the_number_of_cities(monkeypatch):
    from thurn_ai.game import board as B
    data = json.loads((B.BOARD_DIR / "south.json").read_text())
    data["cities"] = data["cities"][:20] + [{"name": f"C{i}", "province": None} for i in range(3000)]
    calls = [0]
    real = B.fold

    def counted(name):
        calls[0] += 1
        return real(name)
    monkeypatch.setattr(B, "fold", counted)
    with pytest.raises(ThurnError, match="2 to 32 cities, this one has 3020"):
        B.parse_board(data)
    assert calls[0] < 10 * 3020          # the audited loader compared every pair: 4.5 million folds


def test_duplicate_provinces_roads_and_cities_are_still_refused():
    from thurn_ai.game import board as B
    base = json.loads((B.BOARD_DIR / "south.json").read_text())
    for key, extra, message in (("cities", lambda d: d["cities"][0], "listed twice"),
                                ("roads", lambda d: d["roads"][0], "listed twice"),
                                ("provinces", lambda d: d["provinces"][0], "listed twice")):
        d = json.loads(json.dumps(base))
        d[key] = d[key][:-1] + [extra(d)]
        with pytest.raises(ThurnError, match=message):
            B.parse_board(d)


# ---------------------------------------------------------------- 8: extending a data set skips no game

def test_extending_a_data_set_plays_the_short_last_chunk_again(tmp_path, monkeypatch):
    from thurn_ai.studies.learned import data as D
    played = []
    real = D.play_data_game

    def cheap(players, game, seed, search, strong):
        played.append(game)
        return real(players, game, seed, "random", "random")
    monkeypatch.setattr(D, "play_data_game", cheap)
    first = D.plan_chunks(players=(2,), games=15, seed=1, search="random", strong="random")
    assert D.generate(tmp_path, first) == 2
    assert sorted(played) == list(range(15))
    played.clear()
    more = D.plan_chunks(players=(2,), games=20, seed=1, search="random", strong="random")
    assert D.generate(tmp_path, more) == 1           # the short chunk 10-14 is played again, whole
    assert sorted(played) == list(range(10, 20))
    games = set(D.load(tmp_path)["game"])
    assert games == set(range(20))
    played.clear()
    assert D.generate(tmp_path, more) == 0 and played == []


# ---------------------------------------------------------------- Also: specs

@pytest.mark.parametrize("bad", ["__import__", "0", "-1", "10000001", "true", "0x10"])
def test_a_specs_own_bad_budget_is_not_dropped_by_iterations(pos, bad):
    one_error(run("hint", pos, "--bot", f"mcts(iterations={bad})", "--iterations", 20), "iterations")


def test_a_specs_own_bad_time_is_not_dropped_by_iterations(pos):
    one_error(run("hint", pos, "--bot", "mcts(time=3601)", "--iterations", 20), "time")


def test_greedy_close_at_is_bounded_as_heuristics():
    from thurn_ai.bots import make_bot
    for bad in ("1000", "true", "2"):
        with pytest.raises(BotSpecError, match="close_at"):
            make_bot(f"greedy(close_at={bad})")
    assert make_bot("greedy(close_at=7)").close_at == 7


def test_study_data_and_results_files_are_read_bounded(tmp_path):
    from thurn_ai.studies.officials import StudyError, load_study
    from thurn_ai.play.tournament import TournamentError, load_results
    with pytest.raises(StudyError, match="not a regular file"):
        load_study("/dev/zero")
    (tmp_path / "results.parquet").symlink_to("/dev/zero")
    with pytest.raises(TournamentError, match="not a regular file"):
        load_results(tmp_path / "results.parquet")
