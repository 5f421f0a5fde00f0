"""Tournaments: seat balancing, reproducible games, appending and resume, backends, CLI errors.

Games use the random bot on the South board (two players: a few hundredths of a second each)."""
import json
import shutil
from collections import Counter
from pathlib import Path

import pandas as pd
import pytest

from thurn_ai import cli
from thurn_ai.play import tournament as tm
from thurn_ai.bots import make_bot
from thurn_ai.errors import BotSpecError, RulesError, ThurnError
from thurn_ai.play.match import derive_seed, play_game, read_records, replay
from thurn_ai.game.rules import Rules
from thurn_ai.play.tournament import TournamentError, load_results, run_tournament, seatings

BOTS = ["random", "random(forbid=postmaster)"]


def run(out_dir=None, games=4, **kw):
    kw.setdefault("jobs", 1)
    return run_tournament(kw.pop("specs", BOTS), games=games, seed=kw.pop("seed", 5), out_dir=out_dir,
                          progress=False, **kw)


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """An uninterrupted 4-game tournament saved in a folder (shared by the tests that compare to it)."""
    out = tmp_path_factory.mktemp("ref") / "t"
    return out, run(out)


# ---------------------------------------------------------------- seats

@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("n_bots", [1, 2, 3, 4, 5, 6])
def test_every_bot_plays_every_seat_equally_often(n_bots, players):
    cycle = seatings(n_bots, players)
    assert len(set(cycle)) == len(cycle)                      # no seating twice
    per_seat = Counter((bot, seat) for s in cycle for seat, bot in enumerate(s))
    assert len(set(per_seat.values())) == 1
    assert set(per_seat) == {(b, s) for b in range(n_bots) for s in range(players)}
    for s in cycle:                                            # each game as even a mix as possible
        counts = Counter(s)
        if n_bots <= players:
            assert len(counts) == n_bots and max(counts.values()) - min(counts.values()) <= 1
        else:
            assert len(counts) == players


def test_two_bots_alternate_who_starts():
    assert seatings(2, 2) == [(0, 1), (1, 0)]


def test_a_cycle_is_made_of_seat_balanced_rotation_groups():
    # 2 bots, 4 players: AABB and its rotations first, so 4 games are already balanced
    first4 = seatings(2, 4)[:4]
    assert Counter((b, seat) for s in first4 for seat, b in enumerate(s)) == \
        {(b, seat): 2 for b in (0, 1) for seat in range(4)}


def test_tournament_rows_follow_the_balanced_seating():
    df = run(specs=["random", "random(forbid=cartwright)"], players=3, games=6)
    assert len(df) == 18 and list(df["game"].unique()) == list(range(1, 7))
    counts = df.groupby(["bot", "seat"]).size()
    assert set(counts) == {3} and len(counts) == 6
    assert set(df.groupby("game")["seat"].apply(tuple)) == {(0, 1, 2)}


# ---------------------------------------------------------------- the results

def test_results_are_consistent_and_replayable(reference):
    out, df = reference
    per_game = df.groupby("game")
    assert (per_game["win"].sum() == 1).all()
    assert per_game["win_share"].sum().round(9).eq(1).all()
    assert (per_game["rank"].apply(sorted) == pd.Series([[1, 2]] * 4, index=range(1, 5))).all()
    tile_cols = [c for c in df.columns if c.startswith("tile_")]
    assert (df[tile_cols].sum(axis=1) == df["tiles"]).all()
    assert (df["carriage"] + df["tiles"] - df["houses_unplaced"] == df["score"]).all()
    for o in ("postmaster", "administrator", "postal_carrier", "cartwright"):
        phases = df[[f"uses_{o}_{p}" for p in ("early", "middle", "late")]].sum(axis=1)
        assert (phases == df[f"uses_{o}"]).all()
    assert (df.loc[df["bot"] == BOTS[1], "uses_postmaster"] == 0).all()    # forbid= is honoured
    # line N of records.jsonl is game N and replays to the saved scores
    records = read_records(out / "records.jsonl")
    for n, rec in enumerate(records, start=1):
        rows = df[df["game"] == n].sort_values("seat")
        assert rec.seed == rows["game_seed"].iloc[0] and rec.bots == list(rows["spec"])
        assert replay(rec).scores() == list(rows["score"])


