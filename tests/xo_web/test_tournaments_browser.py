"""The Tournaments page in a real browser (headless Chromium) against xo-devnet: alice joins a tournament with a
hostile name, takes part, opens her match from the page, and sees the standings and the payout arrive live.

Bob, in another home, is a ``chips tournament play --bot`` process. Alice's moves are
played through the server's API while her channel's page is open (the channel page's
own board is the staked match tests' business); the tournament page is read after each
block, so the result, the standings and the prize appear on it by themselves.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Iterator

import pytest

from tests.xo_cli.devnet_play import Running
from tests.xo_web.browser import launched_chromium, open_windows

try:
    from playwright.sync_api import expect
except ImportError:  # the test extra is not installed: the browser fixture says so (CI fails instead)
    expect = None

SECONDS = 30.0
NAME = "<b>cup</b> & 'x'"


@pytest.fixture(scope="module")
def broker_url(devnet) -> Iterator[str]:
    url = devnet.ready.get("broker_url")
    if not url:
        pytest.skip("this xo-devnet runs no broker")
    yield url


@pytest.fixture(scope="module")
def address(devnet, broker_url):
    web = Running("web", "--url", devnet.rest_url, "--key-dir", str(devnet.key_dir), "--port", "0",
                  "--broker", broker_url)  # fmt: skip
    try:
        yield web.lines(1)[0].removeprefix("xo web is serving ")
    finally:
        web.stop()


@pytest.fixture(scope="module")
def browser():
    yield from launched_chromium(SECONDS)


def chips(devnet, who: str, *argv: str) -> list[str]:
    return [sys.executable, "-m", "chips_cli.main", "--url", devnet.rest_url, "--key-dir", str(devnet.key_dir),
            "--username", who, *argv]  # fmt: skip


def test_alice_joins_takes_part_and_sees_the_payout_live(browser, address, devnet, broker_url):
    terms = ("--game", "xo", "--format", "swiss", "--rounds", "1", "--buy-in", "5", "--players", "2..2",
             "--join-for", "5m", "--round-for", "30s", "--prizes", "100")  # fmt: skip
    made = subprocess.run(chips(devnet, "bob", "tournament", "create", NAME, *terms), capture_output=True, text=True,
                          timeout=60, check=False)  # fmt: skip
    assert made.returncode == 0, made.stderr
    errors: list[str] = []
    contexts, (alice,) = open_windows(browser, address, ("alice",), errors, {"width": 1280, "height": 900})
    bot = None
    try:
        alice.get_by_role("link", name="Tournaments", exact=True).click()
        card = alice.locator("article.tournament").filter(has=alice.locator("h2", has_text="<b>cup</b>"))
        expect(card.locator("h2")).to_have_text(NAME)  # the name as text, never markup
        expect(card.locator(".tournament-status")).to_have_text("Joining: 0 in, pool 0.")
        card.get_by_role("button", name="Join (5 chips)").click()
        expect(card.locator(".tournament-status")).to_have_text("Joining: 1 in, pool 5.")
        assert subprocess.run(chips(devnet, "bob", "tournament", "join", NAME), capture_output=True, timeout=60,
                              check=False).returncode == 0  # fmt: skip
        playing = chips(devnet, "bob", "tournament", "play", NAME, "--bot", "random", "--broker", broker_url)
        bot = subprocess.Popen(playing, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        card.get_by_role("button", name="Take part").click()
        link = card.get_by_role("link", name="Play your match")
        expect(link).to_be_visible()
        channel = link.get_attribute("href").rsplit("/", 1)[1]
        link.click()
        expect(alice.locator("h1")).to_contain_text("round 1 board 0")
        play_out(address, alice, channel)
        alice.get_by_role("link", name="Tournaments", exact=True).click()
        expect(card.locator(".tournament-status")).to_have_text("Closed: the pool is paid out.")
        expect(card.locator("table.tournament-standings tbody tr")).to_have_count(2)
        expect(card).to_contain_text("Paid: ")
        assert bot.wait(SECONDS) == 0
    finally:
        if bot is not None and bot.poll() is None:
            bot.kill()
            bot.wait()
        for context in contexts:
            context.close()
    assert errors == [], "\n".join(errors)



def test_an_rps_tournament_card_says_its_matches_are_first_to_n(browser, address, devnet):
    terms = ("--game", "rps", "--first-to", "3", "--format", "knockout", "--buy-in", "5", "--players", "2..4",
             "--join-for", "5m", "--round-for", "30s", "--prizes", "100")  # fmt: skip
    made = subprocess.run(chips(devnet, "bob", "tournament", "create", "rps three", *terms), capture_output=True,
                          text=True, timeout=60, check=False)  # fmt: skip
    assert made.returncode == 0, made.stderr
    errors: list[str] = []
    contexts, (alice,) = open_windows(browser, address, ("alice",), errors, {"width": 1280, "height": 900})
    try:
        alice.get_by_role("link", name="Tournaments", exact=True).click()
        card = alice.locator("article.tournament").filter(has=alice.locator("h2", has_text="rps three"))
        expect(card).to_contain_text(
            "rock-paper-scissors first to 3 (at most 5 rounds a match), knockout, buy-in 5"
        )
    finally:
        for context in contexts:
            context.close()
    assert errors == [], "\n".join(errors)

def play_out(address: str, page, channel: str) -> None:
    """Alice's moves until her match is over: the first free space, through the page's own API."""
    ends = time.monotonic() + SECONDS
    while time.monotonic() < ends:
        view = page.evaluate("async () => (await fetch('/api/chips?player=alice')).json()")
        mine = next(c for c in view["channels"] if c["id"] == channel)
        if mine["status"] == "closed":
            return
        match = mine.get("match")
        if match and match.get("wanted") and match["wanted"]["kind"] == "xo":
            space = match["state"]["board"].index("-") + 1
            page.evaluate(
                """async ([channel, space]) => {
                    const token = document.querySelector('meta[name="xo-token"]').content;
                    await fetch('/api/chips/move', {method: 'POST', headers: {'Content-Type': 'application/json',
                        'X-XO-Token': token}, body: JSON.stringify({player: 'alice', channel, space})});
                }""",
                [channel, space],
            )
        time.sleep(0.2)
    raise AssertionError(f"alice's match did not end within {SECONDS:g} s: {json.dumps(mine)[:500]}")
