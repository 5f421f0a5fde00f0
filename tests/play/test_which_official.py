"""Which official this turn (thurn_ai.play.turn_options, `thurn-ai hint --which-official`): every open
choice rated for the whole turn, each line keeping to its choice, reproducible, clear errors."""
from __future__ import annotations

import json
import math

import pytest

from thurn_ai.bots.spec import BotSpec
import thurn_ai
from thurn_ai.bots import make_bot
from thurn_ai.bots.base import Observation
from thurn_ai.cli import main
from thurn_ai.errors import PositionError
from thurn_ai.game.officials import OFFICIALS, official_of, possible_officials
from thurn_ai.play.turn_options import which_official
from thurn_ai.position import save_position

SPEC = BotSpec.parse("mcts(iterations=150,eval=learned)")


def turn_start(players=3, seed=1, after=12):
    """A game at the first decision of a turn with a free choice of official (no forced Postmaster)."""
    g = thurn_ai.new_game(players=players, seed=seed)
    bot = make_bot("heuristic")
    n = 0
    while n < after or g.turn_state().forced_pm or g.turn_state().official or g.phase != "draw":
        g.apply(bot.choose(Observation(g, g.current_player, n)))
        n += 1
    return g


@pytest.mark.parametrize("players, seed", [(2, 3), (3, 1), (4, 2)])
def test_every_open_choice_is_rated_and_its_line_keeps_to_it(players, seed):
    g = turn_start(players, seed)
    before = g.export()
    choices = which_official(g, bot=SPEC, seed=4)
    assert g.export() == before                                         # the position is not changed
    assert sorted(c.option for c in choices) == sorted(["none", *possible_officials(g)])
    for c in choices:
        used = [o for o in c.recommended_turn.officials if o]
        assert all(o == c.option for o in used)                         # no other official in its line
        if c.option == "none":
            assert used == [] and c.uses_it
        assert c.move == c.recommended_turn.moves[0]
    # the ones that use their official first, best win chance first among them
    counted = [c for c in choices if c.uses_it]
    assert choices[:len(counted)] == counted
    wins = [c.win_prob for c in counted if not math.isnan(c.win_prob)]
    assert wins == sorted(wins, reverse=True)


def test_progress_is_reported_after_each_choice_and_refusals_come_before_any_search():
    from thurn_ai.play.turn_options import check_turn_question, open_choices
    g = turn_start()
    seen = []
    which_official(g, bot=BotSpec.parse("mcts(iterations=20)"), seed=1,
                   on_rated=lambda done, total: seen.append((done, total)))
    n = len(open_choices(g))
    assert seen == [(k, n) for k in range(1, n + 1)]
    check_turn_question(g)                                              # a free choice: no refusal
    with pytest.raises(PositionError, match="seat"):
        check_turn_question(g, player=(g.current_player + 1) % g.n_players)
    forced = thurn_ai.new_game(players=2, seed=1)                       # the first turn: an empty hand
    with pytest.raises(PositionError, match="forces the Postmaster"):
        check_turn_question(forced)


def test_the_answer_repeats_with_its_seed_and_the_re_rating_is_another_search():
    g = turn_start()
    a, b = which_official(g, bot=SPEC, seed=9), which_official(g, bot=SPEC, seed=9)
    assert [c.to_dict() for c in a] == [c.to_dict() for c in b]
    # the value shown is the independent search's, not the first search's own (selected) reading
    assert any(c.win_prob != c.first_win for c in a if c.fresh_visits)


def test_no_choice_is_an_error():
    g = thurn_ai.new_game(players=3, seed=1)                          # empty hands: the forced Postmaster
    with pytest.raises(PositionError, match="forces the Postmaster"):
        which_official(g, bot=SPEC)
    g = turn_start()
    administrator = [m for m in g.legal_moves() if official_of(g, m) == "administrator"]
    g.apply(administrator[0])                                           # the turn's official is used
    assert g.turn_state().official and g.current_player == turn_start().current_player
    with pytest.raises(PositionError, match="already used this turn"):
        which_official(g, bot=SPEC)
    with pytest.raises(PositionError, match="not seat"):
        which_official(turn_start(), player=(turn_start().current_player + 1) % 3, bot=SPEC)


def test_possible_officials_follow_the_rules():
    g = turn_start()
    options = possible_officials(g)
    assert set(options) <= set(OFFICIALS) and "postmaster" in options
    assert possible_officials(thurn_ai.new_game(players=2, seed=1)) == []   # forced: no choice


def test_the_cli_prints_the_choices_and_json(tmp_path, capsys):
    path = tmp_path / "pos.json"
    g = turn_start()
    save_position(g, path)
    with pytest.raises(SystemExit) as e:
        main(["hint", str(path), "--which-official", "--iterations", "100"])
    out = capsys.readouterr().out
    assert e.value.code == 0 and "which official this turn" in out and "no official" in out
    with pytest.raises(SystemExit) as e:
        main(["hint", str(path), "--which-official", "--iterations", "100", "--json"])
    data = json.loads(capsys.readouterr().out)
    assert e.value.code == 0 and data["player"] == g.current_player
    assert sorted(c["option"] for c in data["choices"]) == sorted(["none", *possible_officials(g)])
    forced = tmp_path / "forced.json"
    save_position(thurn_ai.new_game(players=2, seed=1), forced)
    with pytest.raises(SystemExit) as e:
        main(["hint", str(forced), "--which-official", "--iterations", "50"])
    err = capsys.readouterr().err
    assert e.value.code == 2 and "forces the Postmaster" in err and "Traceback" not in err
