"""The compiled search's root move (Tree(root_move=M), SearchBot.restrict_root_move): the whole budget goes
through one legal move of the root decision, any the rules allow (even a house placement the tree would not
consider), and the search below it is free; an illegal move is refused. The game review rates two moves of a
decision so, with equal effort (thurn_ai/play/review_rating.py)."""
from __future__ import annotations

import pytest

import thurn_ai
from thurn_ai import _search
from thurn_ai.bots import make_bot
from thurn_ai.bots.base import Observation
from thurn_ai.bots.search_options import SearchOptions


def _game_at(phase: str, seed: int = 3):
    """A heuristic game played until a decision of `phase` with at least three legal moves."""
    g = thurn_ai.new_game(players=2, seed=seed)
    bot = make_bot("heuristic", seed)
    while not (g.phase == phase and len(g.legal_moves()) >= 3):
        g.apply(bot.choose(Observation(g, g.current_player, 0)))
    return g


@pytest.mark.parametrize("phase", ["draw", "play", "houses"])
def test_every_iteration_goes_through_the_root_move(phase):
    g = _game_at(phase)
    for move in g.legal_moves()[-2:]:
        t = _search.Tree(g, 5, root_move=move, **SearchOptions(horizon=2).tree_args())
        assert t.run(400) == 400
        rows = t.root_children()
        assert [r[0] for r in rows] == [move] and rows[0][1] == 400
        assert t.n_nodes > 2                      # the search went on below the move


def test_a_root_move_that_is_not_legal_is_refused():
    g = _game_at("play")
    illegal = next(m for m in range(2000) if not g.is_legal(m))
    with pytest.raises(ValueError, match="no legal move"):
        _search.Tree(g, 1, root_move=illegal, **SearchOptions().tree_args())


def test_the_bot_restricts_its_next_searches_and_lifts_it():
    g = _game_at("play")
    bot = make_bot("mcts(iterations=300)", 1)
    move = g.legal_moves()[-1]
    bot.restrict_root_move(move)
    rows = bot.analyse(Observation(g, g.current_player, 0))
    assert [r.move for r in rows] == [move] and rows[0].visits == 300
    bot.restrict_root_move(None)
    assert len(bot.analyse(Observation(g, g.current_player, 0))) > 1
