"""Issue 71 in a real browser (as test_web_browser.py: Debian's Chromium driven by Playwright): every score at
the top of a phone, the hint's win chance in one line with its details folded and no sideways scroll, Undo
after a card play that ended the turn, and the small items (Taken back: no house, counts in words, where a
game-ending Cartwright leaves you, the ★ move first and on the hand's cards in the draw phase)."""
from __future__ import annotations

import re

import pytest

from tests.web.test_web_browser import (TIMEOUT_MS, api_view, browser, page, server_url,  # noqa: F401
                                        start_game, wait_person)
from tests.web.test_web_browser_game import open_position, reproduction_position
from tests.web.test_web_browser_turns import cartwright_position, chooser_text, draw_play_and_close, in_view
from tests.web.test_web_browser_turns import new_context as turns_context

SIZES = {"phone": (390, 844), "small-phone": (360, 740), "small": (1024, 768), "large": (1440, 900)}
CHANCE_LINE = re.compile(r"^Win chance \d+% \(±\d+\), for players like the search; "
                         r"expected final score -?\d+\.\d points\.$")


def new_context(browser, server_url, size):
    return turns_context(browser, server_url, SIZES[size])


def forced_draws(pg):
    """Turn 1: the empty hand's two Postmaster draws from the deck."""
    for _ in range(2):
        n = pg.get_attribute("#game", "data-moves")
        pg.locator('#display [data-move="draw deck"]').click()
        wait_person(pg, n)


def sideways(pg) -> int:
    """How far the page is wider than the window (0: no sideways scroll)."""
    return pg.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")


@pytest.mark.parametrize("size", ["phone", "small-phone", "large"])
def test_every_players_score_is_at_the_top(browser, server_url, size):
    context, pg, errors = new_context(browser, server_url, size)
    try:
        start_game(pg, ["human", "mcts(iterations=300)", "heuristic", "random"], seed=3)
        w, h = SIZES[size]
        view = api_view(pg)
        for seat in range(4):
            box = pg.locator(f'#strip .strip-seat[data-seat="{seat}"] .strip-score').bounding_box()
            assert box is not None and box["width"] > 0, seat
            # inside the window, in the top part of the first screen
            assert 0 <= box["x"] and box["x"] + box["width"] <= w, (seat, box)
            assert 0 <= box["y"] and box["y"] + box["height"] <= 0.2 * h, (seat, box)
            score = pg.inner_text(f'#strip .strip-seat[data-seat="{seat}"] .strip-score')
            assert score == f"{view['scores'][seat]} pts"
        # the entries' details (carriage, houses left, hand) are still there for a screen reader
        assert "houses left" in pg.inner_text('#strip .strip-seat[data-seat="0"]') or \
            pg.locator('#strip .strip-seat[data-seat="0"] .strip-more').count() >= 3
        assert sideways(pg) <= 0
    finally:
        context.close()
    assert not errors, errors


def test_turn_1_on_a_phone_opens_on_the_cards_to_choose_from(browser, server_url):
    context, pg, errors = new_context(browser, server_url, "phone")
    try:
        start_game(pg, ["human", "random"], seed=7)
        display = api_view(pg)["position"]["display"]
        box = pg.locator("#board-scroll").bounding_box()
        seen = 0
        for city in display:
            r = pg.locator(f'#board .city[data-city="{city}"]').bounding_box()
            seen += box["x"] <= r["x"] + r["width"] / 2 <= box["x"] + box["width"] and \
                box["y"] <= r["y"] + r["height"] / 2 <= box["y"] + box["height"]
        assert seen >= 2, (display, seen)          # not the map's empty corner: the display's cities
    finally:
        context.close()
    assert not errors, errors


