"""Issue 57: `hint` (and `?` for help) at the move prompt of `thurn-ai play`, from the player's own view.

Before, `hint` typed at the prompt was refused as a move ("cannot read move 'hint'") and `?` reprinted the
position without saying what can be typed.
"""
from __future__ import annotations

from click.testing import CliRunner

import thurn_ai
from thurn_ai.bots import Observation, make_bot
from thurn_ai.bots.human import HumanBot
from thurn_ai.cli import cli
from thurn_ai.commands.play import seat_adviser
from thurn_ai.position import position_from_dict, position_to_dict


def play(typed: list[str]):
    return CliRunner().invoke(cli, ["play", "--bots", "human,greedy", "--seed", "4"], input="\n".join(typed) + "\n")


def test_hint_and_help_at_the_move_prompt_then_the_game_goes_on():
    result = play(["?", "hint 200", "1", "quit"])
    out = result.output
    assert "cannot read move" not in out                    # neither '?' nor 'hint' is taken for a move
    assert "hint N" in out and "show " in out and "quit" in out   # the help lists what can be typed
    assert "200 visits at the root, from seat 0's view" in out
    assert "recommended: draw " in out and "for players like the search; expected final score" in out
    assert "--top" not in out and "--opponents" not in out  # no option of `thurn-ai hint` named in a game
    assert "turn   1  seat 0 (human)" in out                # the move typed after the hint was played
    assert result.exit_code != 0 and "Traceback" not in out # quit: aborted


def test_a_bad_hint_request_is_explained_and_asked_again():
    result = play(["hint lots", "hint 0", "hint 100001", "quit"])
    assert result.output.count("type hint, or hint N with N search iterations from 1 to 100,000") == 3
    assert "visits at the root" not in result.output


def test_the_hint_uses_only_what_the_player_may_know():
    """Two positions that seat 0 sees alike, whose hidden cards (seat 1's hand, the deck) differ, get the
    same hint: the search never reads the true hidden cards."""
    g = thurn_ai.new_game(players=2, seed=3)
    bots = [make_bot("greedy", seed=1), make_bot("greedy", seed=2)]
    while g.turn < 6 or g.current_player != 0 or g.phase != "play":
        p = g.current_player
        g.apply(bots[p].choose(Observation(g, p, seed=g.turn)))
    other = next(s for s in (position_from_dict(position_to_dict(g, viewer=0), seed=k) for k in range(20))
                 if s.export()["hand"][1] != g.export()["hand"][1])
    assert position_to_dict(other, viewer=0) == position_to_dict(g, viewer=0)   # alike for seat 0
    advise = seat_adviser(11)
    assert advise(g, 0, 300) == advise(other, 0, 300)
    assert any(line.startswith("recommended: ") for line in advise(g, 0, 300))


def test_a_human_bot_without_an_adviser_says_there_is_no_hint():
    g = thurn_ai.new_game(players=2, seed=1)
    answers = iter(["hint", "show", "1"])
    out: list[str] = []
    bot = HumanBot(read=lambda prompt: next(answers), write=out.append)
    assert bot.choose(Observation(g, 0, 1)) == g.legal_moves()[0]
    text = "\n".join(out)
    assert "no hint here" in text
    assert text.count("tiles left:") == 2          # the position at the start and again for `show`
