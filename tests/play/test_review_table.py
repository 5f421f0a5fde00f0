"""A review at the table that played (thurn_ai.play.review_table, `thurn-ai review --table`): a decision played on
by the recorded bots both ways, from deals of what the mover could not see -- a thrown-away route loses, the move
played against itself loses nothing, nothing hidden is read, the same seed gives the same loss; review() re-rates
exactly the decisions whose loss by the search may earn a label, keeps the search's loss beside it, caches the
result apart; a game with a person or a search at the table is refused before any work. Few deals: these test
the machinery; results/review/ measures it."""
from __future__ import annotations

import json

import pytest

from thurn_ai.bots import make_bot
from thurn_ai.errors import ThurnError
from thurn_ai.game.rules import Rules
from thurn_ai.play import review as R
from thurn_ai.play.match import derive_seed, play_game, position_at
from thurn_ai.play.review import review
from thurn_ai.play.review_rating import accuracy_of, label_of
from thurn_ai.play.review_table import TABLE_DEALS, needs_table, pooled, table_bots, table_loss, table_rating
from thurn_ai.position import position_from_dict
from tests.play.test_review import BUDGET, planted_blunder, run_cli

DEALS = 4


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("THURN_AI_CACHE", str(tmp_path / "cache"))


@pytest.fixture(scope="module")
def bot_game():
    """A 2-player game of greedy against random (both play on fast)."""
    return play_game(Rules(players=2), [make_bot("greedy", 1), make_bot("random", 2)], seed=8)


def test_only_a_table_of_bots_that_do_not_search_can_play_on():
    assert table_bots(["heuristic", "greedy", "random"]) == ("heuristic", "greedy", "random")
    for bots, words in ((["heuristic", "human"], "seat 1 was played by 'human'"),
                        (["mcts", "greedy"], "seat 0 was played by 'mcts'"),
                        (["greedy", "Anna"], "seat 1 was played by 'Anna'")):
        with pytest.raises(ThurnError, match=words):
            table_bots(bots)


def test_a_thrown_away_route_loses_at_the_table_and_a_move_against_itself_loses_nothing():
    rec, at = planted_blunder()              # heuristic bots; seat 0 plays `new ...` where it could extend
    state = position_at(rec, at)
    extend = next(state.move_str(m) for m in state.legal_moves() if state.move_str(m).startswith(("left", "right")))
    t = table_loss(state, 0, rec.moves[at], extend, rec.bots, deals=8, seed=3)
    assert t.loss == t.best_points - t.played_points and t.loss > 2 and t.se > 0 and t.deals == 8
    same = table_loss(state, 0, rec.moves[at], rec.moves[at], rec.bots, deals=DEALS, seed=3)
    assert same.loss == 0 and same.se == 0 and same.played_points == same.best_points
    with pytest.raises(ThurnError, match="at least 2 deals"):
        table_loss(state, 0, rec.moves[at], extend, rec.bots, deals=1)


def test_the_table_reads_nothing_the_mover_could_not_see_and_a_seed_gives_one_loss():
    rec, at = planted_blunder()
    state = position_at(rec, at)
    other = position_from_dict(state.to_dict(viewer=0), seed=99)      # the hidden cards dealt otherwise
    assert other.to_dict(viewer=0) == state.to_dict(viewer=0) and other.to_dict() != state.to_dict()
    extend = next(state.move_str(m) for m in state.legal_moves() if state.move_str(m).startswith(("left", "right")))
    a = table_loss(state, 0, rec.moves[at], extend, rec.bots, deals=DEALS, seed=5)
    assert table_loss(other, 0, rec.moves[at], extend, rec.bots, deals=DEALS, seed=5) == a
    assert table_loss(state, 0, rec.moves[at], extend, rec.bots, deals=DEALS, seed=6) != a


def test_more_deals_later_pool_into_the_loss_of_all_of_them_at_once():
    rec, at = planted_blunder()
    state = position_at(rec, at)
    extend = next(state.move_str(m) for m in state.legal_moves() if state.move_str(m).startswith(("left", "right")))
    whole = table_loss(state, 0, rec.moves[at], extend, rec.bots, deals=7, seed=4)
    head = table_loss(state, 0, rec.moves[at], extend, rec.bots, deals=3, seed=4)
    tail = table_loss(state, 0, rec.moves[at], extend, rec.bots, deals=4, seed=4, first=3)
    assert tail != table_loss(state, 0, rec.moves[at], extend, rec.bots, deals=4, seed=4)   # other deals
    both = pooled(head, tail)
    assert both.deals == 7
    for field in ("loss", "se", "played_points", "best_points"):
        assert getattr(both, field) == pytest.approx(getattr(whole, field), abs=1e-12), field
    assert pooled(tail, head).se == pytest.approx(whole.se)


