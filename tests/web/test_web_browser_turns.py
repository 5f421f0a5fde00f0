"""The board page after the third browser review (issue 56, ../shared/reviews/browser-review-3.md): no click
gives up points or ends the game without a question that names what is lost (D1, D3), "fits" only where a
draw is possible (D2), the phone's map in view with the hand and the moves and panned to them (D4, D10),
controls big enough to hit, a warning said once (D5), the hint's rows and stars (D6-D8), the keyboard's
place after a card (D9), the labels (D11), the turn in the tab's title, bot moves that travel, and replay
jumps. axe-core in each new state.

The browser and the server are the fixtures of tests/web/test_web_browser.py."""
from __future__ import annotations

import pytest

sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed (pip install -e '.[test]')")
pytest.importorskip("starlette")

import thurn_ai
from thurn_ai.bots import make_bot
from thurn_ai.play.match import play_game

from tests.web.test_web_browser import (TIMEOUT_MS, api_view, browser, page, run_axe, server_url,  # noqa: F401
                                        start_game, wait_person)
from tests.web.test_web_browser_game import SIZES, click_move, open_position, reproduction_position, to_close

BOARD = thurn_ai.Rules().load_board()


def adjacent(a: str, b: str) -> bool:
    return bool(BOARD.adjacent(BOARD.city_index(a), BOARD.city_index(b)))


def new_context(browser, server_url, size):
    """A page at `size` (a name of SIZES, or (width, height)); below 600 px wide a phone with touch."""
    w, h = SIZES[size] if isinstance(size, str) else size
    phone = w < 600
    context = browser.new_context(viewport={"width": w, "height": h}, base_url=server_url, has_touch=phone,
                                  is_mobile=phone)
    pg = context.new_page()
    pg.set_default_timeout(TIMEOUT_MS)
    errors: list = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    pg.goto("/")
    pg.wait_for_selector("body[data-ready=yes]")
    return context, pg, errors


def chooser_text(page) -> str:
    page.wait_for_selector("#chooser:not([hidden])")
    return page.inner_text("#chooser")


def cartwright_position() -> dict:
    """The review's B1 position with seat 0 holding the 6-carriage and a route of 4: a draw, Innsbruck and
    a close make 5 cards, which the Cartwright counts as 7: the 7-carriage, which ends the game (D3: one
    click ended a game without a word)."""
    d = reproduction_position()
    d["players"][0].update(carriage=6, closes=4, route=["Ulm", "Augsburg", "München", "Salzburg"])
    d["deck_size"] -= 1
    return d


def draw_play_and_close(page):
    """In the Cartwright position: draw Basel, play Innsbruck, close (no official used)."""
    click_move(page, '#display .card[data-move="draw Basel"]')
    n = page.get_attribute("#game", "data-moves")
    page.click('#hand .card[data-city="Innsbruck"]')
    menu = page.locator('#chooser:not([hidden]) button[data-move="right Innsbruck"]')
    if menu.count():
        menu.click()
    wait_person(page, n)
    click_move(page, '#moves button[data-move="close"]')


def close_with_the_cartwright_left(page):
    """Draw Basel, play Innsbruck, close, place the best houses: the Cartwright phase (no official used)."""
    draw_play_and_close(page)
    best = api_view(page)["house_choice"]["sets"][0]
    for city in best["cities"]:
        page.click(f'#board .city.legal[data-city="{city}"]')
        page.wait_for_selector(f'#board .city.picked[data-city="{city}"]')
    n = page.get_attribute("#game", "data-moves")
    page.click("#place-houses")
    wait_person(page, n)
    return n


# ---------------------------------------------------------------- D1, D3: a question before points are lost

