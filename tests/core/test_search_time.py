"""A budget for the bot's whole game (spend=game, thurn_ai/bots/time_manager.py, docs/search-budget.md): the
pacing arithmetic, the estimate of the decisions left, and full games that spend what they are given and never
more, legally and reproducibly."""
from pathlib import Path

import pytest

import thurn_ai
from thurn_ai import _search
from thurn_ai.bots import make_bot
from thurn_ai.bots import time_manager as tm
from thurn_ai.bots.search_options import SearchOptions
from thurn_ai.errors import BotSpecError
from thurn_ai.game.rules import Rules
from thurn_ai.play.match import Table, play_game, read_records, record_walk

ROOT = Path(__file__).resolve().parents[2]
FAST = "horizon=1"


def test_the_allotment_is_the_weighted_share_of_the_bank():
    # 10,000 left for 20 decisions of mean weight 1.5: a play gets 10,000 / 30, a draw (weight 2) twice that
    assert tm.allotment(10_000, 20, 1.0, 1.5, floor=50) == pytest.approx(10_000 / 30)
    assert tm.allotment(10_000, 20, 2.0, 1.5, floor=50) == pytest.approx(20_000 / 30)
    # searches that use half their allotment are given twice as much
    assert tm.allotment(10_000, 20, 1.0, 1.5, floor=50, used=0.5) == pytest.approx(20_000 / 30)


def test_the_allotment_keeps_the_floor_and_the_cap():
    # the cap: one decision takes at most half the bank, even as the last one expected
    assert tm.allotment(1000, 1, 2.0, 1.0, floor=10) == 500
    # the floor: never below it while the bank has it ...
    assert tm.allotment(1000, 500, 1.0, 1.0, floor=10) == 10
    assert tm.allotment(5, 500, 1.0, 1.0, floor=10) == 5
    # ... and the floor of each decision expected after this one is left in the bank
    assert tm.allotment(1000, 10, 1.0, 1.0, floor=95, used=0.25) == pytest.approx(1000 - 95 * 9)
    assert tm.allotment(0, 10, 1.0, 1.0, floor=95) == 0
    assert tm.allotment(-3, 10, 1.0, 1.0, floor=95) == 0


def test_usage_is_the_share_spent_bounded_below():
    assert tm.usage(0, 0) == 1.0
    assert tm.usage(300, 600) == 0.5
    assert tm.usage(10, 600) == tm.MIN_USAGE
    assert tm.usage(700, 600) == 1.0


def test_a_draw_weighs_draws_times_a_play_on_average():
    share = tm.DRAW_SHARE["houses"]
    assert tm.mean_weight(3.0, "houses") == pytest.approx(3 * share + 1 - share)
    assert tm.mean_weight(1.0, "none") == 1.0


