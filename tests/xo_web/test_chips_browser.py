"""Chips in a real browser (headless Chromium) against xo-devnet and its broker: alice and bob stake a match.

alice opens a channel from her Chips page, bob sees it open to him and joins from his,
both press Play, and they play XO for 10 chips, and a round of rps for 5 with the throw
buttons and keys: each move reaches the other page through the broker (the server plays
``chips play``'s match for each page), with the stake and both balances shown. The
match concludes on chain by itself; the balances the chain holds afterwards are the
final state's. Another channel, challenged from the command line, shows its countdown
in the opponent's list. Screenshots go to a directory under the test's tmp path (its
path is printed).
"""

from __future__ import annotations

import re
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator

import pytest

from chips_client.chain import RestChain
from client_core.rest import RestClient
from tests.xo_cli.devnet_play import Running
from tests.xo_web.browser import SECONDS, launched_chromium, open_windows, tofu

try:
    from playwright.sync_api import Page, expect
except ImportError:  # the test extra is not installed: the browser fixture says so (CI fails instead)
    Page = expect = None

MOVE_SECONDS = 20.0


@pytest.fixture(scope="module")
def broker_url(devnet, tmp_path_factory) -> Iterator[str]:
    """xo-devnet's own broker, or Debian's mosquitto where this xo-devnet embeds none."""
    url = devnet.ready.get("broker_url")
    if url:
        yield url
        return
    from tests.mosquitto import running_mosquitto  # noqa: PLC0415 - only without xo-devnet's broker

    with running_mosquitto(tmp_path_factory.mktemp("broker")) as mosquitto:
        yield f"mqtt://127.0.0.1:{mosquitto.port}"


@pytest.fixture(scope="module")
def address(devnet, broker_url):
    """``xo web`` as a player runs it, against the devnet and the broker, with alice's and bob's keys."""
    web = Running("web", "--url", devnet.rest_url, "--key-dir", str(devnet.key_dir), "--port", "0",
                  "--broker", broker_url)  # fmt: skip
    try:
        yield web.lines(1)[0].removeprefix("xo web is serving ")
    finally:
        web.stop()


@pytest.fixture(scope="module")
def browser():
    yield from launched_chromium(MOVE_SECONDS)


@pytest.fixture(scope="module")
def screenshots(tmp_path_factory):
    folder = tmp_path_factory.mktemp("screenshots")
    print(f"screenshots in {folder}")
    return folder


@pytest.fixture
def pages(browser, address):
    """alice's page and bob's page, each in a window of its own (see ``open_windows``), each at its Chips view."""
    errors: list[str] = []
    contexts, opened = open_windows(browser, address, ("alice", "bob"), errors, {"width": 1280, "height": 900})
    for page in opened:
        page.get_by_role("link", name="Chips", exact=True).click()
    for page in opened:
        expect(page.locator("#chips-balance")).to_contain_text("You hold")
    yield tuple(opened)
    for context in contexts:
        context.close()
    assert errors == [], "\n".join(errors)


def balances_on_chain(devnet) -> dict[str, int]:
    keys = {name: (devnet.key_dir / f"{name}.pub").read_text().strip() for name in ("alice", "bob")}
    with RestClient(devnet.rest_url) as client:
        chain = RestChain(client, None)
        return {name: chain.balance(key) for name, key in keys.items()}


def open_channel(
    alice: Page, name: str, stake: int, deposit: int, rounds: int, challenge: int, game: str = "xo"
) -> str:
    alice.fill("#channel-name", name)
    alice.select_option("#channel-opponent", "bob")
    alice.select_option("#channel-game", game)
    for field, value in (("stake", stake), ("deposit", deposit), ("rounds", rounds), ("challenge", challenge)):
        alice.fill(f"#channel-{field}", str(value))
    alice.get_by_role("button", name="Open the channel").click()
    expect(alice.locator("h1")).to_have_text(f"Channel {name}")
    return alice.url.rsplit("/", 1)[1]


def join(bob: Page, ident: str) -> None:
    item = bob.locator(f'li.channel[data-channel="{ident}"]')
    expect(item.locator(".channel-status")).to_have_text("Open to you: join to pay your deposit in.")  # live
    item.get_by_role("button", name="Join").click()
    expect(bob.locator("#channel-status")).to_have_text("Funded: the match is on.")