def test_no_house_or_fewer_points_asks_first_naming_what_is_lost(page):
    open_position(page, reproduction_position(), ["human", "random", "random"])
    to_close(page)
    n = page.get_attribute("#game", "data-moves")
    best = api_view(page)["house_choice"]["sets"][0]
    page.click("#place-houses")                                  # nothing picked: "Place no house"
    text = chooser_text(page)
    assert "Place no house?" in text and f"+{best['points']} points" in text and "give up" in text
    assert page.evaluate("document.activeElement.classList.contains('cancel')")    # Enter does not confirm
    assert run_axe(page) == []                                    # the question, in the houses phase
    page.click("#chooser button.cancel")
    assert page.get_attribute("#game", "data-moves") == n and api_view(page)["phase"] == "houses"
    # a placement worth less than the best: every Baiern city (+6) where +8 is possible
    worse = next(s for s in api_view(page)["house_choice"]["sets"] if s["points"] < best["points"])
    for city in worse["cities"]:
        page.click(f'#board .city.legal[data-city="{city}"]')
        page.wait_for_selector(f'#board .city.picked[data-city="{city}"]')
    page.click("#place-houses")
    text = chooser_text(page)
    assert f"give up {best['points'] - worse['points']} point" in text
    page.click("#chooser button.cancel")
    assert page.get_attribute("#game", "data-moves") == n
    # the best placement: placed at once, no question
    for city in worse["cities"]:
        page.click(f'#board .city.picked[data-city="{city}"]')
    for city in best["cities"]:
        page.click(f'#board .city.legal[data-city="{city}"]')
        page.wait_for_selector(f'#board .city.picked[data-city="{city}"]')
    page.click("#place-houses")
    assert page.locator("#chooser").is_hidden()
    wait_person(page, n)
    assert set(best["cities"]) <= set(api_view(page)["position"]["players"][0]["houses"])


def test_the_cartwright_says_which_carriage_its_points_and_that_it_ends_the_game(page):
    open_position(page, cartwright_position(), ["human", "random", "random"])
    close_with_the_cartwright_left(page)
    view = api_view(page)
    assert view["phase"] == "cartwright"
    choice = view["cartwright_choice"]
    assert choice["carriage"] == 6 and choice["take"]["carriage"] == 7 and choice["take"]["ends_game"]
    gain = choice["take"]["points"] - choice["decline"]["points"]
    help_text = page.inner_text("#phase-help")
    assert "7-carriage" in help_text and f"+{gain} point" in help_text and "game ends" in help_text
    assert "7-carriage" in page.inner_text('#moves button[data-move="cartwright"]')
    assert run_axe(page) == []                                    # the Cartwright phase
    # taking it ends the game: asked first
    page.click('#moves button[data-move="cartwright"]')
    assert "ends the game" in chooser_text(page)
    page.click("#chooser button.cancel")
    # declining it gives up the carriage's points: asked too, then done
    page.click('#moves button[data-move="no cartwright"]')
    text = chooser_text(page)
    assert "give up the 7-carriage" in text and f"{gain} point" in text
    assert api_view(page)["phase"] == "cartwright"             # nothing played by the questions
    before = page.get_attribute("#game", "data-moves")
    page.click('#chooser button[data-move="no cartwright"]')
    wait_person(page, before)
    assert api_view(page)["position"]["players"][0]["carriage"] == 6 and not api_view(page)["over"]


# ---------------------------------------------------------------- D2, D5, D8, D9, D11: marks and words

def test_fits_marks_only_while_a_card_can_be_drawn(page):
    open_position(page, reproduction_position(), ["human", "random", "random"])
    assert page.locator("#display .card.fits-route").count() >= 1          # the draw phase: marked
    to_close(page)                                                          # the houses phase
    view = api_view(page)
    route = view["position"]["players"][0]["route"]
    fitting = [c for c in view["position"]["display"] if c not in route and
               (adjacent(c, route[0]) or adjacent(c, route[-1]))]
    assert fitting, "the display has a card next to the closed route (the test needs one)"
    assert page.locator("#display .card.fits-route").count() == 0
    assert "fits" not in page.inner_text("#display") and "fits" not in page.inner_text("#deck-info")


def after_play_position() -> dict:
    """Seat 0 has played its card this turn (route Augsburg - Ingolstadt); München, in hand, fits both
    ends, as a second card with the Postal Carrier."""
    d = reproduction_position()
    d.update(phase="after_play")
    d["turn_state"].update(draws=1, plays=1)
    d["players"][0].update(route=["Augsburg", "Ingolstadt"], hand=["München", "Passau"])
    d["deck_size"] += 1
    return d


def test_a_warning_is_said_once_and_the_ends_are_named(page):
    open_position(page, after_play_position(), ["human", "random", "random"])
    page.click('#hand .card[data-city="München"]')
    text = chooser_text(page)
    assert "which end" in text
    assert text.count("This uses your Postal Carrier") == 1, text


