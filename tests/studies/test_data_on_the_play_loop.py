"""The studies' data generators stand on the one play loop (play.match.Table, an Observer told of each
decision): the learned evaluation's positions (studies/learned/data.py) and the expert teacher data
(studies/expert/teacher.py).

The data they write must not change with that: the fingerprints below were computed with the generators'
own game loops (commit fdb861f, before they played through play_game) at a tiny budget, and the same seeds
must give the same rows (every column, floats to 6 places) and the same moves. Their game records now carry
what any other record does: the closes, the officials used and the score's parts.
"""
from __future__ import annotations

import hashlib

import pytest

from thurn_ai.play.match import GameRecord, Table, replay_table
from thurn_ai.studies.expert import teacher as T
from thurn_ai.studies.learned import data as D

DATA = dict(seed=7, search="mcts(iterations=4)", strong="mcts(iterations=8)")
TEACHER = T.TeacherChunk(2, 0, 5, 3, play="mcts(iterations=20)", strong="mcts(iterations=30)",
                         teacher="mcts(iterations=60)", sample=0.3)
#: (generator, players, game) -> sha256 (16 digits) of the rows as CSV (floats rounded to 6 places) and the
#: moves, from the generators' own loops before the observer; game 3 has a `strong` seat among heuristic
#: bots, game 4 is on the North board with horses
PINNED = {("data", 2, 3): "b94738a85e078ef6", ("data", 3, 4): "271c635e7136c112",
          ("teacher", 2, 3): "46a6301bb4c271d6", ("teacher", 2, 4): "692296f15a27327d"}


#: columns added since the fingerprints were pinned (the learned evaluation's 13th feature): the rest must not move
ADDED = ["f_route_tiles"]


def fingerprint(frame, record: GameRecord) -> str:
    text = frame.drop(columns=ADDED, errors="ignore").round(6).to_csv(index=False) + "\n".join(record.moves)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def play(kind: str, players: int, game: int):
    if kind == "data":
        return D.play_data_game(players, game, **DATA)
    return T.play_teacher_game(TEACHER, game)


@pytest.mark.parametrize("key", sorted(PINNED))
def test_the_data_generators_write_the_same_data_on_the_play_loop(key):
    frame, record = play(*key)
    assert len(frame) and fingerprint(frame, record) == PINNED[key]
    if key[0] == "data":
        assert frame[ADDED].notna().all().all()       # the new feature is written beside the old ones


@pytest.mark.parametrize("kind", ["data", "teacher"])
def test_their_records_carry_what_any_record_carries(kind):
    _, record = play(kind, 2, 3)
    again = replay_table(record)           # what a replay of the moves finds, the record holds already
    assert record.closes and record.closes == again.closes.awards
    assert record.official_uses == again.uses and record.details and len(record.details) == 2
    assert record.scores == again.state.scores() and record.turns == again.state.turn
    assert sum(n for uses in record.official_uses for by_stage in uses.values() for n in by_stage.values()) > 0


def test_the_teacher_rows_of_a_decision_are_its_targets_with_their_context():
    frame, record = play("teacher", 2, 3)
    assert list(frame.columns) == T.COLUMNS
    table = Table.new(record.rules, record.seed, record.bots)
    at = {m.index: m for m in table.replay(record.moves)}
    for (_decision, index), rows in frame.groupby(["decision", "move_index"]):
        # the decision's mover is the record's at that move, and the move the game's bot played there is
        # the one row marked played (when the teacher rated it)
        assert (rows["mover"] == at[index].player).all() and (rows["n_legal"] > 1).all()
        assert len(rows) <= rows["n_legal"].iloc[0] and rows["played"].sum() <= 1
        assert set(rows.loc[rows["played"], "notation"]) <= {record.moves[index]}
        assert rows["teacher_best"].sum() == 1


def test_the_teacher_must_be_a_search():
    with pytest.raises(T.TeacherError, match="does not search"):
        T.plan_chunks(players=[2], games=1, teacher="heuristic")


def test_the_calibration_games_are_played_on_the_play_loop_and_give_the_committed_rows():
    """studies/calibration/data.py plays its games at the one play loop (Table, an Observer keeping the
    search's shares); game 0 of the committed 2-player games against `heuristic` comes out row for row."""
    import json
    from pathlib import Path

    import pandas as pd

    from thurn_ai.studies.calibration import data as C
    folder = Path(__file__).resolve().parents[2] / "results" / "calibration" / "data" / "vs-heuristic"
    meta = json.loads((folder / "data.json").read_text(encoding="utf-8"))
    rows, record = C.play_game(2, 0, "vs heuristic", meta["seed"], meta["search"])
    committed = pd.read_parquet(folder / "p2-00000.parquet")
    pd.testing.assert_frame_equal(rows, committed[committed.game == 0].reset_index(drop=True), check_dtype=False)
    assert record.closes and record.official_uses and record.winner is not None     # a record like any other
