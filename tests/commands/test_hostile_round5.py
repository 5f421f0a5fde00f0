"""Hostile input, fifth round (issue 72, ../shared/reviews/reliability-audit-5.md): reads bounded by
streaming, never by allocating the bound (N1, N5); one game of a tournament reviewed by streaming to its
line (N2); --moves bounded by the game (N4); the review cache and a record's final scores not trusted as
read."""
from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import textwrap

import pytest

from thurn_ai import fileio
from thurn_ai.play import review as R
from thurn_ai.play.match import parse_records

from tests.commands.test_cli_edges import assert_one_error, invoke
from tests.helpers import write_random_record

linux_only = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="RLIMIT_AS and /proc are Linux's")


def run_capped(code: str, *args, extra: int = 2 ** 30, timeout: float = 120):
    """`code` run by a fresh Python whose address space is capped at what it uses after its imports plus
    `extra` bytes (as under `prlimit --as` or a small machine): a read that asks for the bound fails."""
    prelude = textwrap.dedent(f"""
        import resource, sys
        import thurn_ai.fileio, thurn_ai.cli, thurn_ai.play.review, thurn_ai.play.tournament.store
        import pandas, numpy
        with open("/proc/self/status") as f:
            used = next(int(l.split()[1]) * 1024 for l in f if l.startswith("VmSize:"))
        resource.setrlimit(resource.RLIMIT_AS, (used + {extra}, used + {extra}))
    """)
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
    return subprocess.run([sys.executable, "-c", prelude + textwrap.dedent(code), *map(str, args)],
                          capture_output=True, text=True, timeout=timeout, env=env)


@pytest.fixture(scope="module")
def record(tmp_path_factory):
    return write_random_record(tmp_path_factory.mktemp("rec") / "game.jsonl")


@pytest.fixture(scope="module")
def tournament(tmp_path_factory):
    out = tmp_path_factory.mktemp("t") / "t"
    r = invoke(["tournament", "--bots", "random,greedy", "--games", "4", "--jobs", "1", "--no-progress",
                "--out", out])
    assert r.exit_code == 0, r.output
    return out


# ---------------------------------------------------------------- N1: the bound is never allocated

class CountingFile:
    """A file object that records the size of every read asked of it."""

    def __init__(self, data: bytes):
        self.data, self.at, self.asked = data, 0, []

    def fileno(self):
        raise OSError("no descriptor")        # a pipe or stream: its size is not known

    def read(self, n=-1):
        self.asked.append(n)
        part = self.data[self.at:self.at + n]
        self.at += len(part)
        return part


def test_read_capped_never_asks_for_more_than_a_chunk_beyond_what_a_file_holds():
    f = CountingFile(b"x" * 10)
    assert fileio.read_capped(f, 8 * 2 ** 30) == b"x" * 10
    assert max(f.asked) <= fileio.READ_CHUNK          # before: f.read(8 GiB + 1)
    f = CountingFile(b"y" * (3 * fileio.READ_CHUNK + 5))
    assert fileio.read_capped(f, 2 * fileio.READ_CHUNK) is None          # stops at its limit
    assert f.at <= 2 * fileio.READ_CHUNK + 1
    f = CountingFile(b"z" * (2 * fileio.READ_CHUNK))
    assert fileio.read_capped(f, 2 * fileio.READ_CHUNK) == b"z" * (2 * fileio.READ_CHUNK)   # at the limit: kept


@linux_only
def test_the_readers_of_a_small_file_with_a_huge_bound_fit_a_small_address_space(tmp_path):
    small = tmp_path / "small.txt"
    small.write_text('{"a": 1}\n')
    r = run_capped("""
        from thurn_ai import fileio
        p, big = sys.argv[1], 8 * 2 ** 30
        assert fileio.read_bounded(p, "file", max_bytes=big) == b'{"a": 1}\\n'
        assert fileio.read_text(p, "file", max_bytes=big) == '{"a": 1}\\n'
        assert fileio.read_existing(p, "file", max_bytes=big) == b'{"a": 1}\\n'
        assert fileio.load_json(p, "file", max_bytes=big) == {"a": 1}
        print("ok")
    """, small, extra=512 * 2 ** 20)
    assert r.returncode == 0 and r.stdout == "ok\n", r.stderr[-2000:]


@linux_only
def test_report_and_review_of_a_tournament_run_in_2_gb(tournament):
    # before: report refused with an empty reason, review a MemoryError traceback (each read asked 8 GiB)
    r = run_capped("""
        from thurn_ai.cli import main
        main(sys.argv[1:])
    """, "report", tournament, "--no-plots", extra=2 * 2 ** 30 - 2 ** 29)
    assert r.returncode == 0 and "all games" in r.stdout, r.stderr[-2000:]
    r = run_capped("""
        from thurn_ai.cli import main
        main(sys.argv[1:])
    """, "review", tournament, "--game", "2", "--budget", "5", "--moves", "1-3", "--no-cache",
        extra=2 * 2 ** 30 - 2 ** 29)
    assert r.returncode == 0 and "decisions" in r.stdout, r.stderr[-2000:]


# ---------------------------------------------------------------- N5: the hash is bounded and streamed

def test_sha256_of_streams_and_refuses_what_is_not_a_regular_file_of_reasonable_size(tmp_path, monkeypatch):
    data = os.urandom(3 * fileio.READ_CHUNK + 7)
    f = tmp_path / "weights.json"
    f.write_bytes(data)
    assert fileio.sha256_of(f) == hashlib.sha256(data).hexdigest()
    monkeypatch.setattr(fileio, "MAX_FILE_BYTES", 2 * fileio.READ_CHUNK)
    f.write_bytes(data + b"!")           # another size: read again, and too large now
    assert fileio.sha256_of(f) == ""