@pytest.mark.parametrize("size", ["phone", "small"])
def test_a_hint_shows_one_line_and_its_details_folded_and_never_widens_the_page(browser, server_url, size):
    context, pg, errors = new_context(browser, server_url, size)
    try:
        start_game(pg, ["human", "random"], seed=4)
        forced_draws(pg)
        pg.select_option("#hint-unit", "iterations")
        pg.fill("#hint-budget", "400")
        pg.click("#hint-button")
        pg.wait_for_selector("#hint-options:not([hidden]) tbody tr")
        line = pg.inner_text("#hint-turn .chance-line")
        assert CHANCE_LINE.match(line), line
        assert len(line.split()) <= 20
        # the details are behind "how sure is this?", folded until asked for
        details = pg.locator("#hint-turn details.how-sure")
        assert details.locator("summary").inner_text() == "how sure is this?"
        assert not details.locator("ul").is_visible()
        details.locator("summary").click()
        text = details.locator("ul").inner_text()
        assert "calibration slope" in text and "The search: mcts(" in text and "±" in text
        assert sideways(pg) <= 0, "the page scrolls sideways with a hint open"
        # the search's choice (★) is the table's first row
        first = pg.locator("#hint-options tbody tr").first
        assert "best" in first.get_attribute("class") and "★" in first.inner_text()
    finally:
        context.close()
    assert not errors, errors


def test_undo_after_a_card_play_that_ended_the_turn_on_a_phone(browser, server_url):
    context, pg, errors = new_context(browser, server_url, "phone")
    try:
        start_game(pg, ["human", "heuristic"], seed=5)
        forced_draws(pg)
        before = api_view(pg)
        hand = before["position"]["players"][0]["hand"]
        n = pg.get_attribute("#game", "data-moves")
        pg.locator("#hand .card.legal").first.tap()              # a new route's first card: the turn ends
        menu = pg.locator("#chooser:not([hidden]) button.move")
        if menu.count():
            menu.first.tap()
        pg.wait_for_selector("#game[data-grace=yes]")           # the bots wait: Undo can take it back
        assert pg.is_enabled("#undo") and pg.is_visible("#end-turn")
        assert "Undo" in pg.inner_text("#phase-help")
        # on the phone the turn box scrolled away under the map: Undo is offered where the card was tapped
        assert in_view(pg, "#grace-undo") and in_view(pg, "#grace-end")
        pg.locator("#grace-undo").tap()
        pg.wait_for_selector(f'#game[data-waiting=person][data-moves="{n}"]')
        assert "Taken back" in pg.inner_text("#undo-note")
        back = api_view(pg)
        assert back["position"]["players"][0]["hand"] == hand and back["log"] == before["log"]
        # played again and ended on purpose: the bots move at once, and then nothing can be taken back
        pg.locator("#hand .card.legal").first.tap()
        if menu.count():
            menu.first.tap()
        pg.wait_for_selector("#game[data-grace=yes]")
        pg.locator("#grace-end").tap()
        pg.wait_for_function("(n) => Number(document.querySelector('#game').dataset.moves) > n + 1", arg=int(n))
        pg.wait_for_selector("#game[data-waiting=person]")
        assert pg.is_disabled("#undo") or api_view(pg)["turn"] > before["turn"]
        assert api_view(pg)["log"][len(before["log"])]["seat"] == 0
    finally:
        context.close()
    assert not errors, errors


def close_and_place_no_house(page):
    """The Cartwright position: draw Basel, play Innsbruck, close, and Place no house (confirmed)."""
    open_position(page, cartwright_position(), ["human", "random", "random"])
    draw_play_and_close(page)
    n = page.get_attribute("#game", "data-moves")
    page.click("#place-houses")                                  # nothing picked: "Place no house"
    page.click("#chooser:not([hidden]) button.confirm")
    wait_person(page, n)
    assert api_view(page)["phase"] == "cartwright"


def test_undoing_no_house_says_so(page):
    close_and_place_no_house(page)
    n = page.get_attribute("#game", "data-moves")
    page.click("#undo")
    page.wait_for_selector(f'#game:not([data-moves="{n}"])')
    assert page.inner_text("#undo-note") == "Taken back: no house."
    assert api_view(page)["phase"] == "houses"


