"""Reviewing a whole game (thurn_ai.play.review, `thurn-ai review`): a planted throw-away is flagged, a mid-turn
draw that the rest of the turn makes good is not (the board record's move 214), a search's own games lose
little and random play much, the review never peeks at hidden cards, the summary (accuracy, total loss, worst
turns, grammar), outputs (text, JSON, PNG), the cache, the sources of records (a record file, a tournament
folder, the North board) and bad input. Budgets are small and most reviews cover a few moves only."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from thurn_ai.bots import make_bot
from thurn_ai.bots.spec import BotSpec
from thurn_ai.cli import main
from thurn_ai.game.rules import Rules
from thurn_ai.play import review as R
from thurn_ai.play.analysis import analyse, bot_spec
from thurn_ai.play.match import Table, play_game
from thurn_ai.play.match import GameRecord, position_at
from thurn_ai.play.review import DecisionReview, Review, decisions_of, review, review_decision, seat_view
from thurn_ai.play.review_rating import accuracy_of, label_of
from thurn_ai.play.review_text import count_text, summary_line
from thurn_ai.position import position_from_dict

BUDGET = 300
BOARD_RECORD = Path(__file__).resolve().parents[1] / "data" / "review" / "board-game-5.jsonl"


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    """No test writes into the user's cache."""
    monkeypatch.setenv("THURN_AI_CACHE", str(tmp_path / "cache"))


def planted_blunder(players=2, seed=13, min_route=5, min_turn=30):
    """A game of heuristic bots in which seat 0, late in the game, throws its route of at least `min_route`
    cities away (`new <city>`) where it could extend it and close it: (record, the move's number)."""
    bots = [make_bot("heuristic", seed=i) for i in range(players)]
    table = Table.new(Rules(players=players), seed, [b.spec for b in bots])
    at = None
    while not table.over:
        s = table.state
        if at is None and s.current_player == 0 and s.phase == "play" and len(s.route(0)) >= min_route \
                and s.turn >= min_turn:
            names = {m: s.move_str(m) for m in s.legal_moves()}
            new = [m for m, t in names.items() if t.startswith("new ")]
            if new and any(t.startswith(("left ", "right ")) for t in names.values()):
                at = len(table.moves)
                table.apply(new[0])
                continue
        table.apply(bots[s.current_player].choose(table.observation()))
    assert at is not None
    return table.record(), at


@pytest.fixture(scope="module")
def short_game():
    """A 2-player game of the greedy bot against random."""
    return play_game(Rules(players=2), [make_bot("greedy", 1), make_bot("random", 2)], seed=8)


def test_a_planted_throw_away_is_a_mistake_or_worse_with_the_better_line():
    rec, at = planted_blunder()
    r = review(rec, seats=[0], budget=1000, moves=range(at - 3, at + 1))
    d = next(d for d in r.decisions if d.index == at)
    assert d.played.startswith("new ") and d.best != d.played and d.best.startswith(("left ", "right "))
    assert d.label in ("mistake", "blunder"), d
    assert d.loss_points >= R.THRESHOLDS["mistake"] and d.rated_by == "both searched"
    assert d.best_points - d.played_points == pytest.approx(d.loss_points)
    # the margin over the table (its points less the others' mean) loses at least a mistake's worth too
    assert d.loss_margin >= R.THRESHOLDS["mistake"]
    # the better line is the rest of the recommended turn: the extension, then the close
    assert d.best_line[0] == d.best and "close" in d.best_line
    s = r.summary(0)
    assert s.turning_points[0] == at and s.worst_turns[0].move == at and s.worst_turns[0].turn == d.turn
    assert s.total_loss_points >= d.loss_points and s.accuracy < 100


