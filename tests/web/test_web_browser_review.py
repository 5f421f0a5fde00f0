"""The board's "Review this game" in a real browser: open a record in the Replay view, review it (progress,
then the summary table, the graphs under the board and the labelled moves), jump to a labelled move and see the
better move and its line on the board; then "Learn from your mistakes": the position first, a try, the answer.
The browser and the server are the fixtures of tests/web/test_web_browser.py."""
from __future__ import annotations

import re

import pytest

sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed (pip install -e '.[test]')")
pytest.importorskip("starlette")

from tests.play.test_review import planted_blunder
from tests.web.test_web_browser import browser, page, run_axe, server_url  # noqa: F401


BUDGET = 300


@pytest.fixture(scope="module", autouse=True)
def private_cache(tmp_path_factory):
    """One cache for the module's tests (the second review of the record is read from it), not the user's."""
    mp = pytest.MonkeyPatch()
    mp.setenv("THURN_AI_CACHE", str(tmp_path_factory.mktemp("cache")))
    yield
    mp.undo()


def open_and_review(page, rec):
    page.click("#tab-replay")
    page.fill("#replay-text", rec.to_json())
    page.click("#replay-open")
    page.wait_for_selector("#replay:not([hidden])", timeout=90_000)     # the first upload starts the replay process
    assert page.locator("#review-panel").is_hidden()
    page.fill("#review-budget", str(BUDGET))
    page.click("#review-button")
    page.wait_for_selector("#review-graph", timeout=240_000)


def test_review_this_game_draws_the_graph_lists_labels_and_shows_the_better_move(page):
    rec, at = planted_blunder()
    open_and_review(page, rec)
    assert page.locator("#review-status").text_content().startswith("reviewed in")
    assert page.locator("#review-graph polyline.seat-line").count() == 2      # both seats' win chance
    assert page.locator("#review-lost polyline.seat-line").count() == 2       # and the points they lost
    row = page.locator('#review-table tr[data-seat="0"]').text_content()
    assert re.search(r"\d+% ?[\d.]+ points", row) and re.search(r"[1-9]\d* (mistakes?|blunders?)", row), row
    items = page.locator("#review-list li button")
    assert items.count() >= 1
    assert page.locator("#review-graph circle.mark").count() == items.count()
    planted = page.locator(f'#review-list button[data-index="{at}"]')
    assert planted.count() == 1, "the planted blunder is listed"
    text = planted.text_content()
    assert ("mistake" in text or "blunder" in text) and rec.moves[at] in text and "points" in text
    assert run_axe(page) == []
    planted.click()
    # the position where the decision was made: before the move
    page.wait_for_selector(f"#replay-pos:text-matches('^after move {at} of ')")
    better = page.locator("#review-better").text_content()
    assert f"played “{rec.moves[at]}”" in better and "better “" in better and "Best line: " in better
    best = better.split("better “")[1].split("”")[0]
    if " " in best and best.split(" ", 1)[0] in ("draw", "left", "right", "new", "house"):
        city = best.split(" ", 1)[1]
        page.wait_for_selector(f'#board g.city[data-city="{city}"] .review-better-ring')
    # stepping on clears the mark; the review stays
    page.click("#replay-next")
    page.wait_for_selector(f"#replay-pos:text-matches('^after move {at + 1} of ')")
    assert page.locator("#review-better").text_content() == ""
    assert page.locator("#review-graph").count() == 1
    # another tab hides the review
    page.click("#tab-play")
    assert page.locator("#review-panel").is_hidden()


def test_learn_from_your_mistakes_shows_the_position_then_a_try_then_the_answer(page):
    rec, at = planted_blunder()
    open_and_review(page, rec)                         # read from the module's cache after the first test
    assert page.locator("#review-learn-controls").is_visible()
    page.select_option("#review-learn-seat", "0")
    # The question is on screen while its position is still on the way (held here until the title is read):
    # the panel never shows an empty or the last mistake's title.
    held = []
    page.route("**/api/replays/*/view*", lambda route: held.append(route))
    page.click("#review-learn-start")
    page.wait_for_selector("#review-learn:not([hidden])")
    title = page.locator("#review-learn-title").text_content()
    assert re.match(r"Mistake 1 of \d+: move \d+ ", title), title
    for _ in range(200):                               # the position's request reaches the route
        if held:
            break
        page.wait_for_timeout(50)
    assert len(held) == 1
    held[0].continue_()
    page.unroute("**/api/replays/*/view*")
    # the first mistake of seat 0: its position (before the move), as seat 0 saw it, and the question
    index = int(title.split("move ")[1].split(" ")[0]) - 1
    page.wait_for_selector(f"#replay-pos:text-matches('^after move {index} of ')")
    assert page.locator("#replay-viewer").input_value() == "0"
    ask = page.locator("#review-learn-ask").text_content()
    assert f"played “{rec.moves[index]}”" in ask and "Find a better move" in ask
    assert page.locator("#review-better").text_content() == ""            # the answer is not shown yet
    assert page.locator("#board .review-better-ring").count() == 0
    choices = page.locator("#review-learn-choices button")
    assert choices.count() >= 2
    # the move played is no answer
    page.click(f'#review-learn-choices button[data-move="{rec.moves[index]}"]')
    assert "is the move played" in page.locator("#review-learn-verdict").text_content()
    assert page.locator("#review-better").text_content() == ""
    assert run_axe(page) == []
    # the answer
    page.click("#review-learn-reveal")
    better = page.locator("#review-better").text_content()
    assert f"played “{rec.moves[index]}”" in better and "better “" in better
    best = better.split("better “")[1].split("”")[0]
    assert page.locator(f'#review-learn-choices button.answer[data-move="{best}"]').count() == 1
    assert page.locator("#review-learn-choices button:not([disabled])").count() == 0
    # on to the next mistake, or done; Stop shows the list again
    page.click("#review-learn-next")
    page.wait_for_function("document.querySelector('#review-learn-title').textContent !== " + repr(title))
    page.click("#review-learn-stop")
    assert page.locator("#review-learn").is_hidden() and page.locator("#review-list").is_visible()