@linux_only
def test_a_weights_file_linked_to_dev_zero_is_refused_without_growing(tmp_path):
    # before: read whole without bound (22-23 GB, then the kernel killed the process)
    link = tmp_path / "prior_model.json"
    link.symlink_to("/dev/zero")
    r = run_capped("""
        from thurn_ai import fileio
        print(repr(fileio.sha256_of(sys.argv[1])))
    """, link, extra=256 * 2 ** 20, timeout=60)
    assert r.returncode == 0 and r.stdout == "''\n", r.stderr[-2000:]


# ---------------------------------------------------------------- N2: one game of a folder, streamed

def test_one_game_of_a_tournament_is_found_by_streaming_to_its_line(tournament, monkeypatch):
    # before: the whole records.jsonl read as one text (2.38 GB for one game of a 1.17 GB log)
    def whole(*a, **k):
        raise AssertionError("records.jsonl read whole")
    monkeypatch.setattr(fileio, "read_capped", whole)
    rec, name = R.load_record(tournament, game=3)
    assert name.endswith("game 3")
    lines = (tournament / "records.jsonl").read_text().splitlines()
    third = [ln for ln in lines if json.loads(ln)["game"] == 3]
    assert len(third) == 1 and rec.to_json() == parse_records(third[0], "x")[0].to_json()
    r = invoke(["review", tournament, "--game", "9", "--budget", "5"])
    assert_one_error(r, "holds no game 9 (its games: 1-4)")


def test_a_tournament_log_with_a_deeply_nested_line_is_not_a_traceback(tournament, tmp_path):
    t = tmp_path / "t"
    t.mkdir()
    for f in tournament.iterdir():
        (t / f.name).write_bytes(f.read_bytes())
    with open(t / "records.jsonl", "a") as f:
        f.write("[" * 100_000 + "\n")
    assert R.load_record(t, game=2)[1].endswith("game 2")
    assert_one_error(invoke(["review", t, "--game", "7", "--budget", "5"]), "holds no game 7")


# ---------------------------------------------------------------- N4: --moves bounded by the game

def test_a_moves_range_is_bounded_by_the_game(record, monkeypatch):
    rec = R.load_record(record)[0]
    seen = []
    real = R.decisions_of
    monkeypatch.setattr(R, "decisions_of", lambda r, s, m: seen.append(m) or real(r, s, m))
    # before: a set of every number asked (--moves 1-100000000: 4.66 GB)
    n = len(rec.moves)
    one = R.review(rec, budget=5, moves=range(n - 6, 3 * 10 ** 6))
    assert seen[-1] == frozenset(range(n - 6, n))
    assert one == R.review(rec, budget=5, moves=range(n - 6, n))


@linux_only
def test_review_moves_far_beyond_the_game_is_quick(record):
    # before: grew until the memory ran out (capped here, so it failed instead)
    n = len(R.load_record(record)[0].moves)
    r = run_capped("""
        from thurn_ai.cli import main
        main(sys.argv[1:])
    """, "review", record, "--budget", "5", "--moves", f"{n - 5}-99999999999999999999", "--no-cache", "--json",
        extra=2 ** 30, timeout=120)
    assert r.returncode == 0, r.stderr[-2000:]
    assert {d["index"] for d in json.loads(r.stdout)["decisions"]} <= set(range(n - 6, n))


# ---------------------------------------------------------------- nothing trusted as read

def test_a_tampered_review_cache_is_made_again(record, tmp_path):
    rec = R.load_record(record)[0]
    first = R.review(rec, budget=5, moves=range(0, 30), cache_dir=tmp_path)
    f = next(tmp_path.glob("review-*.json"))
    saved = json.loads(f.read_text())
    target = saved.get("review", saved)
    target["decisions"][0]["label"] = "blunder"            # under a summary of 0 blunders (audit 5)
    target["decisions"][0]["loss_win"] = 0.9
    f.write_text(json.dumps(saved))
    again = R.review(rec, budget=5, moves=range(0, 30), cache_dir=tmp_path)
    assert again == first
    assert again.decisions[0].label != "blunder" or first.decisions[0].label == "blunder"


def test_review_refuses_a_record_whose_final_scores_are_false(record, tmp_path):
    d = json.loads(record.read_text())
    d["scores"] = [99, -99]
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps(d) + "\n")
    assert_one_error(invoke(["replay", bad, "--quiet"]), "the record says [99, -99]")
    assert_one_error(invoke(["review", bad, "--budget", "5", "--no-cache"]), "the record says [99, -99]")


# ---------------------------------------------------------------- empty values mean nothing

@pytest.mark.parametrize("args", [
    ["officials", "--from", ""],              # before: started the whole default study
    ["officials", "--budget", ""], ["officials", "--budget", " "], ["officials", "--budget", ",,,"],
    ["officials", "--out", ""], ["report", "T", "--plots", ""], ["serve", "--record", ""],
    ["serve", "--position", ""], ["tournament", "--bots", "random,random", "--scheduler", ""],
    ["review", "T", "--scheduler", ""], ["play", "--bots", "random,random", "--board-file", ""],
    ["replay", "R", "--board-file", " "],
])
def test_an_empty_option_value_is_refused_not_read_as_not_given(args, tournament, record, monkeypatch):
    from thurn_ai.play import tournament as T
    monkeypatch.setattr(T, "run_tournament", lambda *a, **k: pytest.fail("started"))
    args = [tournament if a == "T" else record if a == "R" else a for a in args]
    assert_one_error(invoke(args))