def test_after_a_card_the_keyboard_is_on_stop_not_close(page):
    open_position(page, reproduction_position(), ["human", "random", "random"])
    click_move(page, '#display .card[data-move="draw Ulm"]')
    page.locator('#hand .card[data-city="Innsbruck"]').focus()
    page.keyboard.press("Enter")                                  # fits both ends: the menu, then Enter
    chooser_text(page)
    n = page.get_attribute("#game", "data-moves")
    page.keyboard.press("Enter")
    wait_person(page, n)
    assert "close" in [m["move"] for m in api_view(page)["legal"]]
    page.wait_for_function("document.activeElement && document.activeElement.dataset.move === 'stop'")


def test_the_hint_stars_the_hand_card_to_play(page):
    open_position(page, reproduction_position(), ["human", "random", "random"])
    click_move(page, '#display .card[data-move="draw Ulm"]')
    page.select_option("#hint-unit", "iterations")
    page.fill("#hint-budget", "300")
    page.click("#hint-button")
    page.wait_for_selector("#hint-options:not([hidden]) tbody tr")
    turn = page.request.get(f"/api/games/{page.get_attribute('#game', 'data-id')}").json()
    hand = set(turn["position"]["players"][0]["hand"])
    steps = page.locator("#hint-turn li").all_text_contents()
    plays = [(i + 1, s.split()[1]) for i, s in enumerate(steps) if s.split()[0] in ("left", "right", "new")
             and s.split()[1] in hand]
    assert plays, steps                               # the play phase: the turn starts with a card of the hand
    for step, city in plays:
        card = page.locator(f'#hand .card.hinted[data-city="{city}"]')
        assert card.count() == 1 and f"★{step}" in card.inner_text()


def test_placement_labels_split_the_houses_from_tiles_and_the_rules_fit_the_board(page):
    open_position(page, reproduction_position(), ["human", "random", "random"])
    to_close(page)
    for s, line in zip(api_view(page)["house_choice"]["sets"], page.locator("#houses-help li").all_text_contents()):
        k = len(s["cities"])
        assert f"{k} houses +{k}" in line or f"{k} house +{k}" in line, line
        assert f"+{s['points']} points in all" in line or (s["points"] == k and f"+{k} points" in line), line
    page.click("#rules-box summary")
    assert "free city" not in page.inner_text("#rules-box")        # the South board has none
    page.click("#new-game-box summary")
    page.select_option("#play-board", "north")
    before = page.get_attribute("#game", "data-id")
    start_game(page, ["human", "random"], seed=3)
    page.wait_for_selector(f'#game[data-waiting=person]:not([data-id="{before}"])')
    assert "free city" in page.inner_text("#rules-box")        # the North board has four


def test_a_which_official_line_names_no_card_nobody_has_seen(page):
    open_position(page, reproduction_position(), ["human", "random", "random"])
    page.select_option("#hint-unit", "iterations")
    page.fill("#hint-budget", "600")
    page.click("#hint-official-button")
    page.wait_for_selector("#hint-choices:not([hidden]) tbody tr")
    row = page.locator('#hint-choices tr[data-option="administrator"]')
    assert row.count() == 1
    text = row.inner_text()
    line = text.split("administrator", 1)[1] if "administrator," in text else ""
    assert "draw " not in line.split(";")[0], text     # after the new display: nothing drawn by name
    if "administrator" in text.split("\t")[-1]:
        assert "new display" in text, text


# ---------------------------------------------------------------- D4, D10: the phone and the controls

def in_view(page, sel) -> bool:
    return page.evaluate("""(sel) => { const r = document.querySelector(sel).getBoundingClientRect();
        return r.height > 0 && r.top >= -1 && r.bottom <= innerHeight + 1; }""", sel)