def test_a_game_ending_cartwright_says_where_it_leaves_you(page):
    close_and_place_no_house(page)
    view = api_view(page)
    mine = view["scores"][0] + view["cartwright_choice"]["take"]["points"]
    leader = max(range(1, 3), key=lambda s: (view["scores"][s], -s))
    page.click('#moves button[data-move="cartwright"]')
    text = chooser_text(page)
    where = ("finish behind" if mine < view["scores"][leader] else
             "level with them" if mine == view["scores"][leader] else "finish first")
    said = f"You would have {mine}; seat {leader} ({view['seats'][leader]}) has {view['scores'][leader]}"
    assert f"{said}: you would {where}" in text, text
    page.click("#chooser button.cancel")


def test_counts_are_said_by_one_helper_in_the_strip_and_the_close_preview(page):
    start_game(page, ["human", "random"], seed=5)
    words = page.evaluate("""async () => { const b = await import('/static/board.js');
        const c = await import('/static/common.js');
        return [b.plural(1, 'house') + ' left', b.plural(3, 'house') + ' left', b.points(1), b.points(-2),
                c.closeText({route: ['Ulm', 'Augsburg'], houses: ['Ulm'], tiles: [], carriage: 0, points: 1})]; }""")
    assert words[:4] == ["1 house left", "3 houses left", "+1 point", "−2 points"]
    assert words[4].endswith("; +1 point")
    strip = page.inner_text("#strip")
    assert re.search(r"\b20 houses left\b", strip) and not re.search(r"\b1 houses\b", strip)


def test_the_hint_stars_a_hand_card_played_later_in_the_draw_phase(page):
    open_position(page, reproduction_position(), ["human", "random", "random"])
    assert api_view(page)["phase"] == "draw"
    page.select_option("#hint-unit", "iterations")
    page.fill("#hint-budget", "1500")
    page.click("#hint-button")
    page.wait_for_selector("#hint-options:not([hidden]) tbody tr")
    hand = set(api_view(page)["position"]["players"][0]["hand"])
    steps = page.locator("#hint-turn li").all_text_contents()
    plays = [(i + 1, s.split()[1]) for i, s in enumerate(steps) if s.split()[0] in ("left", "right", "new")
             and s.split()[1] in hand]
    assert plays, steps                     # the recommended turn plays a card of the hand after its draw
    for step, city in plays:
        card = page.locator(f'#hand .card.hinted[data-city="{city}"]')
        assert card.count() == 1 and f"★{step}" in card.inner_text()


def test_a_bots_cards_fly_to_places_in_view_on_a_phone(browser, server_url):
    context, pg, errors = new_context(browser, server_url, "phone")
    try:
        start_game(pg, ["human", "greedy"], seed=12)
        pg.evaluate("""() => { window.flights = []; new MutationObserver((ms) => {
            for (const m of ms) for (const n of m.addedNodes)
              if (n.classList && n.classList.contains('flying-card')) window.flights.push(n.dataset.to); })
            .observe(document.body, { childList: true, subtree: true }); }""")
        pg.select_option("#bot-speed", "250")                 # each bot move shown
        for _ in range(12):
            if len(pg.evaluate("window.flights")) >= 3:
                break
            n = pg.get_attribute("#game", "data-moves")
            view = api_view(pg)
            legal = [m["move"] for m in view["legal"]]
            move = "stop" if "stop" in legal else "draw deck" if "draw deck" in legal else legal[0]
            pg.locator(f'#moves button[data-move="{move}"]').tap()
            confirm = pg.locator("#chooser:not([hidden]) button.confirm, #chooser:not([hidden]) button.move")
            if confirm.count():
                confirm.first.tap()
            end = pg.locator("#grace-end")
            if end.count():
                end.tap()
            wait_person(pg, n)
        w, h = SIZES["phone"]
        flights = [tuple(map(float, f.split(","))) for f in pg.evaluate("window.flights")]
        assert flights, "no bot card flew"
        # each lands in the window's top half: the players' strip or the map above the turn
        assert all(0 <= x <= w and 0 <= y <= h / 2 for x, y in flights), flights
    finally:
        context.close()
    assert not errors, errors
