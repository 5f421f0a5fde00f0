"""Hostile input, fourth round, tournaments (issue 57): logs of any size finish and resume; a resume refuses a
tournament.json that disagrees with the games saved beside it."""
import json
from pathlib import Path

import pytest

from thurn_ai.fileio import read_lines
from thurn_ai.play import tournament as tm
from thurn_ai.play.tournament import TournamentError, run_tournament
from thurn_ai.play.tournament import store as store_module

SPECS = ["random", "greedy"]


def run(out, games=4, seed=3, **kw):
    return run_tournament(kw.pop("specs", SPECS), games=games, seed=seed, jobs=1, out_dir=out, progress=False, **kw)


def test_logs_larger_than_the_results_bound_still_finish_and_resume(tmp_path, monkeypatch):
    # the logs a run reads back are streamed: a bound on what is read whole (audit 4: 1 GiB, reached by
    # 6,500 four-player games of the 1,000,000 --games allows) never stops a run
    monkeypatch.setattr(store_module, "MAX_LOG_BYTES", 2000)
    out = tmp_path / "t"
    first = run(out, games=2)
    assert (out / "records.jsonl").stat().st_size > 2000
    again = run(out, games=4, resume=True)
    assert len(again) == 8 and (out / "results.parquet").exists()
    assert first.equals(again[again.game <= 2].reset_index(drop=True))


def test_the_results_bound_agrees_with_the_largest_tournament_and_a_2_gb_machine():
    # 4 rows a game of about 150 bytes (256 with long bot specs); read by streaming, so the bound is what
    # a damaged file can cost at most, not what every read asks for (issue 72)
    assert tm.MAX_GAMES * 4 * 256 <= store_module.MAX_LOG_BYTES <= 2 ** 30


def test_an_overlong_record_line_is_dropped_and_its_game_played_again(tmp_path, monkeypatch):
    out = tmp_path / "t"
    run(out, games=2)
    ref = (out / "records.jsonl").read_bytes()
    lines = ref.splitlines()
    longest = max(range(len(lines)), key=lambda k: len(lines[k])) + 1         # its game number
    monkeypatch.setattr(store_module, "MAX_LINE_BYTES", len(lines[longest - 1]) - 1)
    assert set(tm.ResultStore(out, *_meta(out)).read_saved()) == {1, 2} - {longest}
    monkeypatch.undo()
    run(out, games=2, resume=True)
    assert (out / "records.jsonl").read_bytes() == ref


def _meta(out: Path):
    plan = tm.plan_tournament(SPECS, games=2, seed=3)
    columns = tm.result_columns(plan.rules)
    return plan.meta(columns), columns


def test_read_lines_streams_complete_lines_with_their_offsets(tmp_path):
    p = tmp_path / "log"
    p.write_bytes(b"one\n" + b"x" * 50 + b"\nthree\ncut")
    assert list(read_lines(p, "log", max_line=20)) == [(0, b"one"), (55, b"three")]
    with pytest.raises(TournamentError, match="is not a regular file"):
        list(read_lines(tmp_path, "log", TournamentError))


def edit_meta(out: Path, **changes):
    meta = json.loads((out / "tournament.json").read_text())
    meta.update(changes)
    (out / "tournament.json").write_text(json.dumps(meta))


@pytest.mark.parametrize("change, says", [
    ({"seed": 4}, "with seed"),                          # audit 4: old and new games mixed
    ({"specs": ["random", "heuristic"]}, "by ["),        # audit 4: every saved game silently replayed
    ({"specs": ["greedy", "random"]}, "by ["),           # the seats swapped
])
def test_resume_refuses_a_tournament_json_that_disagrees_with_its_games(tmp_path, change, says):
    out = tmp_path / "t"
    run(out, games=4)
    before = {n: (out / n).read_bytes() for n in ("results.csv", "records.jsonl")}
    edit_meta(out, games=8, **change)
    with pytest.raises(TournamentError, match=f"tournament.json in .* disagrees with the games saved there: "
                                              f"game 1 was played {re_escape(says)}"):
        run(out, games=None, resume=True, specs=change.get("specs", SPECS), seed=change.get("seed", 3))
    assert {n: (out / n).read_bytes() for n in before} == before            # nothing dropped


@pytest.mark.parametrize("key", ["format", "cycle"])
def test_resume_refuses_a_changed_format_or_cycle(tmp_path, key):
    out = tmp_path / "t"
    run(out, games=2)
    edit_meta(out, **{key: 99})
    with pytest.raises(TournamentError, match=f"different tournament \\({key}: 99"):
        run(out, games=None, resume=True)


def re_escape(text: str) -> str:
    import re
    return re.escape(text)


@pytest.mark.parametrize("kind", ["folder", "device"])
def test_a_tournament_json_that_is_no_file_is_named_so(tmp_path, kind):
    from tests.commands.test_cli_edges import assert_one_error, invoke
    out = tmp_path / "t"
    out.mkdir()
    if kind == "folder":
        (out / "tournament.json").mkdir()
    else:
        (out / "tournament.json").symlink_to("/dev/zero")
    r = invoke(["tournament", "--out", out, "--resume", "--no-progress"])
    assert_one_error(r, "tournament.json is not a regular file")