def take(mover: Page, watcher: Page, space: int, mark: str) -> float:
    """Play ``space`` in ``mover``'s page; the milliseconds from the click to the mark painted in ``watcher``'s."""
    expect(mover.locator(".board")).to_have_attribute("data-wanted", "true")
    mover.locator(f'button.cell[data-space="{space}"]').click()
    expect(watcher.locator(f'button.cell[data-space="{space}"]')).to_have_attribute("data-mark", mark)
    clicked = mover.evaluate(f"window.__xo.clicks['{space}']")
    deadline = time.monotonic() + SECONDS
    while (seen := watcher.evaluate(f"window.__xo.seen['{space}']")) is None and time.monotonic() < deadline:
        time.sleep(0.01)
    assert seen is not None, f"space {space} never painted"
    return seen - clicked


def test_alice_and_bob_stake_an_xo_match_in_two_pages_and_the_chain_pays_the_final_state(pages, devnet, screenshots):
    alice, bob = pages
    before = balances_on_chain(devnet)
    expect(alice.locator("#chips-balance")).to_have_text(f"You hold {before['alice']} chips, not counting what is "
                                                         "locked in channels.")  # fmt: skip
    ident = open_channel(alice, "stakes", stake=10, deposit=50, rounds=1, challenge=60)
    expect(alice.locator("#channel-status")).to_have_text("Waiting for bob's deposit.")
    join(bob, ident)
    expect(alice.locator("#channel-status")).to_have_text("Funded: the match is on.")  # live, from the block
    for page in (alice, bob):
        page.get_by_role("button", name="Play").click()
    expect(alice.locator(".stake")).to_have_text("10 chips a game")
    expect(bob.locator(".balance-mine")).to_have_text("50 chips")

    delays = [
        take(mover, watcher, space, "X" if mover is alice else "O")
        for mover, watcher, space in ((alice, bob, 1), (bob, alice, 4), (alice, bob, 2), (bob, alice, 5))
    ]
    print(f"staked move, click to the other page's paint (ms): median {statistics.median(delays):.0f}, "
          f"each {', '.join(f'{d:.0f}' for d in delays)}")  # fmt: skip
    bob.keyboard.press("6")  # typed on bob's page while it is not his move: said in words, nothing sent
    expect(bob.locator("#chips-error")).to_have_text("It is not your move: wait for your opponent.")
    alice.screenshot(path=screenshots / "chips-match-alice.png", full_page=True)
    take(alice, bob, 3, "X")

    over = "The match is over, closing on you 60, bob 40: you won the match 1-0."
    expect(alice.locator("#chips-position")).to_have_text(over)
    expect(bob.locator(".balance-mine")).to_have_text("40 chips")
    expect(alice.locator("#channel-status")).to_have_text("Closed: you were paid 60 chips, bob 40.")
    expect(bob.locator("#channel-status")).to_have_text("Closed: you were paid 40 chips, alice 60.")
    expect(alice.locator("#chips-log")).to_contain_text("you (X) took space 3 (C1) and won game 1 of 1")
    expect(bob.locator("#chips-log")).to_contain_text("alice (X) took space 3 (C1) and won game 1 of 1")
    expect(alice.locator("#chips-log li").first).to_have_text("the channel is concluded")
    after = balances_on_chain(devnet)
    assert after == {"alice": before["alice"] + 10, "bob": before["bob"] - 10}
    alice.screenshot(path=screenshots / "chips-concluded-alice.png", full_page=True)
    assert tofu(alice) == []
    bob.get_by_role("link", name="Transactions").click()  # what the chain holds of the channel: three transactions
    said = bob.locator("table.transactions tbody tr td:last-child")
    expect(said).to_have_count(3)
    short = ident[:8]
    assert [text.split(":")[0] for text in said.all_inner_texts()] == [
        f"chips open {short}", f"chips join {short}", f"chips conclude {short}"
    ]
    alice.reload()  # the closed channel's page, read afresh: no match runs, so no empty "The match" heading
    expect(alice.locator("#channel-status")).to_have_text("Closed: you were paid 60 chips, bob 40.")
    expect(alice.locator("#chips-log-heading")).to_be_hidden()
    for view in ("channel", "chips"):
        if view == "chips":
            alice.get_by_role("link", name="Chips", exact=True).click()
            expect(alice.locator(f'li.channel[data-channel="{ident}"]')).to_be_visible()
        alice.set_viewport_size({"width": 360, "height": 760})
        alice.screenshot(path=screenshots / f"{view}-360px.png", full_page=True)
        assert alice.evaluate("document.documentElement.scrollWidth") <= 360  # nothing wider than the screen


