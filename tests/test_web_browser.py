"""The board page in a real browser: Debian's Chromium driven by Playwright, against a server running in a
thread on a loopback port. A person's clicks: start a game against `random` and play until a close, ask
for a hint, replay a record, set up a position and export it.

The browser is the system's Chromium (never a browser download). When it is missing and we are root with
apt-get (CI runs so on a clean machine), the session installs it; the tests are skipped, with the reason,
only where no browser can be had.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess

import pytest

sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed (pip install -e '.[test]')")
pytest.importorskip("starlette")

import thurn_ai
from thurn_ai.bots import make_bot
from thurn_ai.match import play_game
from thurn_ai.position import check_position, position_from_dict
from thurn_ai.web import BackgroundServer, create_app

from browser_driver import CHROMIUM_ARGS, choose_like_a_beginner

CHROMIUM = "/usr/bin/chromium"
TIMEOUT_MS = 20_000


def find_or_install_chromium() -> str:
    """The path of Debian's Chromium, installing the package when we can; pytest.skip saying why not."""
    found = shutil.which("chromium") or (CHROMIUM if os.path.exists(CHROMIUM) else None)
    if found:
        return found
    if not (hasattr(os, "geteuid") and os.geteuid() == 0 and shutil.which("apt-get")):
        pytest.skip("no Chromium (/usr/bin/chromium) and no way to install it here (needs root and apt-get: "
                    "apt-get install chromium)")
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    log = []
    for cmd in (["apt-get", "update"], ["apt-get", "install", "-y", "chromium"]):
        r = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=1500)
        log.append(r.stdout[-2000:] + r.stderr[-2000:])
    found = shutil.which("chromium") or (CHROMIUM if os.path.exists(CHROMIUM) else None)
    if not found:
        pytest.skip("Chromium could not be installed with apt-get: " + " ".join(log[-1].split())[-300:])
    return found


@pytest.fixture(scope="session")
def browser():
    path = find_or_install_chromium()
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=path, args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture(scope="session")
def server_url():
    with BackgroundServer(create_app()) as url:       # 127.0.0.1, a free port
        yield url


@pytest.fixture
def page(browser, server_url):
    context = browser.new_context(viewport={"width": 1400, "height": 900}, base_url=server_url)
    pg = context.new_page()
    pg.set_default_timeout(TIMEOUT_MS)
    errors = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    pg.goto("/")
    pg.wait_for_selector("body[data-ready=yes]")
    yield pg
    context.close()
    assert not errors, f"the page raised: {errors}"


def start_game(page, seats, seed):
    for i, spec in enumerate(seats):
        page.fill(f"#seat-{i}", spec)
    page.fill("#play-seed", str(seed))
    page.select_option("#bot-speed", "0")
    page.click("#new-game")
    page.wait_for_selector("#game[data-waiting=person]")


def click_and_wait(page, locator, move=None):
    """Click something that makes a move (choosing `move` when the click offers several), then wait until
    it is the person's turn again (or the end)."""
    n = page.get_attribute("#game", "data-moves")
    locator.click()
    chooser = page.locator("#chooser:not([hidden]) button[data-move]")
    if chooser.count():
        (page.locator(f'#chooser button[data-move="{move}"]') if move else chooser.first).click()
    page.wait_for_selector(f'#game[data-waiting=person]:not([data-moves="{n}"]), #game[data-waiting=nobody]')


def offered(page) -> list[str]:
    return [b.get_attribute("data-move") for b in page.locator("#moves button[data-move]").all()]


# ---------------------------------------------------------------- the tests

def test_the_page_draws_the_board_with_labels_and_a_legend(page):
    cities = thurn_ai.Rules().load_board().cities
    page.wait_for_selector("#board .city")
    assert page.locator("#board .city").count() == len(cities)
    assert page.locator("#board .labels .name").all_text_contents() == list(cities)
    # every city says its province in text, and the legend names every province
    assert all(t.strip() for t in page.locator("#board .city .code").all_text_contents())
    legend = page.inner_text("#legend")
    for p in thurn_ai.Rules().load_board().provinces:
        assert p in legend


def test_play_against_random_by_clicking_until_a_close(page):
    start_game(page, ["human", "random"], seed=5)
    board = thurn_ai.Rules().load_board()
    game_id = page.get_attribute("#game", "data-id")
    for _ in range(80):
        if page.locator("#log li.close.seat0").count():
            break
        view = page.request.get(f"/api/games/{game_id}").json()
        offered_now = offered(page)
        # exactly the legal moves are offered (a new route that throws one away last), and hand cards that
        # cannot be played are not clickable
        assert sorted(offered_now) == sorted(m["move"] for m in view["legal"])
        if view["position"]["players"][0]["route"]:
            kinds = [m.split()[0] for m in offered_now]
            assert kinds == sorted(kinds, key=lambda k: k == "new")
        if not any(m["kind"] in ("left", "right", "new", "discard", "horse") for m in view["legal"]):
            assert page.locator("#hand .card:not([disabled])").count() == 0
        move = choose_like_a_beginner(view, board)
        kind, _, city = move.partition(" ")
        if kind == "house":                                   # on the map
            click_and_wait(page, page.locator(f'#board .city.legal[data-city="{city}"]'), move)
        elif kind in ("left", "right", "new"):                # a card of the hand
            click_and_wait(page, page.locator(f'#hand .card.legal[data-city="{city}"]').first, move)
        elif kind == "draw":                                  # the display or the deck
            click_and_wait(page, page.locator(f'#display [data-move="{move}"]').first, move)
        else:
            click_and_wait(page, page.locator(f'#moves button[data-move="{move}"]'), move)
    close = page.locator("#log li.close.seat0").first
    assert close.count(), "seat 0 did not close a route"
    assert "closed" in close.inner_text() and "points" in close.inner_text()
    assert page.locator("#board .house.seat0").count() >= 1          # the houses are on the map


