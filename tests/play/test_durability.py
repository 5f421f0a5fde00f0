"""Nothing is lost: tournaments killed (SIGKILL) at any moment resume to exactly the uninterrupted result.

Runs are real processes: forked children of the test process running run_tournament (cheap, so many kill
points can be tried), and a few `python -m thurn_ai.cli tournament` subprocesses. Exact moments come from
the test hook THURN_AI_FAULT=POINT[@N] in thurn_ai/play/tournament/faults.py, which makes the process SIGKILL itself
there; other kills come at random times from outside. Bots are random and greedy (8 games in ~0.15 s)."""
import os
import random
import shutil
import signal
import subprocess
import sys
import time
import traceback
from pathlib import Path

import pandas as pd
import pytest

from thurn_ai import cli
from thurn_ai.play import tournament as tm
from thurn_ai.play.tournament import TournamentError, load_results, run_tournament

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="kills real processes (POSIX)")

SPECS = ["random", "greedy"]
SEED = 11
GAMES = 8
FILES = ("results.csv", "records.jsonl")


def run(out, **kw):
    kw.setdefault("jobs", 1)
    return run_tournament(SPECS, games=kw.pop("games", GAMES), seed=SEED, out_dir=out, progress=False, **kw)


def in_child(out, fault=None, resume=False, jobs=1, kill_after=None):
    """Run the tournament in a forked process; returns how it ended: "ok", "killed" or "error"."""
    pid = os.fork()
    if pid == 0:                                   # the child: never returns into pytest
        code = 0
        try:
            if fault:
                os.environ[tm.FAULT_ENV] = fault
            run(out, resume=resume, jobs=jobs)
        except BaseException:
            traceback.print_exc()
            code = 3
        finally:
            os._exit(code)
    if kill_after is not None:
        time.sleep(kill_after)
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    _, status = os.waitpid(pid, 0)
    if os.WIFSIGNALED(status):
        assert os.WTERMSIG(status) == signal.SIGKILL
        return "killed"
    return "ok" if os.WEXITSTATUS(status) == 0 else "error"


def saved_games(out) -> set[int]:
    """The games a resume of the folder keeps (read as the library reads it)."""
    if not (Path(out) / tm.META_FILE).exists():
        return set()
    plan = tm.plan_tournament(SPECS, games=GAMES, seed=SEED)
    columns = tm.result_columns(plan.rules)
    return set(tm.ResultStore(out, plan.meta(columns), columns).read_saved())


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """An uninterrupted run of the same seed: its folder and frame."""
    out = tmp_path_factory.mktemp("ref") / "t"
    return out, run(out)


