"""The screenshot of the board's "Review this game" in docs/review.md: examples/review_game.jsonl opened in the
Replay view, reviewed at the default budget, the first blunder selected (the position before it, the better
move ringed on the board).

    python experiments/review_screenshot.py [--out docs/img/review.png] [--budget 3000]

Runs the web app on a loopback port in a thread and drives Debian's Chromium with Playwright (as
experiments/serve_screenshot.py does). The review cache is a temporary folder (the review is made each run),
or --cache DIR (the folder `thurn-ai review` used: THURN_AI_CACHE=DIR thurn-ai review RECORD makes it
instant). The picture is written atomically.
"""
from __future__ import annotations

import argparse
import os
import tempfile
from pathlib import Path

from playwright.sync_api import sync_playwright

from thurn_ai.fileio import atomic_write_bytes
from thurn_ai.web import BackgroundServer, create_app
from thurn_ai.web.page_driver import CHROMIUM_ARGS

ROOT = Path(__file__).resolve().parent.parent


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=str(ROOT / "docs/img/review.png"))
    ap.add_argument("--record", default=str(ROOT / "examples/review_game.jsonl"))
    ap.add_argument("--budget", type=int, default=3000)
    ap.add_argument("--chromium", default="/usr/bin/chromium")
    ap.add_argument("--cache", default=None, help="THURN_AI_CACHE for the review (default: a temporary folder)")
    args = ap.parse_args()
    text = Path(args.record).read_text(encoding="utf-8")
    with tempfile.TemporaryDirectory() as cache:
        os.environ["THURN_AI_CACHE"] = args.cache or cache
        with BackgroundServer(create_app()) as url, sync_playwright() as p:
            browser = p.chromium.launch(executable_path=args.chromium, args=CHROMIUM_ARGS)
            page = browser.new_page(viewport={"width": 1400, "height": 1050}, base_url=url)
            page.goto("/")
            page.wait_for_selector("body[data-ready=yes]")
            page.click("#tab-replay")
            page.fill("#replay-text", text)
            page.click("#replay-open")
            page.wait_for_selector("#replay:not([hidden])")
            page.fill("#review-budget", str(args.budget))
            page.click("#review-button")
            page.wait_for_selector("#review-graph", timeout=900_000)
            blunders = page.locator("#review-list li.review-blunder button")
            worst = blunders.first if blunders.count() else page.locator("#review-list li button").first
            at = int(worst.get_attribute("data-index"))
            worst.click()
            page.wait_for_selector(f"#replay-pos:text-matches('^after move {at} of ')")
            page.wait_for_timeout(500)
            atomic_write_bytes(args.out, page.screenshot(full_page=True))
            browser.close()
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
