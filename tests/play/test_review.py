"""Reviewing a whole game (thurn_ai.play.review, `thurn-ai review`): a planted blunder is flagged, a search's
own games are labelled rarely and random play often, the review never peeks at hidden cards, outputs (text,
JSON, PNG), the cache, the sources of records (a record file, a tournament folder, the North board) and bad
input. Budgets are tiny (a few hundred iterations a search) and most reviews cover a few moves only."""
from __future__ import annotations

import json

import pytest

from thurn_ai.bots import make_bot
from thurn_ai.bots.spec import BotSpec
from thurn_ai.cli import main
from thurn_ai.game.rules import Rules
from thurn_ai.play import review as R
from thurn_ai.play.analysis import bot_spec
from thurn_ai.play.match import Table, play_game
from thurn_ai.play.review import Review, decisions_of, review, review_decision, seat_view
from thurn_ai.position import position_from_dict

BUDGET = 300


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


def test_a_planted_blunder_is_flagged_as_a_blunder_at_its_decision():
    rec, at = planted_blunder()
    r = review(rec, seats=[0], budget=1000, moves=range(at - 3, at + 1))
    d = next(d for d in r.decisions if d.index == at)
    assert d.played.startswith("new ") and d.best != d.played
    assert d.label == "blunder", d
    assert d.loss_win >= R.THRESHOLDS["blunder"] and d.rated_by in ("search", "re-search")
    assert r.summary(0).turning_points[0] == at


def test_a_played_best_move_loses_nothing_and_is_not_labelled(short_game):
    r = review(short_game, seats=[0], budget=BUDGET, moves=range(0, 30))
    same = [d for d in r.decisions if d.played == d.best]
    assert same and all(d.loss_win == 0 and d.label is None for d in same)
    assert all(d.seat == 0 and d.options > 1 for d in r.decisions)


def test_the_searchs_own_game_has_few_labels_and_random_loses_far_more():
    """Self-play of the default search is rarely labelled. Random against heuristic: most of random's moves
    are not the search's and lose win chance, many times what the search's own moves lose a decision, and
    its moves are labelled at least as often. (Labels need 5 points of win chance lost at one decision; in
    this game a random move rarely loses that much at once: random loses by many small losses, see
    docs/review.md.)"""
    own = play_game(Rules(players=2), [make_bot("mcts(iterations=300)", i) for i in range(2)], seed=5)   # mcts defaults
    mine = review(own, seats=[0], budget=BUDGET)
    assert len(mine.labelled) <= 0.1 * len(mine.decisions)
    rnd = play_game(Rules(players=2), [make_bot("random", 1), make_bot("heuristic", 2)], seed=5)
    theirs = review(rnd, seats=[0], budget=BUDGET, moves=range(0, 60))       # while the game is still open
    lost = [d for d in theirs.decisions if d.played != d.best and (d.loss_win or 0) > 0]
    assert len(lost) > 0.5 * len(theirs.decisions)
    assert theirs.summary(0).mean_loss_win > 3 * mine.summary(0).mean_loss_win
    assert len(theirs.labelled) / len(theirs.decisions) >= len(mine.labelled) / len(mine.decisions)


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
    assert d["decisions"] and {"played", "best", "loss_win", "loss_points", "label", "uncertainty",
                               "rated_by", "played_win", "best_points"} <= set(d["decisions"][0])
    assert d["summaries"][0]["seat"] == 1 and set(d["summaries"][0]["counts"]) == set(R.LABELS)
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    code, out, err = run_cli(args, capsys)   # cached now
    assert code == 0, err
    assert out.startswith(f"review of {record_file} game 1: 2 players")
    assert "seat 1 (random):" in out and "uncertainty: re-search" in out


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
