"""The board's "Review this game" in a real browser: open a record in the Replay view, review it (progress,
then the win-chance graph under the board and the labelled moves), jump to a labelled move and see the better
move on the board. The browser and the server are the fixtures of tests/web/test_web_browser.py."""
from __future__ import annotations

import pytest

sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed (pip install -e '.[test]')")
pytest.importorskip("starlette")

from tests.play.test_review import planted_blunder
from tests.web.test_web_browser import browser, page, run_axe, server_url  # noqa: F401


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("THURN_AI_CACHE", str(tmp_path / "cache"))


def test_review_this_game_draws_the_graph_lists_labels_and_shows_the_better_move(page):
    rec, at = planted_blunder()
    page.click("#tab-replay")
    page.fill("#replay-text", rec.to_json())
    page.click("#replay-open")
    page.wait_for_selector("#replay:not([hidden])", timeout=90_000)     # the first upload starts the replay process
    assert page.locator("#review-panel").is_hidden()
    page.fill("#review-budget", "200")
    page.click("#review-button")
    page.wait_for_selector("#review-graph", timeout=180_000)
    assert page.locator("#review-status").text_content().startswith("reviewed in")
    assert page.locator("#review-graph polyline.seat-line").count() == 2      # both seats' win chance
    items = page.locator("#review-list li button")
    assert items.count() >= 1
    assert page.locator("#review-graph circle.mark").count() == items.count()
    planted = page.locator(f'#review-list button[data-index="{at}"]')
    assert planted.count() == 1, "the planted blunder is listed"
    assert "blunder" in planted.text_content() and rec.moves[at] in planted.text_content()
    assert run_axe(page) == []
    planted.click()
    # the position where the decision was made: before the move
    page.wait_for_selector(f"#replay-pos:text-matches('^after move {at} of ')")
    better = page.locator("#review-better").text_content()
    assert f"played “{rec.moves[at]}”" in better and "better “" in better
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