def test_the_phone_map_stays_in_view_with_the_hand_and_moves_and_is_panned_to_them(browser, server_url):
    context, pg, errors = new_context(browser, server_url, "phone")
    try:
        start_game(pg, ["human", "random"], seed=7)
        for _ in range(2):                                     # the forced Postmaster's two draws (turn 1)
            n = pg.get_attribute("#game", "data-moves")
            pg.locator('#display [data-move="draw deck"]').click()
            wait_person(pg, n)
        # the hand's cities are inside the map's box (it was panned once, on the empty hand of turn 1)
        hand = api_view(pg)["position"]["players"][0]["hand"]
        cities = list(hand) if isinstance(hand, list) else [c for c in hand]
        box = pg.locator("#board-scroll").bounding_box()
        centres = [pg.locator(f'#board .city[data-city="{c}"]').bounding_box() for c in cities]
        mx = sum(r["x"] + r["width"] / 2 for r in centres) / len(centres)
        my = sum(r["y"] + r["height"] / 2 for r in centres) / len(centres)
        # their middle is in the middle half of the box (or as near as the map's edge lets the box go)
        sx, sy, sx_max = pg.evaluate("""(() => { const b = document.querySelector('#board-scroll');
            return [b.scrollLeft, b.scrollTop, b.scrollWidth - b.clientWidth]; })()""")
        assert (sx, sy) != (0, 0), "the map was never panned"
        middle = box["x"] + box["width"] / 4 <= mx <= box["x"] + 3 * box["width"] / 4
        assert middle or sx in (0, sx_max), (cities, box, mx)
        assert box["y"] <= my <= box["y"] + box["height"], (cities, box, my)
        # the hand and the moves scrolled into view: the map is still on screen with them
        pg.evaluate("document.querySelector('#moves').scrollIntoView({block: 'end'})")
        for sel in ("#board-scroll", "#hand", "#moves"):
            assert in_view(pg, sel), sel
        # a choice in a menu does not scroll the page away from the map
        y = pg.evaluate("scrollY")
        n = pg.get_attribute("#game", "data-moves")
        card = pg.locator("#hand .card.legal").first
        card.click()
        menu = pg.locator("#chooser:not([hidden]) button.move")
        if menu.count():
            menu.first.click()
            wait_person(pg, n)
        # (unless the card ended the turn: then the page scrolls just enough to show Undo under it, issue 71)
        view = api_view(pg)
        ended = len(view["log"]) > int(n) and (view["to_move"] != 0 or view["log"][-1]["seat"] != 0 or
                                               any(e["seat"] != 0 for e in view["log"][int(n):]))
        assert (abs(pg.evaluate("scrollY") - y) < 5 or ended) and in_view(pg, "#board-scroll")
        assert run_axe(pg) == []
    finally:
        context.close()
    assert not errors, errors


@pytest.mark.parametrize("size", ["phone", "small", "large"])
def test_every_control_is_at_least_24_px_and_the_phones_main_ones_44(browser, server_url, size):
    context, pg, errors = new_context(browser, server_url, size)
    try:
        start_game(pg, ["human", "random"], seed=7)
        small = pg.evaluate("""() => [...document.querySelectorAll(
                '#board-area button, #view-play button, #view-play select, #view-play input[type=checkbox], ' +
                '#hint-panel button, #hint-panel select')]
            .filter((e) => e.offsetParent !== null && !e.closest('#rules-box:not([open]) .rules'))
            .map((e) => [e.id || e.className || e.textContent.trim(), e.getBoundingClientRect().height,
                         e.getBoundingClientRect().width])
            .filter(([, h, w]) => h < 24 || w < 24)""")
        assert small == [], small
        if size == "phone":
            for sel in ("#undo", "#hint-button", "#hint-official-button", "#step-bot", "#bot-speed", "#zoom-in",
                        "#zoom-out", "#zoom-reset"):
                b = pg.locator(sel).bounding_box()
                assert b["height"] >= 44 and b["width"] >= 44, (sel, b)
        assert pg.evaluate("document.documentElement.scrollWidth") <= SIZES[size][0]
    finally:
        context.close()
    assert not errors, errors


# ---------------------------------------------------------------- the turn signal and the bots' moves

def test_the_tab_title_says_whose_turn_and_an_opted_in_alert_rings(page):
    start_game(page, ["human", "random"], seed=6)
    assert "Your turn" in page.title()
    page.check("#turn-alert")
    page.select_option("#bot-speed", "step")
    assert page.evaluate("document.body.dataset.turnAlerts || '0'") == "0"
    for _ in range(20):                                  # the person's turn to its end
        view = api_view(page)
        if view["waiting_for"] == "bot":
            break
        legal = [m["move"] for m in view["legal"]]
        move = ("stop" if "stop" in legal else "draw deck" if "draw deck" in legal else
                next(m for m in legal if m.startswith("new ")))
        n = page.get_attribute("#game", "data-moves")
        page.click(f'#moves button[data-move="{move}"]')
        page.wait_for_selector(f'#game:not([data-moves="{n}"])')
    page.wait_for_function("document.title.includes('Seat 1 is playing')")
    for _ in range(20):
        if api_view(page)["waiting_for"] == "person":
            break
        n = page.get_attribute("#game", "data-moves")
        page.click("#step-bot")
        page.wait_for_selector(f'#game:not([data-moves="{n}"])')
    page.wait_for_function("document.title.includes('Your turn')")
    assert page.evaluate("document.body.dataset.turnAlerts") == "1"
    page.reload()
    page.wait_for_selector("body[data-ready=yes]")
    assert page.is_checked("#turn-alert")                 # the choice is kept