def test_a_hint_shows_ranked_options_and_marks_the_recommended_turn(page):
    start_game(page, ["human", "random"], seed=4)
    click_and_wait(page, page.locator('#display [data-move="draw deck"]'))       # the forced Postmaster:
    click_and_wait(page, page.locator("#display .card.legal:not(.deck)").first)  # two cards, then play one
    page.select_option("#hint-unit", "seconds")
    page.fill("#hint-budget", "1")
    page.click("#hint-button")
    page.wait_for_selector("#hint-running:not([hidden])")                        # the progress indicator
    page.locator("#moves button[data-move]").first.hover()                       # the page stays usable
    page.wait_for_selector("#hint-options:not([hidden]) tbody tr")
    rows = page.locator("#hint-options tbody tr").all()
    best = rows[0].get_attribute("data-move")
    assert best in offered(page)
    shares = [float(r.locator("td").nth(2).inner_text().rstrip("%")) for r in rows]
    assert shares == sorted(shares, reverse=True)
    assert "Recommended" in page.inner_text("#hint-turn")
    assert page.locator(f'#moves button.hinted[data-move="{best}"]').count() == 1
    city = best.split(" ", 1)[1]            # the first decision is a card to play: it has a city
    assert page.locator(f'#board .city[data-city="{city}"] .hint-ring').count() == 1


def test_a_record_opens_and_steps(page, tmp_path):
    recs = [play_game(thurn_ai.Rules(players=2), [make_bot("greedy", 1), make_bot("random", 2)], seed=8 + k)
            for k in range(2)]
    path = tmp_path / "records.jsonl"
    path.write_text("".join(r.to_json() + "\n" for r in recs), encoding="utf-8")
    page.click("#tab-replay")
    page.set_input_files("#replay-file", str(path))
    page.wait_for_function("document.querySelector('#replay-text').value.length > 0")
    page.fill("#replay-game", "2")
    page.click("#replay-open")
    page.wait_for_selector("#replay:not([hidden])")
    n = len(recs[1].moves)
    for k in range(1, 4):
        page.click("#replay-next")
        page.wait_for_selector(f"#replay-pos:text-matches('^after move {k} of {n} ')")
        assert recs[1].moves[k - 1] in page.inner_text("#replay-pos")
    page.locator("#replay-slider").evaluate(f"el => {{ el.value = {n}; el.dispatchEvent(new Event('input')); }}")
    page.wait_for_selector(f"#replay-pos:text-matches('^after move {n} of {n} ')")
    assert "Game over" in page.inner_text("#replay-pos")
    page.click("#replay-prev")
    page.wait_for_selector(f"#replay-pos:text-matches('^after move {n - 1} of {n} ')")
    # a hint at this move
    page.select_option("#hint-unit", "iterations")
    page.fill("#hint-budget", "200")
    page.click("#hint-button")
    page.wait_for_selector("#hint-options:not([hidden]) tbody tr")
    # a broken record: a clear message, and the server goes on
    page.fill("#replay-text", '{"seed": 1, "rules": {"players": 2}, "bots": ["a", "b"], "moves": ["close"]}')
    page.fill("#replay-game", "1")
    page.click("#replay-open")
    page.wait_for_selector("#replay-error:text-matches('does not replay')")
    assert "Traceback" not in page.inner_text("body")


def test_set_up_a_position_by_clicking_and_export_it(page):
    page.click("#tab-setup")
    page.wait_for_selector("#setup-status.bad")
    assert page.locator('[data-problems-for="display"] .problem').count() >= 1   # next to its field
    display = ["Ulm", "Basel", "Zürich", "Linz", "Pilsen", "Lodz"]
    for c in display:
        page.click(f'#board .city[data-city="{c}"]')
    page.check('input[name=setup-target][value="seat0.hand"]')
    for c in ["München", "Augsburg", "Kempten"]:
        page.click(f'#board .city[data-city="{c}"]')
    page.check('input[name=setup-target][value="seat0.route"]')
    page.click('#board .city[data-city="Ingolstadt"]')
    page.click('#board .city[data-city="Lodz"]')                                  # no road: a problem
    page.wait_for_selector('[data-problems-for="seat0.route"] .problem:text-matches("not joined by a road")')
    page.click('button[aria-label="remove Lodz from seat 0 route"]')
    page.click('#board .city[data-city="Regensburg"]')
    page.check('input[name=setup-target][value="seat1.known"]')
    page.fill("#setup-hand-size-1", "2")
    page.dispatch_event("#setup-hand-size-1", "change")
    page.click('#board .city[data-city="Stuttgart"]')
    page.wait_for_selector("#setup-status.ok")
    page.click("#setup-export")
    page.wait_for_function("document.querySelector('#setup-json').value.includes('thurn-ai position')")
    exported = json.loads(page.input_value("#setup-json"))
    assert check_position(exported) == []
    state = position_from_dict(exported, seed=1)
    assert state.display() == display
    assert sorted(state.hand(0)) == sorted(["München", "Augsburg", "Kempten"])
    assert state.route(0) == ["Ingolstadt", "Regensburg"]
    assert exported["players"][1]["hand_size"] == 2 and exported["players"][1]["known"] == ["Stuttgart"]
    assert page.locator("#setup-download:not([hidden])").count() == 1
    # a file that is not JSON: a clear message in the page
    page.fill("#setup-json", "{ not json")
    page.click("#setup-import")
    page.wait_for_selector("#error:not([hidden])")
    assert "not valid JSON" in page.inner_text("#error")