def _game(players, seed):
    """The positions of one game of the planner against itself, in order."""
    g = thurn_ai.new_game(players=players, seed=seed)
    out = []
    while not g.is_terminal():
        out.append(g.clone())
        g.apply(_search.plan_policy_choice(g, 0))
    return out


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_decisions_left_fall_as_the_game_goes_on(players):
    positions = _game(players, seed=41)
    p = positions[0].current_player
    own = [s for s in positions if s.current_player == p and len(s.legal_moves()) > 1
           and s.phase not in ("houses", "cartwright")]
    left = [tm.decisions_left(s, "houses") for s in own]
    # at the start, about the fitted game's searched decisions (about 72); near the end, a few
    assert 55 <= left[0] <= 85
    assert left[-1] <= 10
    assert all(x >= 1 for x in left)
    # falling overall: the estimate a third of the way in is below the start's, the last third's below that
    third = len(left) // 3
    assert max(left[2 * third:]) < min(left[:3])
    # within the estimate's measured error (about 7 decisions on average) of the true count, in the middle
    true_left = [len(own) - k for k in range(len(own))]
    middle = slice(third, 2 * third)
    errors = [abs(a - b) for a, b in zip(left[middle], true_left[middle])]
    assert sum(errors) / len(errors) < 20
    # with houses searched too there are more decisions left
    assert tm.decisions_left(own[0], "none") > left[0]


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_estimate_on_recorded_games_of_the_default_search(players):
    # the first six league games with a default-search seat (games the constants were fitted on): at each of
    # that seat's searched decisions, the estimate against the searched decisions the seat really had left
    path = ROOT / "results" / "league" / "games" / f"p{players}" / "records.jsonl"
    records = [r for r in read_records(path) if "anchor-1k" in r.bots or "mcts" in r.bots][:6]
    errors = []
    for record in records:
        for seat in (i for i, b in enumerate(record.bots) if b in ("anchor-1k", "mcts")):
            estimates = [tm.decisions_left(s, "houses") for _i, s, _m in record_walk(record)
                         if s.current_player == seat and len(s.legal_moves()) > 1
                         and s.phase not in ("houses", "cartwright")]
            errors += [a - b for a, b in zip(estimates, range(len(estimates), 0, -1))]
    # measured over all the fitted games: 6.7 decisions on average, bias +0.2; a single long game is off by 20
    assert sum(abs(e) for e in errors) / len(errors) < 10
    assert abs(sum(errors) / len(errors)) < 6


def test_once_the_end_is_triggered_the_turn_at_hand_is_the_last():
    for s in reversed(_game(3, seed=7)):
        if s.export()["end_triggered"]:
            assert tm.decisions_left(s, "houses") == pytest.approx(tm.DECISIONS_LEFT_AT_END["houses"])
            return
    raise AssertionError("no position after the end was triggered")


def _play(spec, players, seed, game_seed=5):
    """One game: `spec` in seat 0, heuristic elsewhere; the bot, [(phase, SearchResult)] of its searches (`draw`
    for every decision that offers a draw, the Postmaster's in a card play too) and its
    decisions that a search could have made (more than one legal move, not planned)."""
    table = Table.new(Rules(players=players), game_seed, [spec] + ["heuristic"] * (players - 1))
    bots = [make_bot(spec, seed=seed)] + [make_bot("heuristic", seed=i) for i in range(1, players)]
    searches, searchable = [], 0
    while not table.over:
        obs = table.observation()
        if table.to_move == 0:
            searchable += len(obs.legal_moves()) > 1 and obs.state.phase not in ("houses", "cartwright")
        move = bots[table.to_move].choose(obs)
        if table.to_move == 0 and bots[0].last_search(obs) is not None:
            searches.append(("draw" if tm.offers_draw(obs.state) else obs.state.phase, bots[0].last_search(obs)))
        table.check_bot_move(move)          # no illegal move
        table.apply(move)
    return bots[0], searches, searchable


@pytest.mark.parametrize("players,options", [
    (2, "planned=houses"),
    (3, "planned=houses,draws=3"),
    (4, "planned=houses,favourite=0"),
    (2, "reuse=turn"),
    (3, "reuse=turn,planned=houses,workers=2"),
])
def test_the_game_budget_is_spent_and_never_exceeded(players, options):
    budget = 30_000
    bot, searches, _ = _play(f"mcts({FAST},spend=game,game={budget},{options})", players, seed=3)
    spent = sum(r.iterations for _p, r in searches)
    assert spent <= budget
    # most of it: measured, 93% on average over 108 games at 2-4 players, the least 74% (a short game)
    assert spent >= 0.7 * budget
    assert spent == bot.game_clock.spent == budget - bot.game_clock.bank
    for _phase, r in searches:
        assert r.iterations <= r.allotted
    # the draws (the Postmaster's too) get more than the plays (draws= is the weight)
    draws = [r.allotted for p, r in searches if p == "draw"]
    plays = [r.allotted for p, r in searches if p == "play"]
    assert sum(draws) / len(draws) > sum(plays) / len(plays)