def test_bot_moves_travel_and_grow_the_route_with_a_line_naming_each(page):
    start_game(page, ["human", "greedy"], seed=12)
    page.evaluate("""() => { window.seenMotion = []; new MutationObserver((ms) => {
        for (const m of ms) for (const n of m.addedNodes)
          if (n.classList && (n.classList.contains('flying-card') || n.classList.contains('route-growth')))
            window.seenMotion.push(n.getAttribute('class')); })
        .observe(document.body, { childList: true, subtree: true }); }""")
    page.select_option("#bot-speed", "250")                 # fast: each move still shown
    lines = set()
    for _ in range(60):
        view = api_view(page)
        kinds = " ".join(page.evaluate("window.seenMotion"))
        if "flying-card" in kinds and "route-growth" in kinds and len(lines) >= 2:
            break
        if view["over"]:
            break
        legal = {m["move"]: m for m in view["legal"]}
        fit = [m for m, x in legal.items() if x["kind"] in ("left", "right") and not x["official"]]
        move = (fit[0] if fit else "stop" if "stop" in legal else
                "draw deck" if "draw deck" in legal else next(m for m, x in legal.items() if not x["official"]))
        n = page.get_attribute("#game", "data-moves")
        page.click(f'#moves button[data-move="{move}"]')
        confirm = page.locator(f'#chooser:not([hidden]) button[data-move="{move}"], '
                               '#chooser:not([hidden]) button.confirm')
        if confirm.count():
            confirm.first.click()
        if move == "stop":
            page.wait_for_function("document.querySelector('#bot-move').textContent.startsWith('Seat 1 (greedy)')")
            lines.add(page.inner_text("#bot-move"))
        wait_person(page, n)
    kinds = " ".join(page.evaluate("window.seenMotion"))
    assert "flying-card" in kinds and "route-growth" in kinds, kinds
    assert any("drew" in line for line in lines), lines


# ---------------------------------------------------------------- replay jumps

def test_replay_jumps_to_the_next_close_and_to_a_seats_turns(page):
    rec = play_game(thurn_ai.Rules(players=3), [make_bot("greedy", k) for k in (1, 2, 3)], seed=4)
    page.click("#tab-replay")
    page.fill("#replay-text", rec.to_json())
    page.click("#replay-open")
    page.wait_for_selector("#replay-pos:text-matches('^after move 0 of ')")
    n = len(rec.moves)
    summary_log = page.request.post("/api/replays", data={"text": rec.to_json()}).json()["log"]
    ends = [e["i"] + 1 for e in summary_log if e.get("close")]
    assert len(ends) >= 2
    page.click("#replay-next-close")
    page.wait_for_selector(f"#replay-pos:text-matches('^after move {ends[0]} of {n} ')")
    assert "closed" in page.inner_text("#log li.current") or page.locator("#log li.current .close-award").count()
    page.keyboard.press("]")
    page.wait_for_selector(f"#replay-pos:text-matches('^after move {ends[1]} of {n} ')")
    page.click("#replay-prev-close")
    page.wait_for_selector(f"#replay-pos:text-matches('^after move {ends[0]} of {n} ')")
    # seat 2's turns: each jump lands where seat 2 moves next, at the start of its turn
    page.select_option("#replay-seat", "2")
    starts = [e["i"] for k, e in enumerate(summary_log) if e["seat"] == 2 and
              (k == 0 or summary_log[k - 1]["seat"] != 2 or summary_log[k - 1]["turn"] != e["turn"])]
    later = [s for s in starts if s > ends[0]][:2]
    page.click("#replay-next-turn")
    page.wait_for_selector(f"#replay-pos:text-matches('^after move {later[0]} of {n} ')")
    assert page.inner_text("#replay-next-move").startswith("next: seat 2")
    page.keyboard.press(">")
    page.wait_for_selector(f"#replay-pos:text-matches('^after move {later[1]} of {n} ')")
    page.click("#replay-prev-turn")
    page.wait_for_selector(f"#replay-pos:text-matches('^after move {later[0]} of {n} ')")
    assert run_axe(page) == []
