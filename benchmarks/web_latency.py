"""``xo web``'s live path: from a move clicked in one page to the move painted in the opponent's page.

Starts an xo-devnet (ephemeral, free ports, alice's and bob's keys), ``xo web`` as a
player runs it, and a headless Chromium (Debian's, driven by Playwright) with two
windows (browser contexts): alice's page and bob's. They play --games whole games
(7 moves each, X winning). For every move, the pages note on the clock they share
when the cell was clicked and when the mark was first painted (the frame after the
board changed) in the opponent's page and in the mover's own page. Each page is
a window of its own: headless Chromium draws a background tab of a window lazily
(up to a second late), which would say nothing about a real screen.
The path measured is the whole one: the click, the page's POST, the server's check
against the REST API, signing, POST /batches, the commit, the devnet's websocket,
the server's follower, the server-sent event and the page's update.
Prints one JSON line: p50, p90 and max over every move, for each page.

    python benchmarks/web_latency.py --games 5
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

from playwright.sync_api import Page, expect, sync_playwright

from xo_devnet.spawn import DevnetProcess

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the checkout: the browser tests' settings are ours too
from tests.xo_web.browser import CHROMIUM_ARGS, MEASURE_SCRIPT

GAME = [5, 1, 3, 7, 4, 9, 6]


def painted(page: Page, space: int) -> float:
    deadline = time.monotonic() + 30
    while (seen := page.evaluate(f"window.__xo.seen['{space}']")) is None:  # polled: the CSP forbids eval
        if time.monotonic() > deadline:
            raise SystemExit(f"space {space} was never painted")
        time.sleep(0.005)
    return seen


def play(alice: Page, bob: Page, name: str) -> tuple[list[float], list[float]]:
    """One game; (click -> painted in the opponent's page, click -> painted in the own page) per move, in ms."""
    alice.fill("#new-game-name", name)
    alice.get_by_role("button", name="Create").click()
    expect(alice.locator("h1")).to_have_text(f"Game {name}")
    bob.goto(f"{bob.url.split('#')[0]}#/game/{name}")
    expect(bob.locator("h1")).to_have_text(f"Game {name}")
    for page in (alice, bob):
        page.evaluate("window.__xo = {clicks: {}, seen: {}}")
    opponent, own = [], []
    for index, space in enumerate(GAME):
        mover, watcher = (alice, bob) if index % 2 == 0 else (bob, alice)
        mover.locator(f'button.cell[data-space="{space}"]').click()
        clicked = mover.evaluate(f"window.__xo.clicks['{space}']")
        opponent.append(painted(watcher, space) - clicked)
        own.append(painted(mover, space) - clicked)
        expect(mover.locator("#move-note")).not_to_have_text("", timeout=30_000)  # the mover's POST has ended
    alice.goto(f"{alice.url.split('#')[0]}#/")
    return opponent, own


def summary(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    return {
        "p50_ms": round(statistics.median(ordered), 1),
        "p90_ms": round(ordered[int(0.9 * (len(ordered) - 1))], 1),
        "max_ms": round(ordered[-1], 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=5)
    parser.add_argument("--chromium", default=shutil.which("chromium") or "/usr/bin/chromium")
    parser.add_argument("--smoke", action="store_true", help="one game: checks it still runs")
    args = parser.parse_args()
    if args.smoke:
        args.games = 1
    xo = str(Path(sys.executable).parent / "xo")
    with DevnetProcess() as devnet:
        web = subprocess.Popen(
            [xo, "web", "--url", devnet.rest_url, "--key-dir", str(devnet.key_dir), "--port", "0"],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
        )  # fmt: skip
        try:
            address = web.stdout.readline().strip().removeprefix("xo web is serving ")
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(executable_path=args.chromium, args=CHROMIUM_ARGS, headless=True)
                pages = []
                for _ in range(2):
                    context = browser.new_context(viewport={"width": 1200, "height": 900})
                    context.add_init_script(MEASURE_SCRIPT)
                    pages.append(context.new_page())
                alice, bob = pages
                for page, player in ((alice, "alice"), (bob, "bob")):
                    page.goto(address)
                    page.select_option("#player", player)
                    expect(page.locator("#connection")).to_have_attribute("data-live", "true")
                opponent, own = [], []
                for number in range(args.games):
                    seen_by_opponent, seen_by_mover = play(alice, bob, f"latency-{number}")
                    opponent += seen_by_opponent
                    own += seen_by_mover
                browser.close()
        finally:
            web.terminate()
            web.wait(10)
    print(json.dumps({
        "benchmark": "web_latency",
        "moves": len(opponent),
        "click_to_opponent_page": summary(opponent),
        "click_to_own_page": summary(own),
    }))  # fmt: skip


if __name__ == "__main__":
    main()