def test_a_clear_favourite_stops_the_search_and_the_rest_is_banked():
    _bot, searches, _ = _play(f"mcts({FAST},spend=game,game=30000,planned=houses)", 2, seed=3)
    stopped = [r for _p, r in searches if r.iterations < r.allotted]
    assert len(stopped) > len(searches) / 3
    _bot, never, _ = _play(f"mcts({FAST},spend=game,game=30000,planned=houses,favourite=0)", 2, seed=3)
    assert len([r for _p, r in never if r.iterations < r.allotted]) < len(stopped)


def test_the_favourite_stop_of_the_tree():
    g = _game(2, seed=3)[20]
    for share in (0.5, 0.9):
        t = _search.Tree(g, 5, **SearchOptions(horizon=1).tree_args())
        done = t.run(4000, favourite=share, favourite_after=0.25)
        rows = [r for r in t.root_children() if r[0] in set(g.legal_moves())]
        best = max(r[1] for r in rows) / sum(r[1] for r in rows)
        assert done >= 1000                     # not before a quarter of the budget
        assert done == 4000 or best >= share    # it stopped on a clear favourite
    with pytest.raises(ValueError):
        _search.Tree(g, 5, **SearchOptions().tree_args()).run(100, favourite=1.5)


def test_same_seed_same_game():
    spec = f"mcts({FAST},spend=game,game=20000,planned=houses,reuse=turn)"
    runs = [play_game(Rules(players=3), [make_bot(spec, seed=s) for s in range(3)], seed=8) for _ in range(2)]
    assert runs[0].moves == runs[1].moves


def test_a_new_game_starts_a_new_bank():
    spec = f"mcts({FAST},spend=game,game=20000,planned=houses)"
    bot = make_bot(spec, seed=1)
    rules = Rules(players=2)
    play_game(rules, [bot, make_bot("heuristic")], seed=4)
    first = bot.game_clock
    assert first.bank < 0.3 * 20_000
    play_game(rules, [bot, make_bot("heuristic")], seed=5)
    second = bot.game_clock
    assert second is not first
    assert 0.7 * 20_000 <= second.spent <= 20_000


def test_the_bank_ends_in_the_planners_moves():
    # a budget of a few iterations: the searches spend it, then (an allotment below one iteration) the
    # planner plays, legally
    bot, searches, searchable = _play(f"mcts({FAST},spend=game,game=100,planned=houses)", 2, seed=2)
    assert sum(r.iterations for _p, r in searches) <= 100
    assert all(r.iterations >= 1 for _p, r in searches)
    assert bot.game_clock.spent >= 90
    assert len(searches) < searchable


def test_a_time_budget_for_the_game():
    bot, searches, _ = _play(f"mcts({FAST},spend=game,game_time=1.0,clock=cpu,planned=houses)", 2, seed=3)
    assert searches
    assert all(r.allotted > 0 and r.iterations > 0 for _p, r in searches)
    assert bot.game_clock.budget == 1.0 and bot.game_clock.spent == pytest.approx(1.0 - bot.game_clock.bank)


@pytest.mark.parametrize("spec", [
    "mcts(game=1000)",                                  # a game's budget without spend=game
    "mcts(spend=phase,game_time=10)",
    "mcts(spend=game)",                                 # spend=game without a budget
    "mcts(spend=game,game=1000,game_time=10)",          # both
    "mcts(spend=game,game=1000,time=1)",                # a decision's seconds as well
    "mcts(spend=game,game_time=10,clock=cpu,workers=2)",
    "mcts(spend=game,game=0)", "mcts(spend=game,game=1.5)", "mcts(spend=game,game_time=0)",
    "mcts(spend=game,game=1000,favourite=1.5)",
    "pimc(spend=game,game=1000)",
])
def test_contradictory_game_budgets_are_refused(spec):
    with pytest.raises(BotSpecError):
        make_bot(spec)


def test_anchors_pin_the_game_budget_off():
    options = make_bot("anchor-1k").options
    assert (options.spend, options.game, options.game_time) == ("flat", None, None)