def test_a_draw_the_rest_of_the_turn_makes_good_is_not_labelled():
    """The board record's move 214: seat 2's second Postmaster draw, after which the record plays the search's
    best move, the close and the same houses. Judged by the best continuation of the turn after it, it loses
    little; judged by the first search's value of a barely visited draw, it was once called a blunder."""
    rec = GameRecord.from_json(BOARD_RECORD.read_text(encoding="utf-8").splitlines()[0])
    state = position_at(rec, 213)
    assert rec.moves[213] == "draw deck" and rec.moves[214] == "right Kempten" and state.current_player == 2
    spec = bot_spec(BotSpec.parse("mcts"), R.DEFAULT_BUDGET, None, 3)
    d = review_decision(state, 2, state.parse_move("draw deck"), 213, spec, 0, R.DEFAULT_BUDGET)
    assert d.best == "right Kempten" and d.played_official == "postmaster"
    assert d.label is None and d.loss_points < R.THRESHOLDS["inaccuracy"], d
    # the first search alone (the old way: its value of each root move) rates the draw far below
    a = analyse(seat_view(state, 2, 0), bot=spec, iterations=R.DEFAULT_BUDGET, seed=0)
    draw = next(o for o in a.options if o.notation == "draw deck")
    assert a.best.win_prob - draw.win_prob > 0.2 and draw.visits < 0.05 * a.iterations


def test_a_played_best_move_loses_nothing_and_is_not_labelled(short_game):
    r = review(short_game, seats=[0], budget=BUDGET, moves=range(0, 30))
    same = [d for d in r.decisions if d.played == d.best]
    assert same and all(d.loss_points == 0 and d.loss_win == 0 and d.loss_margin == 0 and d.label is None
                        and d.accuracy == 100 for d in same)
    assert all(d.loss_margin >= 0 for d in r.decisions) and any(d.loss_margin > 0 for d in r.decisions)
    assert all(d.seat == 0 and d.options > 1 for d in r.decisions)


def test_random_loses_far_more_points_than_the_searchs_own_moves():
    """Self-play of the default search loses little and is rarely labelled. Random against heuristic: most of
    random's moves are not the search's and lose expected points, many times what the search's own moves lose;
    its accuracy is lower and its moves are labelled more often."""
    own = play_game(Rules(players=2), [make_bot("mcts(iterations=300)", i) for i in range(2)], seed=5)
    mine = review(own, seats=[0], budget=BUDGET, moves=range(0, 80))
    assert len([d for d in mine.labelled if d.label != "inaccuracy"]) <= 0.05 * len(mine.decisions)
    rnd = play_game(Rules(players=2), [make_bot("random", 1), make_bot("heuristic", 2)], seed=5)
    theirs = review(rnd, seats=[0], budget=BUDGET, moves=range(0, 80))
    lost = [d for d in theirs.decisions if d.played != d.best and d.loss_points > 0]
    assert len(lost) > 0.4 * len(theirs.decisions)
    assert theirs.summary(0).mean_loss_points > 3 * mine.summary(0).mean_loss_points
    assert theirs.summary(0).accuracy < mine.summary(0).accuracy - 5
    assert len(theirs.labelled) / len(theirs.decisions) > len(mine.labelled) / len(mine.decisions)


def _decision(index, turn, loss, label=None):
    return DecisionReview(index=index, turn=turn, seat=0, phase="play", played="new Ulm", best="left Ulm",
                          played_official=None, best_official=None, best_line=("left Ulm",), best_line_then="x",
                          good_moves=("left Ulm",), played_win=0.4, best_win=0.5, played_points=10 - loss,
                          best_points=10, loss_points=loss, loss_win=0.1, loss_utility=0.1, uncertainty=0.0,
                          label=label, rated_by="both searched", options=3)