def test_a_challenge_counts_down_in_the_challenged_players_list(pages, devnet, screenshots):
    alice, bob = pages
    ident = open_channel(alice, "stall", stake=5, deposit=20, rounds=1, challenge=600)
    join(bob, ident)
    alice.get_by_role("button", name="Play").click()
    expect(alice.locator(".board")).to_have_attribute("data-wanted", "true")
    alice.locator('button.cell[data-space="5"]').click()
    expect(alice.locator(".board")).to_have_attribute("data-wanted", "false")
    expect(alice.locator('button.cell[data-space="5"]')).to_have_attribute("data-mark", "X")
    # bob never plays; alice challenges from the command line (her store is the one her page's match keeps)
    challenged = subprocess.run(
        [sys.executable, "-m", "chips_cli.main", "--url", devnet.rest_url, "--key-dir", str(devnet.key_dir),
         "--username", "alice", "challenge", "stall"],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert challenged.returncode == 0, challenged.stderr
    bob.get_by_role("link", name="← Your chips").click()
    status = bob.locator(f'li.channel[data-channel="{ident}"] .channel-status')
    expect(status).to_contain_text("alice challenged you: answer before ")
    shown = status.locator(".countdown").inner_text()
    found = re.fullmatch(r" ?before (\d\d:\d\d:\d\d) \(((?:9|10) min (\d+) s) left\)\.", shown)  # as commands say
    assert found, shown
    at, first = found.group(1, 2)
    assert 590 <= int(first.split()[0]) * 60 + int(found.group(3)) <= 600
    expect(status.locator(".countdown")).not_to_have_text(f" before {at} ({first} left).", timeout=SECONDS * 1000)
    bob.screenshot(path=screenshots / "chips-list-bob.png", full_page=True)


def test_alice_and_bob_stake_a_round_of_rock_paper_scissors_with_the_throw_buttons(pages, devnet):
    alice, bob = pages
    before = balances_on_chain(devnet)
    ident = open_channel(alice, "throws", stake=5, deposit=20, rounds=1, challenge=60, game="rps")
    join(bob, ident)
    for page in (alice, bob):
        page.get_by_role("button", name="Play").click()
    expect(alice.locator(".stake")).to_have_text("5 chips a round")
    expect(alice.locator(".board")).to_have_count(0)
    alice.get_by_role("button", name="rock").click()  # alice proposes: her throw sealed, bob answers in the open
    expect(bob.locator("#chips-position")).to_have_text("Round 1 of 1, you to throw.")
    bob.keyboard.press("s")
    expect(bob.locator("#chips-position")).to_contain_text("Round 1: you threw scissors, alice rock.")
    expect(bob.locator("#chips-log")).to_contain_text("alice revealed rock against your scissors: alice won round 1")
    expect(alice.locator("#channel-status")).to_have_text("Closed: you were paid 25 chips, bob 15.")
    assert balances_on_chain(devnet) == {"alice": before["alice"] + 5, "bob": before["bob"] - 5}


def test_a_silent_opponent_challenged_from_the_page_loses_the_stake_when_the_deadline_passes(pages, devnet):
    alice, bob = pages
    before = balances_on_chain(devnet)
    ident = open_channel(alice, "quiet", stake=10, deposit=30, rounds=1, challenge=1)
    join(bob, ident)
    expect(alice.locator("#chips-challenge")).to_be_hidden()  # the first move is hers: a challenge would hold her
    expect(bob.locator("#chips-challenge")).to_be_visible()  # the joiner may hold a silent opener to turn 0
    alice.get_by_role("button", name="Play").click()
    expect(alice.locator(".board")).to_have_attribute("data-wanted", "true")
    alice.locator('button.cell[data-space="5"]').click()
    expect(alice.locator(".board")).to_have_attribute("data-wanted", "false")
    alice.get_by_role("button", name="Challenge").click()  # bob never pressed Play: he is silent
    expect(alice.locator("#chips-chain-note")).to_have_text("You challenged your opponent at turn 1.")
    # alice's match (still running on the server) finalizes by itself once the deadline has passed
    expect(alice.locator("#channel-status")).to_contain_text("Closed: you were paid")
    paid = [int(number) for number in re.findall(r"\d+", alice.locator("#channel-status").inner_text())]
    after = balances_on_chain(devnet)
    assert after == {"alice": before["alice"] - 30 + paid[0], "bob": before["bob"] - 30 + paid[1]}
    assert paid[0] > paid[1]  # the one who moved last is paid the stake in play


def test_a_challenge_waiting_on_the_players_move_counts_down_on_the_page_and_the_computer_plays_it(pages):
    alice, bob = pages
    ident = open_channel(alice, "urged", stake=5, deposit=20, rounds=1, challenge=8)
    join(bob, ident)
    for page in (alice, bob):
        page.get_by_role("button", name="Play").click()
    expect(alice.locator(".board")).to_have_attribute("data-wanted", "true")
    alice.locator('button.cell[data-space="5"]').click()
    expect(bob.locator(".board")).to_have_attribute("data-wanted", "true")  # bob is asked, and never answers
    alice.get_by_role("button", name="Challenge").click()
    urgent = bob.locator("#chips-urgent")
    expect(urgent).to_contain_text("challenged you: your move must be on chain before")
    left = r"\((\d+ min )?\d+ s left\)\. If you have not moved by .*, the computer plays it"
    expect(urgent).to_contain_text(re.compile(left))
    expect(urgent).to_be_hidden(timeout=15_000)  # the computer played bob's move at half the time left
    expect(bob.locator("#chips-log")).to_contain_text("the computer plays")
    expect(bob.locator("#chips-log")).to_contain_text("answered alice's challenge on chain")
    expect(bob.locator("#channel-status")).not_to_contain_text("Closed")


def test_bob_accepts_alices_offer_from_the_list_and_both_play_it_on_the_channel_page(pages, devnet, screenshots):
    alice, bob = pages
    before = balances_on_chain(devnet)
    expect(alice.locator("#offer-seconds")).to_have_value("3600")  # as chips offer --for
    for field, value in (("stake", 5), ("deposit", 20), ("rounds", 1), ("challenge", 60), ("seconds", 300)):
        alice.fill(f"#offer-{field}", str(value))
    alice.get_by_role("button", name="Offer", exact=True).click()
    expect(alice.locator("#offer-note")).to_contain_text("Your offer is on the board for 5 min 0 s")
    mine = alice.locator('li.offer[data-mine="true"]')
    expect(mine.locator(".offer-offerer")).to_have_text("you")
    expect(mine.get_by_role("button", name="Withdraw")).to_be_visible()
    offered = bob.locator("li.offer", has_text="alice")  # live in bob's list, from the broker, no reload
    expect(offered.locator(".offer-by")).to_contain_text("alice (")
    expect(offered.locator(".offer-terms")).to_have_text(
        "Tic-tac-toe for 5 chips a game, 1 game; 20 chips deposited each; 60 s to answer a challenge."
    )
    stays = r"Open until \d\d:\d\d:\d\d \((\d+ min )?\d+ s left\)\."  # as chips offers words it
    expect(offered.locator(".offer-stays")).to_contain_text(re.compile(stays))
    bob.screenshot(path=screenshots / "offers-bob.png", full_page=True)
    offered.get_by_role("button", name="Accept").click()
    expect(bob.locator("h1")).to_contain_text("Channel offer-")
    expect(alice.locator("h1")).to_contain_text("Channel offer-")  # joined by alice's server, her page taken there
    expect(alice.locator("h1")).to_have_text(bob.locator("h1").inner_text())  # one name for both players
    # the accepter opened the channel, so bob is X and moves first; the server plays both sides' matches
    for mover, watcher, space in ((bob, alice, 1), (alice, bob, 4), (bob, alice, 2), (alice, bob, 5), (bob, alice, 3)):
        take(mover, watcher, space, "X" if mover is bob else "O")
    expect(bob.locator("#channel-status")).to_have_text("Closed: you were paid 25 chips, alice 15.")
    assert balances_on_chain(devnet) == {"alice": before["alice"] - 5, "bob": before["bob"] + 5}