def test_a_game_can_be_played_again_from_its_seed_and_seating(reference):
    _, df = reference
    rows = df[df["game"] == 3].sort_values("seat")
    seed = int(rows["game_seed"].iloc[0])
    bots = [make_bot(s, derive_seed("bot", seed, i)) for i, s in enumerate(rows["spec"])]   # as `play` does
    rec = play_game(Rules(players=2), bots, seed)
    assert rec.scores == list(rows["score"]) and rec.turns == rows["turns"].iloc[0]


def test_saved_results_equal_the_returned_frame(reference):
    out, df = reference
    pd.testing.assert_frame_equal(pd.read_parquet(out / "results.parquet"), df)
    pd.testing.assert_frame_equal(load_results(out), df)
    pd.testing.assert_frame_equal(load_results(out / "results.csv"), df)
    pd.testing.assert_frame_equal(run(None), df)              # no folder: the same frame from memory
    meta = json.loads((out / "tournament.json").read_text())
    assert meta["specs"] == BOTS and meta["games"] == 4 and meta["seed"] == 5


def test_the_seed_decides_the_games(reference):
    _, df = reference
    other = run(None, seed=6)
    assert not set(other["game_seed"]) & set(df["game_seed"])


# ---------------------------------------------------------------- resume

class Interrupt:
    """Stands in for play_task and raises KeyboardInterrupt (Ctrl-C) when game `at` would start."""

    def __init__(self, at):
        self.at, self.calls = at, 0

    def __call__(self, task):
        self.calls += 1
        if self.calls == self.at:
            raise KeyboardInterrupt
        return REAL_PLAY_TASK(task)


REAL_PLAY_TASK = tm.play_task


def same_folders(a: Path, b: Path):
    for name in ("results.csv", "records.jsonl"):
        assert (a / name).read_bytes() == (b / name).read_bytes(), name
    pd.testing.assert_frame_equal(pd.read_parquet(a / "results.parquet"), pd.read_parquet(b / "results.parquet"))


def test_resume_after_an_interruption_equals_an_uninterrupted_run(reference, tmp_path, monkeypatch):
    ref_dir, ref = reference
    out = tmp_path / "t"
    monkeypatch.setattr(tm.plan, "play_task", Interrupt(at=3))
    with pytest.raises(KeyboardInterrupt):
        run(out)
    monkeypatch.setattr(tm.plan, "play_task", REAL_PLAY_TASK)
    assert load_results(out)["game"].nunique() == 2           # the finished games were kept
    assert not (out / "results.parquet").exists()
    with pytest.raises(TournamentError, match="--resume"):
        run(out)                                              # not without --resume
    played = []
    monkeypatch.setattr(tm.plan, "play_task", lambda t: played.append(t.game) or REAL_PLAY_TASK(t))
    df = run(out, games=None, resume=True)                    # games: the saved number
    assert sorted(played) == [3, 4]
    pd.testing.assert_frame_equal(df, ref)
    same_folders(out, ref_dir)


def test_resume_drops_a_partly_written_game(reference, tmp_path):
    ref_dir, ref = reference
    out = tmp_path / "t"
    shutil.copytree(ref_dir, out)
    (out / "results.parquet").unlink()
    # killed while writing: game 4's record half written, game 3 has one row and part of the next
    csv_lines = (out / "results.csv").read_text().splitlines(keepends=True)
    (out / "results.csv").write_text("".join(csv_lines[:1 + 2 * 2 + 1]) + csv_lines[6][:20])
    rec_lines = (out / "records.jsonl").read_text().splitlines(keepends=True)
    (out / "records.jsonl").write_text("".join(rec_lines[:3]) + rec_lines[3][:50])
    assert load_results(out)["game"].max() == 2               # report reads only whole games
    df = run(out, resume=True)
    pd.testing.assert_frame_equal(df, ref)
    same_folders(out, ref_dir)


def test_resume_can_extend_a_tournament(tmp_path):
    out = tmp_path / "t"
    run(out, games=2)
    longer = run(out, games=4, resume=True)
    pd.testing.assert_frame_equal(longer, run(None, games=4))
    with pytest.raises(TournamentError, match="more than"):
        run(out, games=3, resume=True)


def test_resume_refuses_a_different_tournament(reference, tmp_path):
    out = tmp_path / "t"
    shutil.copytree(reference[0], out)
    with pytest.raises(TournamentError, match="different tournament"):
        run(out, specs=["random", "random"], resume=True)
    with pytest.raises(TournamentError, match="different tournament"):
        run(out, seed=9, resume=True)


# ---------------------------------------------------------------- backends

def test_one_and_two_processes_give_identical_results(reference):
    _, df = reference
    pd.testing.assert_frame_equal(run(None, jobs=2), df)


