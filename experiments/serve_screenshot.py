"""The screenshots of `thurn-ai serve` in docs/serve.md: a game against mcts in the middle, with a hint
shown, at four window sizes (a phone at 390x844, 1024x768, 1440x900, 1920x1080); from 1024x768 up each
shows what a turn needs without scrolling: the players' strip, the board, the turn, the display, the hand,
the moves and the hint. The phone's picture shows the map zoomed (as a phone opens it), panned to the
hint's city, and the page scrolled to the hand and the moves, which the map stays above.

    python experiments/serve_screenshot.py [--out-dir docs/img] [--seed 7]

Runs the web app on a loopback port in a thread and drives Debian's Chromium (apt-get install chromium)
with Playwright: seat 0 plays a simple route-building game by clicking until it has closed two routes
and has a card to play, then asks for a hint (3000 iterations, seed 0: the same picture each run). The
pictures are written atomically: serve.png (1440x900, the README's), serve-390x844.png, serve-1024x768.png,
serve-1920x1080.png.
"""
from __future__ import annotations

import argparse
from pathlib import Path

from playwright.sync_api import sync_playwright

import thurn_ai
from thurn_ai.fileio import atomic_write_bytes
from thurn_ai.web import BackgroundServer, create_app
from thurn_ai.web.page_driver import CHROMIUM_ARGS, choose_like_a_beginner

ROOT = Path(__file__).resolve().parent.parent

SIZES = [(390, 844), (1024, 768), (1440, 900), (1920, 1080)]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out-dir", default=str(ROOT / "docs/img"))
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--chromium", default="/usr/bin/chromium")
    args = ap.parse_args()
    out = Path(args.out_dir)
    board = thurn_ai.Rules().load_board()
    with BackgroundServer(create_app()) as url, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=args.chromium, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1440, "height": 900}, base_url=url)
        page.set_default_timeout(30_000)
        page.goto("/")
        page.wait_for_selector("body[data-ready=yes]")
        page.fill("#seat-1", "mcts(iterations=300)")
        page.fill("#play-seed", str(args.seed))
        page.select_option("#bot-speed", "0")
        page.click("#new-game")
        page.wait_for_selector("#game[data-waiting=person]")
        game_id = page.get_attribute("#game", "data-id")
        for _ in range(200):
            view = page.request.get(f"/api/games/{game_id}").json()
            me = view["position"]["players"][0]
            if me["closes"] >= 2 and view["phase"] == "play" and me["route"]:
                break
            move = choose_like_a_beginner(view, board)
            n = page.get_attribute("#game", "data-moves")
            if view["phase"] == "houses":         # houses are picked on the map in any order, then placed
                for city in view["house_choice"]["sets"][0]["cities"]:
                    page.locator(f'#board .city.legal[data-city="{city}"]').click()
                    page.wait_for_selector(f'#board .city.picked[data-city="{city}"]')
                page.click("#place-houses")
                confirm = page.locator("#chooser:not([hidden]) button.confirm")   # the last houses: asked
                if confirm.count():
                    confirm.click()
                page.wait_for_selector(f'#game[data-waiting=person]:not([data-moves="{n}"]), '
                                       '#game[data-waiting=nobody]')
                continue
            if view["phase"] == "discard":        # the cards to discard are picked in the hand, then discarded
                hand = sorted(me["hand"])
                for k, city in enumerate(hand[:len(hand) - 3]):
                    page.locator(f'#hand .card[data-city="{city}"]:not([aria-pressed=true])').first.click()
                    page.wait_for_selector(f"#hand .card[aria-pressed=true] >> nth={k}")
                page.click("#place-discards")
                page.wait_for_selector(f'#game[data-waiting=person]:not([data-moves="{n}"]), '
                                       '#game[data-waiting=nobody]')
                continue
            page.locator(f'#moves button[data-move="{move}"]').click()
            chooser = page.locator(f'#chooser:not([hidden]) button[data-move="{move}"]')
            if chooser.count():
                chooser.click()
            page.wait_for_selector(f'#game[data-waiting=person]:not([data-moves="{n}"]), #game[data-waiting=nobody]')
        page.select_option("#hint-unit", "iterations")
        page.fill("#hint-budget", "3000")
        page.click("#hint-button")
        page.wait_for_selector("#hint-options:not([hidden]) tbody tr")
        for w, h in SIZES:
            page.set_viewport_size({"width": w, "height": h})
            page.mouse.move(0, 0)
            if w < 600:            # a phone: the map zoomed (as the page starts on a phone), on the hint's city
                page.click("#zoom-reset")
                page.click("#zoom-in")
                page.click("#zoom-in")
                page.evaluate("""() => {
                    const ring = document.querySelector('#board .hint-ring')
                      || document.querySelector('#board .route-ring');
                    const box = document.querySelector('#board-scroll');
                    if (ring) { const r = ring.getBoundingClientRect(), b = box.getBoundingClientRect();
                      box.scrollLeft += r.left - b.left - b.width / 2; box.scrollTop += r.top - b.top - b.height / 2; }
                    window.scrollTo(0, 0);
                    document.querySelector('#moves').scrollIntoView({ block: 'end' }); }""")
            else:
                page.click("#zoom-reset")
                page.evaluate("window.scrollTo(0, 0)")
            page.wait_for_timeout(300)
            name = "serve.png" if (w, h) == (1440, 900) else f"serve-{w}x{h}.png"     # serve.png: the README's
            atomic_write_bytes(out / name, page.screenshot())
            print(f"wrote {out / name}")
        browser.close()


if __name__ == "__main__":
    main()