def assert_same_as_reference(out: Path, reference):
    """Game by game: the same rows for each game number and the same record; then the whole files."""
    ref_dir, ref = reference
    got = load_results(out)
    assert (out / "results.parquet").exists()
    assert sorted(got["game"].unique()) == list(range(1, GAMES + 1))
    for g in range(1, GAMES + 1):
        pd.testing.assert_frame_equal(got[got.game == g].reset_index(drop=True),
                                      ref[ref.game == g].reset_index(drop=True))
    records = (out / "records.jsonl").read_text(encoding="utf-8").splitlines()
    ref_records = (ref_dir / "records.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(records) == GAMES
    for g, (a, b) in enumerate(zip(records, ref_records), start=1):
        assert a == b, f"the record of game {g} differs"
    for name in FILES:
        assert (out / name).read_bytes() == (ref_dir / name).read_bytes(), name
    pd.testing.assert_frame_equal(pd.read_parquet(out / "results.parquet"), ref)
    assert not [p.name for p in out.iterdir() if p.name.endswith(".tmp")]       # no temporary files left


# ---------------------------------------------------------------- kills at exact moments

# (fault point, games saved when the process dies at it)
FIRST_RUN_POINTS = [
    ("open-start", 0), ("open-meta-written", 0), ("open-csv-half", 0), ("open-done", 0),
    ("append-record-half@1", 0), ("append-record@1", 0), ("append-rows-half@1", 0), ("append-rows@1", 1),
    ("append-record-half@4", 3), ("append-record@5", 4), ("append-rows-half@6", 5), ("append-rows@8", 8),
    ("finish-start", 8), ("finish-records-half", 8), ("finish-records-written", 8), ("finish-csv-half", 8),
    ("finish-csv-written", 8), ("finish-parquet-unrenamed", 8), ("finish-done", 8),
]

# kills during a resume of a folder that holds games 1-4 and half of game 5's rows
RESUME_POINTS = ["open-start", "open-parquet-removed", "open-records-half", "open-records-written",
                 "open-csv-half", "open-csv-written", "open-done", "append-rows@1", "finish-records-half",
                 "finish-csv-half"]


def test_killed_at_every_named_point_then_resumed_equals_an_uninterrupted_run(reference, tmp_path):
    for i, (point, saved) in enumerate(FIRST_RUN_POINTS):
        out = tmp_path / f"k{i}"
        assert in_child(out, fault=point) == "killed", point
        assert saved_games(out) == set(range(1, saved + 1)), point      # nothing finished is lost
        assert in_child(out, resume=True) == "ok", point     # (before tournament.json: resume starts it)
        assert_same_as_reference(out, reference)


def test_killed_at_the_start_of_a_resume_then_resumed_again(reference, tmp_path):
    interrupted = tmp_path / "interrupted"
    assert in_child(interrupted, fault="append-rows-half@5") == "killed"
    assert saved_games(interrupted) == set(range(1, 5))
    for i, point in enumerate(RESUME_POINTS):
        out = tmp_path / f"r{i}"
        shutil.copytree(interrupted, out)
        assert in_child(out, fault=point, resume=True) == "killed", point
        assert saved_games(out) >= set(range(1, 5)), point               # the kill lost nothing saved
        assert in_child(out, resume=True) == "ok", point
        assert_same_as_reference(out, reference)


def test_a_resumed_complete_tournament_killed_while_rewriting_plays_nothing_again(reference, tmp_path):
    out = tmp_path / "t"
    assert in_child(out) == "ok"
    for point in ("open-records-half", "open-records-written", "open-csv-half", "finish-records-half",
                  "finish-csv-half", "finish-parquet-unrenamed"):
        assert in_child(out, fault=point, resume=True) == "killed", point
        assert saved_games(out) == set(range(1, GAMES + 1)), point
    assert in_child(out, resume=True, fault="append-record-half@1") == "ok"   # no game was played again
    assert_same_as_reference(out, reference)


def test_killed_at_random_moments_until_done(reference, tmp_path):
    """Kills from outside at random times, with one and two worker processes, resuming after each. The
    kill times scale with how long a whole run takes here (an idle machine finishes a run in a fraction
    of a second, a loaded one in several); the first three kills come after a fifth, a seventh and a
    tenth of a whole run (less than half a run in all, so all three land even if later runs are twice
    as fast), later ones at random."""
    rng = random.Random(3)
    for jobs in (1, 2):
        start = time.monotonic()
        assert in_child(tmp_path / f"timing{jobs}", jobs=jobs) == "ok"
        whole = time.monotonic() - start
        out = tmp_path / f"j{jobs}"
        kills, attempts, before = 0, 0, set()
        while True:
            attempts += 1
            assert attempts < 60, "no progress"
            if attempts > 25:       # later attempts run to the end
                assert in_child(out, resume=out.exists(), jobs=jobs) == "ok"
                break
            kill_after = whole * (0.2, 0.15, 0.1)[attempts - 1] if attempts <= 3 else rng.uniform(0.0, 0.9 * whole)
            end = in_child(out, resume=out.exists(), jobs=jobs, kill_after=kill_after)
            now = saved_games(out)
            assert now >= before, "a kill lost saved games"
            before = now
            if end == "ok":
                break
            assert end == "killed"
            kills += 1
        assert kills >= 3
        assert_same_as_reference(out, reference)


# ---------------------------------------------------------------- a real CLI process; its workers

def cli_tournament(out, *extra, env=None, **popen):
    return subprocess.Popen([sys.executable, "-m", "thurn_ai.cli", "tournament", "--bots", ",".join(SPECS),
                             "--seed", str(SEED), "--no-progress", "--out", str(out), *extra],
                            env={**os.environ, **(env or {})}, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, **popen)


def test_cli_killed_inside_the_final_rewrite_then_resumed(reference, tmp_path):
    out = tmp_path / "t"
    p = cli_tournament(out, "--games", str(GAMES), "--jobs", "2",
                       env={tm.FAULT_ENV: "finish-records-half"})
    p.communicate(timeout=120)
    assert p.returncode == -signal.SIGKILL
    assert saved_games(out) == set(range(1, GAMES + 1))
    p = cli_tournament(out, "--resume", "--jobs", "1")
    _, err = p.communicate(timeout=120)
    assert p.returncode == 0, err
    assert_same_as_reference(out, reference)


def _alive(proc) -> bool:
    psutil = pytest.importorskip("psutil")
    try:
        return proc.is_running() and proc.status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


@pytest.mark.parametrize("pdeathsig", [True, False], ids=["pdeathsig", "watcher"])
def test_pool_workers_end_with_a_killed_tournament(tmp_path, pdeathsig):
    psutil = pytest.importorskip("psutil")
    env = {} if pdeathsig else {tm.NO_PDEATHSIG_ENV: "1"}      # the portable fallback alone
    p = cli_tournament(tmp_path / "t", "--games", "2000", "--jobs", "2", env=env)
    try:
        parent = psutil.Process(p.pid)
        deadline = time.time() + 60
        workers = []
        while len(workers) < 2:
            assert time.time() < deadline and p.poll() is None, "the workers did not start"
            time.sleep(0.05)
            workers = parent.children(recursive=True)
        os.kill(p.pid, signal.SIGKILL)
        p.wait()
        deadline = time.time() + 5
        while any(_alive(w) for w in workers) and time.time() < deadline:
            time.sleep(0.05)
        assert not [w.pid for w in workers if _alive(w)], "workers outlived the tournament"
    finally:
        if p.poll() is None:
            p.kill()
        p.wait()
        p.stderr.close()


# ---------------------------------------------------------------- damaged logs

@pytest.fixture
def finished(reference, tmp_path):
    """A copy of the reference folder without results.parquet (as an interrupted run leaves it)."""
    out = tmp_path / "t"
    out.mkdir()
    for name in (*FILES, "tournament.json"):
        (out / name).write_bytes((reference[0] / name).read_bytes())
    return out


def lines(path: Path) -> list[bytes]:
    return path.read_bytes().splitlines(keepends=True)


def replayed(out, monkeypatch) -> list[int]:
    played = []
    real = tm.play_task
    monkeypatch.setattr(tm.plan, "play_task", lambda t: played.append(t.game) or real(t))
    run(out, resume=True)
    return sorted(played)


def test_a_cut_last_line_in_results_csv_replays_that_game(finished, reference, monkeypatch):
    csv_lines = lines(finished / "results.csv")                # header + 2 rows per game
    (finished / "results.csv").write_bytes(b"".join(csv_lines[:-1]) + csv_lines[-1][:30])
    assert load_results(finished)["game"].max() == GAMES - 1  # report reads only whole games
    assert replayed(finished, monkeypatch) == [GAMES]
    assert_same_as_reference(finished, reference)


def test_a_cut_last_line_in_records_jsonl_replays_that_game(finished, reference, monkeypatch):
    rec = lines(finished / "records.jsonl")
    (finished / "records.jsonl").write_bytes(b"".join(rec[:-1]) + rec[-1][:-1])   # only the newline missing
    assert replayed(finished, monkeypatch) == [GAMES]
    assert_same_as_reference(finished, reference)


def test_rows_without_their_record_replay_the_game(finished, reference, monkeypatch):
    rec = lines(finished / "records.jsonl")
    damaged = rec[4][:100] + b"\xff garbage\n"                 # game 5: not JSON, not even UTF-8
    (finished / "records.jsonl").write_bytes(b"".join(rec[:2] + rec[3:4] + [damaged] + rec[5:]))  # no game 3
    assert replayed(finished, monkeypatch) == [3, 5]
    assert_same_as_reference(finished, reference)


def test_a_damaged_or_partial_game_in_results_csv_is_replayed(finished, reference, monkeypatch):
    csv_lines = lines(finished / "results.csv")
    csv_lines[3] = csv_lines[3].replace(b",False,", b",maybe,")        # game 2, seat 0: a bad value
    del csv_lines[8]                                                  # game 4, seat 1 missing
    (finished / "results.csv").write_bytes(b"".join(csv_lines))
    assert replayed(finished, monkeypatch) == [2, 4]
    assert_same_as_reference(finished, reference)


def test_records_of_another_seed_do_not_count(finished, reference, monkeypatch):
    rec = lines(finished / "records.jsonl")
    rec[0] = rec[0].replace(b'"seed": ', b'"seed": 1', 1)
    (finished / "records.jsonl").write_bytes(b"".join(rec))
    assert replayed(finished, monkeypatch) == [1]
    assert_same_as_reference(finished, reference)


def test_results_without_any_records_file_are_refused_not_replayed(finished, reference, monkeypatch, capsys):
    """A folder copied without records.jsonl (no kill of ours leaves that): an explicit resume is one error, its
    results.csv kept, instead of playing every game again; resume="auto" (an experiment rerunning a committed
    cell) plays them again, as before."""
    kept = (finished / "records.jsonl").read_bytes()
    (finished / "records.jsonl").unlink()
    before = (finished / "results.csv").read_bytes()
    with pytest.raises(TournamentError, match=f"holds {GAMES} finished games in results.csv but no records.jsonl"):
        run(finished, resume=True)
    assert (finished / "results.csv").read_bytes() == before
    (finished / "records.jsonl").write_bytes(kept)                     # restored: nothing is played again
    assert replayed(finished, monkeypatch) == []
    assert_same_as_reference(finished, reference)
    (finished / "records.jsonl").unlink()
    pd.testing.assert_frame_equal(run(finished, resume="auto"), reference[1])      # a rerun: all played again
    assert_same_as_reference(finished, reference)


# ---------------------------------------------------------------- folders that are refused or allowed

def cli_error(argv, capsys) -> str:
    with pytest.raises(SystemExit) as e:
        cli.main(argv)
    err = capsys.readouterr().err
    assert e.value.code == 2 and "Traceback" not in err
    assert len(err.strip().splitlines()) >= 1
    last = err.strip().splitlines()[-1]
    assert last.startswith("error: ")
    return last


def base_cli(out):
    return ["tournament", "--bots", ",".join(SPECS), "--games", "2", "--jobs", "1", "--no-progress",
            "--out", str(out)]


def test_a_folder_with_other_files_is_refused_not_overwritten(tmp_path, capsys):
    out = tmp_path / "mine"
    out.mkdir()
    (out / "results.csv").write_text("my own data\n")
    (out / "notes.txt").write_text("keep me\n")
    msg = cli_error(base_cli(out), capsys)
    assert "holds files (notes.txt, results.csv) but no tournament.json" in msg
    msg = cli_error(base_cli(out) + ["--resume"], capsys)
    assert "no tournament to resume" in msg
    assert sorted(p.name for p in out.iterdir()) == ["notes.txt", "results.csv"]   # untouched, no lock
    assert (out / "results.csv").read_text() == "my own data\n"


def test_resuming_a_folder_that_does_not_exist_is_an_error(tmp_path, capsys):
    msg = cli_error(base_cli(tmp_path / "typo") + ["--resume"], capsys)
    assert "does not exist" in msg and "--resume" in msg
    assert not (tmp_path / "typo").exists()
    with pytest.raises(TournamentError, match="does not exist"):
        run(tmp_path / "typo", resume=True)


def test_empty_folders_and_auto_resume(reference, tmp_path):
    (tmp_path / "empty").mkdir()
    pd.testing.assert_frame_equal(run(tmp_path / "empty"), reference[1])           # an empty folder is fine
    leftovers = tmp_path / "killed-early"                                          # only our own leftovers
    leftovers.mkdir()
    (leftovers / ".lock").write_text("")
    (leftovers / ".tournament.json.abc123.tmp").write_text("{")
    pd.testing.assert_frame_equal(run(leftovers, resume=True), reference[1])
    assert not (leftovers / ".tournament.json.abc123.tmp").exists()
    auto = tmp_path / "auto"
    pd.testing.assert_frame_equal(run(auto, resume="auto"), reference[1])        # starts it
    pd.testing.assert_frame_equal(run(auto, resume="auto"), reference[1])        # continues it
    with pytest.raises(TournamentError, match="resume must be"):
        run(auto, resume="yes")


# ---------------------------------------------------------------- report: a damaged Parquet file

@pytest.mark.parametrize("damage", ["cut", "garbage", "empty"])
def test_report_falls_back_to_results_csv_when_the_parquet_is_damaged(reference, tmp_path, capsys, damage):
    out = tmp_path / "t"
    out.mkdir()
    for name in (*FILES, "tournament.json"):
        (out / name).write_bytes((reference[0] / name).read_bytes())
    data = (reference[0] / "results.parquet").read_bytes()
    (out / "results.parquet").write_bytes({"cut": data[:len(data) // 2], "garbage": b"PAR1" + os.urandom(500),
                                           "empty": b""}[damage])
    notes = []
    pd.testing.assert_frame_equal(load_results(out, note=notes.append), reference[1])
    assert len(notes) == 1 and "results.parquet" in notes[0] and "reading" in notes[0]
    with pytest.raises(SystemExit) as e:
        cli.main(["report", str(out), "--no-plots"])
    captured = capsys.readouterr()
    assert e.value.code == 0 and "Traceback" not in captured.err
    assert "note: cannot read tournament results from" in captured.err
    assert "reading" in captured.err and "results.csv instead" in captured.err
    assert "win %" in captured.out
    (out / "results.csv").unlink()                   # nothing to fall back to: the one-line error
    assert "cannot read tournament results" in cli_error(["report", str(out)], capsys)


def test_plots_are_written_atomically(reference, tmp_path):
    from thurn_ai.stats.plots import write_plots
    from thurn_ai.stats.summary import summarize
    paths = write_plots(reference[1], summarize(reference[1]), tmp_path / "plots")
    assert all(p.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" for p in paths)
    assert sorted(p.name for p in (tmp_path / "plots").iterdir()) == sorted(p.name for p in paths)


def test_rewritten_files_keep_normal_permissions(tmp_path):
    """Atomic writes go through a private temporary file; the result still gets the usual permissions."""
    old = os.umask(0o022)
    try:
        run(tmp_path / "t", games=2)
    finally:
        os.umask(old)
    for name in (*FILES, "results.parquet", "tournament.json"):
        assert (tmp_path / "t" / name).stat().st_mode & 0o777 == 0o644, name
    (tmp_path / "t" / "results.csv").chmod(0o640)
    run(tmp_path / "t", games=2, resume=True)                     # a rewrite keeps the file's own mode
    assert (tmp_path / "t" / "results.csv").stat().st_mode & 0o777 == 0o640


def test_a_tls_scheduler_without_certificates_is_one_clear_error(tmp_path, monkeypatch):
    pytest.importorskip("distributed")
    for key in ("CA_FILE", "CLIENT__CERT", "CLIENT__KEY"):
        monkeypatch.delenv(f"DASK_DISTRIBUTED__COMM__TLS__{key}", raising=False)
    with pytest.raises(TournamentError, match="tls:// scheduler .* needs the CA file"):
        run(tmp_path / "t", scheduler="tls://127.0.0.1:1")
    assert not (tmp_path / "t").exists()


def test_a_full_disk_is_one_error_and_the_folder_stays_resumable(reference, tmp_path, monkeypatch):
    import errno
    out = tmp_path / "t"
    real_fsync = os.fsync
    calls = []

    def full_disk(fd):           # the 4th flush on is refused: the first rewrite of finish()
        calls.append(fd)
        if len(calls) >= 4:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real_fsync(fd)

    monkeypatch.setattr(os, "fsync", full_disk)
    with pytest.raises(TournamentError, match="No space left on device; the games saved so far are kept"):
        run(out)
    monkeypatch.setattr(os, "fsync", real_fsync)
    assert saved_games(out) == set(range(1, GAMES + 1))
    assert not [p.name for p in out.iterdir() if p.name.endswith(".tmp")]
    pd.testing.assert_frame_equal(run(out, resume=True), reference[1])
    assert_same_as_reference(out, reference)