def test_a_dask_cluster_gives_identical_results(reference, tmp_path):
    distributed = pytest.importorskip("distributed")
    _, df = reference
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster:
        got = run(tmp_path / "t", scheduler=cluster.scheduler_address)
    pd.testing.assert_frame_equal(got, df)


# ---------------------------------------------------------------- bad input

@pytest.mark.parametrize("kwargs, error, text", [
    ({"specs": ["random", "nosuchbot"]}, BotSpecError, "unknown bot 'nosuchbot'"),
    ({"specs": ["random(depth=2)"]}, BotSpecError, "random"),
    ({"specs": []}, TournamentError, "non-empty"),
    ({"players": 5}, TournamentError, "2, 3 or 4 players"),
    ({"games": 0}, TournamentError, "whole number from 1"),
    ({"jobs": 0}, TournamentError, "jobs"),
    ({"rules_kwargs": {"variant": "nosuch"}}, RulesError, "variant"),
    ({"rules_kwargs": {"colour": "red"}}, TournamentError, "rules option"),
])
def test_bad_settings_raise_one_clear_error(kwargs, error, text, tmp_path):
    with pytest.raises(error, match=text):
        run(tmp_path / "t", **kwargs)
    assert not (tmp_path / "t").exists()                      # nothing written


def cli_error(argv, capsys) -> str:
    with pytest.raises(SystemExit) as e:
        cli.main(argv)
    err = capsys.readouterr().err
    assert e.value.code == 2 and "Traceback" not in err
    last = err.strip().splitlines()[-1]
    assert last.startswith("error: ")
    return last


def test_cli_errors(tmp_path, capsys):
    out = str(tmp_path / "t")
    base = ["tournament", "--no-progress", "--games", "2", "--jobs", "1", "--out", out]
    assert "unknown bot 'alphago'" in cli_error(base + ["--bots", "random,alphago"], capsys)
    assert "bad list of bots" in cli_error(base + ["--bots", "random,mcts(iterations=2"], capsys)
    assert "2, 3 or 4 players" in cli_error(base + ["--bots", "random", "--players", "7"], capsys)
    assert "--resume needs --out" in cli_error(["tournament", "--bots", "random", "--resume"], capsys)
    assert "does not exist" in cli_error(["report", str(tmp_path / "missing")], capsys)
    (tmp_path / "empty").mkdir()
    assert "no tournament results" in cli_error(["report", str(tmp_path / "empty")], capsys)
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "results.parquet").write_bytes(b"not parquet at all")
    assert "cannot read tournament results" in cli_error(["report", str(bad)], capsys)
    (bad / "results.parquet").unlink()
    (bad / "results.csv").write_text("a,b\n1,2\n")
    assert "not a tournament result file" in cli_error(["report", str(bad)], capsys)


def test_cli_tournament_and_report(tmp_path, capsys):
    out = tmp_path / "t"
    with pytest.raises(SystemExit) as e:
        cli.main(["tournament", "--bots", ",".join(BOTS), "--games", "2", "--seed", "5", "--jobs", "1",
                  "--out", str(out), "--json"])
    assert e.value.code == 0
    captured = capsys.readouterr()
    assert "2/2" in captured.err                              # the progress bar
    data = json.loads(captured.out)
    assert {r["bot"] for r in data["summary"]["bots"]} == set(BOTS)
    assert data["summary"]["overview"][0]["games"] == 2
    with pytest.raises(SystemExit) as e:
        cli.main(["report", str(out)])
    assert e.value.code == 0
    text = capsys.readouterr().out
    assert "win %" in text and BOTS[1] in text
    for name in ("win_rates", "scores", "seats", "officials"):
        assert (out / "plots" / f"{name}.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert cli_error(["tournament", "--bots", ",".join(BOTS), "--games", "2", "--out", str(out)],
                     capsys).endswith("or choose another --out folder")
    assert isinstance(TournamentError("x"), ThurnError)


def test_a_second_run_on_the_same_folder_is_refused(tmp_path):
    out = tmp_path / "t"
    plan = tm.plan_tournament(BOTS, games=2, seed=5)
    columns = tm.result_columns(plan.rules)
    first = tm.ResultStore(out, plan.meta(columns), columns)
    first.open(resume=False)                                  # a run in progress holds the folder
    try:
        with pytest.raises(TournamentError, match="another run"):
            run(out, games=2, resume=True)
    finally:
        first.close()
    assert run(out, games=2, resume=True)["game"].nunique() == 2
