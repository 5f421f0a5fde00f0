"""Game records: a played game, written as JSON and read back, replays to the same final state; the
play/replay commands work end to end and reject bad record files with one clear error."""
import json

import pytest

from thurn_ai.bots import make_bot
from thurn_ai.cli import main
from thurn_ai.errors import PositionError
from thurn_ai.play.match import GameRecord, play_game, read_records, replay
from thurn_ai.game.rules import Rules


def play_and_keep_state(rules, seed):
    """Play a game between random bots; returns the record and the game's own final state."""
    bots = [make_bot("random", seed * 10 + i) for i in range(rules.players)]
    seen = []
    rec = play_game(rules, bots, seed, on_move=lambda state, p, m: seen or seen.append(state))
    return rec, seen[0]  # play_game moves this one state object to the end of the game


@pytest.mark.parametrize("rules,seed", [(Rules(players=2), 3), (Rules(players=3, board="north"), 5)],
                         ids=["south-2p", "north-3p-horses"])
def test_record_round_trips_through_json_and_replays(rules, seed):
    rec, final = play_and_keep_state(rules, seed)
    assert final.is_terminal() and len(rec.moves) > 100
    again = GameRecord.from_json(rec.to_json())
    assert again.moves == rec.moves and again.rules.to_dict() == rules.to_dict() and again.seed == seed
    replayed = replay(again)
    assert replayed.export() == final.export()
    assert replayed.scores() == rec.scores and replayed.winner() == rec.winner and replayed.turn == rec.turns


def test_a_changed_move_does_not_replay():
    rec, _ = play_and_keep_state(Rules(players=2), 8)
    rec.moves[5] = "close"  # never legal that early: no route has 3 cards yet
    with pytest.raises(PositionError, match=r"record move 6 \('close'\) does not replay"):
        replay(rec)


def run_cli(args, capsys):
    with pytest.raises(SystemExit) as e:
        main(args)
    out = capsys.readouterr()
    return e.value.code, out.out, out.err


def test_play_records_and_replay_checks_it(tmp_path, capsys):
    record = tmp_path / "games.jsonl"
    code, out, err = run_cli(["play", "--bots", "random,random", "--seed", "7", "--record", str(record),
                              "--quiet"], capsys)
    assert code == 0 and "winner: seat" in out
    [rec] = read_records(str(record))
    assert rec.seed == 7 and rec.bots == ["random", "random"]
    code, out2, err = run_cli(["replay", str(record), "--quiet"], capsys)
    assert code == 0 and err == ""
    # the replay recomputes the result and prints the same final scores as the game did
    assert "final scores:" in out2 and out2.strip() == out.split("record appended")[0].strip()


def test_replay_rejects_bad_files_with_one_clear_error(tmp_path, capsys):
    rec, _ = play_and_keep_state(Rules(players=2), 1)
    good = tmp_path / "one.jsonl"
    good.write_text(rec.to_json() + "\n")
    cases = {
        "truncated.jsonl": (rec.to_json()[:200] + "\n", "line 1: not a game record"),
        "list.jsonl": ("[1, 2]\n", "a record is a JSON object"),
        "fields.jsonl": ('{"seed": 1}\n', "missing field 'rules', 'bots', 'moves'"),
        "empty.jsonl": ("", "holds no game record"),
        "scores.jsonl": (json.dumps({**json.loads(rec.to_json()), "scores": [99, 99]}) + "\n",
                         "the record says [99, 99]"),
    }
    for name, (text, message) in cases.items():
        (tmp_path / name).write_text(text)
        code, out, err = run_cli(["replay", str(tmp_path / name), "--quiet"], capsys)
        assert code == 2, name
        assert message in err and err.count("error:") == 1 and "Traceback" not in err, (name, err)
    code, out, err = run_cli(["replay", str(good), "--game", "2"], capsys)
    assert code == 2 and "--game 2 is out of range" in err and "Traceback" not in err
    code, out, err = run_cli(["replay", str(tmp_path / "nowhere.jsonl")], capsys)
    assert code == 2 and "cannot read record file" in err


def test_replay_numbers_its_moves_and_goes_to_a_move_with_its_position(tmp_path, capsys):
    """`replay` prints each move with its number (from 1, as `thurn-ai review` numbers moves); `--move N` shows
    the position where move N was decided and what was played, `--position-out` writes it as the mover's view
    (what `hint` takes), and the number means the same in the review, the log and the position."""
    rec = play_game(Rules(players=2), [make_bot("greedy", 1), make_bot("random", 2)], seed=8)
    record = tmp_path / "g.jsonl"
    record.write_text(rec.to_json() + "\n")
    code, out, err = run_cli(["replay", str(record)], capsys)
    assert code == 0, err
    numbered = [ln.split() for ln in out.splitlines() if ln.startswith("   ") and ln.split()[0].isdigit()]
    assert [int(x[0]) for x in numbered] == list(range(1, len(rec.moves) + 1))
    n = 40
    assert " ".join(numbered[n - 1][1:]).startswith(rec.moves[n - 1].split(" ")[0])
    position = tmp_path / "p.json"
    code, out, err = run_cli(["replay", str(record), "--move", str(n), "--position-out", str(position)], capsys)
    assert code == 0, err
    assert f"move {n} (turn " in out and f"played '{rec.moves[n - 1]}'" in out
    assert f"next: thurn-ai hint {position}" in out
    from thurn_ai.play.match import position_at
    from thurn_ai.position import load_position
    before = position_at(rec, n - 1)
    got, _viewer = load_position(str(position))
    assert got.to_dict(viewer=before.current_player) == before.to_dict(viewer=before.current_player)
    assert got.is_legal(got.parse_move(rec.moves[n - 1]))
    code, out, err = run_cli(["replay", str(record), "--move", str(n), "--json"], capsys)
    assert code == 0 and json.loads(out)["played"] == rec.moves[n - 1]
    for bad in (["--move", str(len(rec.moves) + 1)], ["--move", "0"], ["--move", "3", "--at", "2"]):
        code, out, err = run_cli(["replay", str(record), *bad], capsys)
        assert code == 2 and err.startswith(("error:", "Usage:")), err