def test_the_summary_sums_turns_and_counts_with_the_right_grammar():
    decisions = [_decision(1, 0, 0.5), _decision(2, 0, 0.7), _decision(5, 1, 1.5, "inaccuracy"),
                 _decision(9, 2, 0.0), _decision(12, 3, 0.2)]      # labels as given: the summary counts them
    s = R._summary(0, "me", decisions)
    worst = [(w.turn, round(w.loss_points, 1), w.move) for w in s.worst_turns]
    assert worst == [(1, 1.5, 5), (0, 1.2, 2), (3, 0.2, 12)]
    assert s.total_loss_points == pytest.approx(2.9)
    assert s.accuracy == pytest.approx(sum(accuracy_of(d.loss_points) for d in decisions) / 5)
    assert s.counts == {"inaccuracy": 1, "mistake": 0, "blunder": 0}
    line = summary_line(s)
    assert "1 inaccuracy, 0 mistakes, 0 blunders" in line and "lost 2.9 points in 5 decisions" in line
    assert count_text(1, "mistake") == "1 mistake" and count_text(2, "inaccuracy") == "2 inaccuracies"
    assert accuracy_of(0) == 100 and 36 < accuracy_of(1.0) < 37 and accuracy_of(-1) == 100
    assert [label_of(x) for x in (0.4, 0.5, 2.5, 3.0)] == [None, "inaccuracy", "mistake", "blunder"]


def test_the_review_never_peeks_at_hidden_cards():
    """Each decision's review is the same when everything the seat could not see is re-dealt (its view the
    same): the opponent's hand and the deck differ, the review does not."""
    rec, _ = planted_blunder()
    spec = bot_spec(BotSpec.parse("mcts"), BUDGET, None, 2)
    checked = 0
    for d in decisions_of(rec, seats=[0])[:60:6]:
        other = position_from_dict(d.state.to_dict(viewer=0), seed=99)
        assert other.to_dict(viewer=0) == d.state.to_dict(viewer=0)
        if other.to_dict() == d.state.to_dict():
            continue
        checked += 1
        assert review_decision(other, 0, d.move, d.index, spec, 7, BUDGET) == \
            review_decision(d.state, 0, d.move, d.index, spec, 7, BUDGET)
    assert checked >= 5
    # and the seat's view is what is searched: another seat's view of the same state differs
    d = decisions_of(rec, seats=[0])[10]
    assert seat_view(d.state, 0, 1).to_dict(viewer=0) != seat_view(d.state, 1, 1).to_dict(viewer=0)


def test_the_same_arguments_give_the_same_review_in_parallel_and_from_the_cache(short_game, tmp_path, monkeypatch):
    moves = range(0, 24)
    one = review(short_game, budget=BUDGET, moves=moves)
    two = review(short_game, budget=BUDGET, moves=moves, jobs=2, cache_dir=tmp_path)
    assert one == two
    files = list(tmp_path.glob("review-*.json"))
    assert len(files) == 1
    monkeypatch.setattr(R, "run_each", lambda *a, **k: pytest.fail("searched again despite the cache"))
    seen = []
    again = review(short_game, budget=BUDGET, moves=moves, cache_dir=tmp_path, progress=lambda d, t: seen.append(d))
    assert again == one
    assert seen == [len(one.decisions)]
    assert Review.from_dict(json.loads(files[0].read_text())["review"]) == one
    # another budget is another review
    more = bot_spec(BotSpec.parse("mcts"), BUDGET + 1, None, 2)
    assert R.cache_path(short_game, one.seats, BUDGET + 1, more, 0, tmp_path,
                        frozenset(moves)) != files[0]


def test_a_broken_cache_file_is_made_again(short_game, tmp_path):
    moves = range(0, 10)
    first = review(short_game, budget=BUDGET, moves=moves, cache_dir=tmp_path)
    f = next(tmp_path.glob("review-*.json"))
    f.write_text('{"players": 2')
    assert review(short_game, budget=BUDGET, moves=moves, cache_dir=tmp_path) == first
    assert Review.from_dict(json.loads(f.read_text())["review"]) == first


def test_a_cancelled_review_stops(short_game):
    with pytest.raises(R.ReviewCancelled):
        review(short_game, budget=BUDGET, moves=range(0, 20), cancelled=lambda: True)


def test_seats_that_are_not_the_games_are_refused(short_game):
    with pytest.raises(Exception, match="seats must be seats"):
        review(short_game, seats=[2])


