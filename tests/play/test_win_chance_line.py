"""The win chance in one line (thurn_ai.play.win_chance.chance_line) and its details (chance_details): what the
board, `thurn-ai hint` and the review print, for a calibrated chance, one read through a map fitted for another
search, and a share in evaluation units."""
from __future__ import annotations

import re

import pytest

from thurn_ai.bots.spec import BotSpec
from thurn_ai.play.analysis import bot_spec
from thurn_ai.play.win_chance import chance_details, chance_line, search_margin, win_chance_for

DEFAULT = bot_spec(BotSpec("mcts"))


def test_a_calibrated_chance_is_one_short_line_with_its_noise_and_for_whom():
    chance = win_chance_for(DEFAULT, 2)
    assert chance.calibrated
    line = chance_line(chance, 0.39, 2000)
    assert line == "Win chance 39% (±2), for players like the search"
    assert chance_line(chance, 0.39) == "Win chance 39%, for players like the search"       # no visits: no ±
    assert chance_line(chance) == "Win chances for players like the search"               # above a list
    heuristic = chance_line(win_chance_for(DEFAULT, 3, "heuristic"), 0.8, 500)
    assert heuristic.startswith("Win chance 80% (±") and heuristic.endswith("the others like the heuristic bot")


def test_the_margin_is_never_called_exact_and_narrows_with_the_search():
    assert search_margin(0.5, 0) is None and search_margin(float("nan"), 10) is None
    assert search_margin(1.0, 100) > 0                          # a share of 1 is not certainty
    assert search_margin(0.4, 10_000) < search_margin(0.4, 100)
    assert "(±1)" in chance_line(win_chance_for(DEFAULT, 2), 0.999, 10**7)    # at least ±1, never ±0


@pytest.mark.parametrize("spec, says", [("mcts(eval=learned,policy=handset)", "not calibrated for this search"),
                                        ("mcts(eval=simple)", "in the search's own units, not a probability")])
def test_an_uncalibrated_chance_says_so_in_its_line(spec, says):
    chance = win_chance_for(bot_spec(BotSpec.parse(spec)), 2)
    assert not chance.calibrated
    line = chance_line(chance, 0.5, 400)
    assert line.endswith(says) and "for players like the search" not in line


def test_the_details_say_whom_it_assumes_how_well_it_held_and_what_the_margin_is():
    details = chance_details(win_chance_for(DEFAULT, 2))
    text = " ".join(details)
    assert "among equal players" in text and re.search(r"calibration slope \d\.\d\d", text)
    assert "too close to 1/n" in text and text.count("±") == 1
    assert win_chance_for(DEFAULT, 2).to_dict()["details"] == details
    # a share in evaluation units has no calibration to report, but still says what ± is
    plain = chance_details(win_chance_for(bot_spec(BotSpec.parse("mcts(eval=simple)")), 2))
    assert "calibration slope" not in " ".join(plain) and "not a probability" in plain[0]


def test_the_review_prints_the_same_line_once_above_its_lists():
    from thurn_ai.play.review import Review
    from thurn_ai.play.review_text import review_lines
    r = Review(players=2, bots=("human", "mcts"), seats=(0,), budget=100, spec=str(DEFAULT), seed=0,
               calibrated=True, decisions=(), summaries=())
    lines = review_lines(r)
    assert sum(line.startswith("Win chances for players like the search") for line in lines) == 1


def test_the_review_explains_its_chance_on_request():
    """review --explain: the chance's details under its line (as hint --explain), no pointer to them."""
    from thurn_ai.play.review import Review
    from thurn_ai.play.review_text import review_lines
    from thurn_ai.play.win_chance import chance_details, win_chance_for
    r = Review(players=3, bots=("human", "mcts", "mcts"), seats=(0,), budget=100, spec=str(DEFAULT), seed=0,
               calibrated=True, decisions=(), summaries=())
    plain, explained = review_lines(r), review_lines(r, explain=True)
    details = [f"  {d}" for d in chance_details(win_chance_for(str(DEFAULT), 3))]
    assert details and not set(details) & set(plain)
    at = next(i for i, line in enumerate(explained) if line.startswith("Win chances for players like the search"))
    assert explained[at + 1: at + 1 + len(details)] == details
    assert "--explain" in plain[at] and "--explain" not in explained[at]