def test_review_at_the_table_rerates_the_losses_worth_a_label_and_keeps_the_searchs(bot_game, tmp_path,
                                                                                    monkeypatch):
    moves = range(0, 40)
    base = review(bot_game, budget=BUDGET, moves=moves)
    at = review(bot_game, budget=BUDGET, moves=moves, table_deals=DEALS, cache_dir=tmp_path)
    assert at.table_deals == DEALS and base.table_deals == 0
    rerated = [d for d in base.decisions if needs_table(d.label)]
    assert rerated, "the game has mistakes"
    for b, t in zip(base.decisions, at.decisions):
        if needs_table(b.label):
            assert t.rated_by == "table" and t.loss_search == b.loss_points and t.loss_points >= 0
            assert t.label == label_of(t.loss_points - t.uncertainty) if t.loss_points > 0 else t.label is None
            assert (t.played, t.best, t.best_points) == (b.played, b.best, b.best_points)
        else:
            assert t == b and t.loss_search is None
    for s in at.summaries:
        mine = [d for d in at.decisions if d.seat == s.seat]
        assert s.total_loss_points == sum(d.loss_points for d in mine)
        assert s.accuracy == pytest.approx(sum(accuracy_of(d.loss_points) for d in mine) / len(mine))
    # one decision again by hand, as experiments/review.py's order_table stage rates order.csv's rows
    t = next(d for d in at.decisions if d.rated_by == "table")
    again = table_loss(position_at(bot_game, t.index), t.seat, t.played, t.best, bot_game.bots, DEALS,
                       derive_seed(0, t.index))
    assert table_rating(again) == (t.loss_points, t.label) and again.se == t.uncertainty
    # cached apart from the search's own review; read back without playing on again
    assert len(list(tmp_path.glob("review-*.json"))) == 2
    monkeypatch.setattr(R, "run_each", lambda *a, **k: pytest.fail("played on again despite the cache"))
    assert review(bot_game, budget=BUDGET, moves=moves, table_deals=DEALS, cache_dir=tmp_path) == at


def test_a_person_at_the_table_is_refused_before_any_work(bot_game, monkeypatch):
    monkeypatch.setattr(R, "run_each", lambda *a, **k: pytest.fail("searched before refusing"))
    with_person = bot_game.__class__(**{**bot_game.__dict__, "bots": ["human", "random"]})
    with pytest.raises(ThurnError, match="seat 0 was played by 'human'"):
        review(with_person, budget=BUDGET, table_deals=DEALS)
    with pytest.raises(ThurnError, match="at least 2 deals"):
        review(bot_game, budget=BUDGET, table_deals=1)


def test_review_table_prints_the_tables_losses_and_refuses_a_person_in_one_line(bot_game, tmp_path, capsys,
                                                                                monkeypatch):
    import thurn_ai.play.review_table as T
    monkeypatch.setattr(T, "TABLE_DEALS", DEALS)          # the command plays on from review_table's deals
    path = tmp_path / "game.jsonl"
    path.write_text(bot_game.to_json() + "\n")
    code, out, err = run_cli(["review", path, "--table", "--moves", "1-40", "--budget", BUDGET, "--json"], capsys)
    assert code == 0, err
    d = json.loads(out)
    assert d["table_deals"] == DEALS and any(x["rated_by"] == "table" and x["loss_search"] is not None
                                          for x in d["decisions"])
    code, out, err = run_cli(["review", path, "--table", "--moves", "1-40", "--budget", BUDGET], capsys)
    assert code == 0 and "at the table: every move the search labels a mistake or a blunder" in out, err
    code, out, _ = run_cli(["review", "--help"], capsys)
    assert code == 0 and f"from {TABLE_DEALS} deals" in " ".join(out.split())   # the help says the deals used
    person = tmp_path / "person.jsonl"
    person.write_text(json.dumps({**json.loads(bot_game.to_json()), "bots": ["human", "random"]}) + "\n")
    code, out, err = run_cli(["review", person, "--table", "--budget", BUDGET], capsys)
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert code == 2 and out == "" and len(lines) == 1 and lines[0].startswith("error:") and "'human'" in lines[0]