def test_a_north_board_record_is_reviewed():
    rec = play_game(Rules(players=3, board="north"), [make_bot("heuristic", i) for i in range(3)], seed=3)
    r = review(rec, seats=[1], budget=BUDGET, moves=range(0, 40))
    assert r.decisions and all(d.seat == 1 for d in r.decisions)
    assert r.players == 3 and r.summaries[0].decisions == len(r.decisions)


# ---------------------------------------------------------------- the command line

def run_cli(args, capsys):
    with pytest.raises(SystemExit) as e:
        main([str(a) for a in args])
    out = capsys.readouterr()
    return e.value.code, out.out, out.err


@pytest.fixture
def record_file(tmp_path, short_game):
    path = tmp_path / "game.jsonl"
    path.write_text(short_game.to_json() + "\n")
    return path


def test_review_prints_text_json_and_a_png(record_file, tmp_path, capsys):
    png = tmp_path / "review.png"
    args = ["review", record_file, "--seats", "1", "--moves", "1-30", "--budget", BUDGET]
    code, out, err = run_cli(args + ["--json", "--png", png], capsys)
    assert code == 0, err
    d = json.loads(out)
    assert d["seats"] == [1] and d["budget"] == BUDGET and d["png"] == str(png)
    assert d["decisions"] and {"played", "best", "loss_win", "loss_points", "label", "uncertainty", "best_line",
                               "played_official", "rated_by", "played_win", "best_points", "accuracy"} <= \
        set(d["decisions"][0])
    assert d["unit"] == "points" and d["thresholds"] == R.THRESHOLDS
    summary = d["summaries"][0]
    assert summary["seat"] == 1 and set(summary["counts"]) == set(R.LABELS)
    assert {"accuracy", "total_loss_points", "worst_turns"} <= set(summary)
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    code, out, err = run_cli(args, capsys)   # cached now
    assert code == 0, err
    assert out.startswith(f"review of {record_file} game 1: 2 players")
    assert "seat 1 (random): accuracy " in out and "unit: expected final points" in out


def test_review_reads_a_tournament_folder_by_game_number(tmp_path, capsys):
    from thurn_ai.play.tournament import run_tournament
    out_dir = tmp_path / "t"
    run_tournament(["random", "greedy"], games=2, seed=1, jobs=1, out_dir=out_dir, progress=False)
    code, out, err = run_cli(["review", out_dir, "--game", 2, "--seats", "0", "--moves", "1-30", "--budget", 100,
                              "--json"], capsys)
    assert code == 0, err
    assert json.loads(out)["record"] == f"{out_dir} game 2"
    code, _, err = run_cli(["review", out_dir, "--game", 3], capsys)
    assert code == 2 and err.startswith("error:") and "no game 3" in err


@pytest.mark.parametrize("content, words", [
    (None, "cannot read"),
    ('{"seed": 1, "rules": {"players": 2}, "bots": ["random", "random"], "moves": ["draw deck", "dr', "line 1"),
    ('{"players": [{"hand": []}], "display": []}\n', "line 1"),
    ("not json at all\n", "line 1"),
    ('{"seed": 1, "rules": {"players": 2}, "bots": ["random", "random"], "moves": ["close"]}\n', "does not replay"),
])
def test_bad_input_is_one_error_line(tmp_path, capsys, content, words):
    path = tmp_path / "bad.jsonl"
    if content is not None:
        path.write_text(content)
    code, out, err = run_cli(["review", path, "--budget", 100], capsys)
    assert code == 2 and out == ""
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("error:") and words in lines[0], err


def test_bad_seats_are_one_error_line(record_file, capsys):
    for option in (["--bot", "heuristic"], ["--bot", "mcts(nonsense=1)"], ["--seats", "x"], ["--seats", "5"],
                   ["--seats", ""], ["--moves", "9-3"], ["--moves", "a"],
                   ["--moves", "0"]):
        code, _, err = run_cli(["review", record_file, *option], capsys)
        assert code == 2 and err.startswith("error:") and len(err.strip().splitlines()) == 1, err
