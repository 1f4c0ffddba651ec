"""The page in a real browser (headless Chromium) against xo-devnet: alice and bob play in two pages.

Each sees the other's move live, without reloading; a refusal is shown in words; the
result is announced; alice plays the computer (``xo bot``'s seat core) to the end; a game can
be played from the keyboard and stepped through in
its history; a hostile game name shows as text and runs nothing. Screenshots of the
lobby and the finished game, at desktop width and at 360 px, go to a directory under
the test's tmp path (its path is printed). The time from a click in one page to the
move showing in the other is measured in the pages and printed (the figure quoted in
docs/web.md comes from benchmarks/web_latency.py).
"""

from __future__ import annotations

import re
import statistics
import time

import pytest

from tests.xo_cli.devnet_play import Running, Table
from tests.xo_web.browser import SECONDS, drawn_icons, launched_chromium, open_windows, tofu
from xo_core.text import printable

try:
    from playwright.sync_api import Page, expect
except ImportError:  # the test extra is not installed: the browser fixture says so (CI fails instead)
    Page = expect = None


@pytest.fixture(scope="module")
def address(devnet):
    """``xo web`` run as a player runs it, against the devnet, with the devnet's keys (alice and bob)."""
    web = Running("web", "--url", devnet.rest_url, "--key-dir", str(devnet.key_dir), "--port", "0")
    try:
        first = web.lines(1)[0]
        yield first.removeprefix("xo web is serving ")
    finally:
        web.stop()


@pytest.fixture(scope="module")
def browser():
    yield from launched_chromium(SECONDS)


@pytest.fixture(scope="module")
def screenshots(tmp_path_factory):
    folder = tmp_path_factory.mktemp("screenshots")
    print(f"screenshots in {folder}")
    return folder


@pytest.fixture
def windows(browser, address):
    """Opens a page for each player named, each in a window of its own, at the lobby (see ``open_windows``);
    every window is closed after the test, and no page may have raised an error."""
    errors: list[str] = []
    contexts = []

    def open_for(*players: str) -> list[Page]:
        opened, pages = open_windows(browser, address, players, errors, {"width": 1280, "height": 720})
        contexts.extend(opened)
        return pages

    yield open_for
    for context in contexts:
        context.close()
    assert errors == [], "\n".join(errors)


@pytest.fixture
def pages(windows):
    """alice's page and bob's page."""
    return tuple(windows("alice", "bob"))


@pytest.fixture
def alice_page(windows):
    """alice's page alone, for a test nobody else plays in."""
    return windows("alice")[0]


@pytest.fixture(scope="module")
def table(devnet) -> Table:
    return Table(devnet.rest_url, devnet.key_dir)


def cell(page: Page, space: int):
    return page.locator(f'button.cell[data-space="{space}"]')


def open_game(page: Page, name: str) -> None:
    page.locator(".game-link", has_text=name).click()
    expect(page.locator("h1")).to_have_text(f"Game {name}")


def reset_measures(*pages: Page) -> None:
    for page in pages:
        page.evaluate("window.__xo = {clicks: {}, seen: {}}")


def latency_ms(mover: Page, watcher: Page, space: int) -> float:
    """From the click on ``space`` in ``mover`` to its mark painted in ``watcher`` (once the mark is there).

    Polled with ``evaluate`` (which the page's CSP allows the test, unlike ``wait_for_function``'s eval).
    """
    clicked = mover.evaluate(f"window.__xo.clicks['{space}']")
    deadline = time.monotonic() + SECONDS
    while (seen := watcher.evaluate(f"window.__xo.seen['{space}']")) is None and time.monotonic() < deadline:
        time.sleep(0.01)
    assert seen is not None, f"space {space} never painted"
    return seen - clicked


def test_alice_and_bob_play_a_whole_game_each_seeing_the_others_moves_live(pages, screenshots, table):
    alice, bob = pages
    alice.fill("#new-game-name", "duel")
    alice.get_by_role("button", name="Create").click()
    expect(alice.locator("h1")).to_have_text("Game duel")
    expect(bob.locator(".game-link", has_text="duel")).to_be_visible()  # bob's lobby, live, no reload
    open_game(bob, "duel")
    reset_measures(alice, bob)

    moves = [(alice, bob, 5), (bob, alice, 1), (alice, bob, 3), (bob, alice, 7), (alice, bob, 4), (bob, alice, 9)]
    delays = []
    for mover, watcher, space in moves:
        cell(mover, space).click()
        expect(cell(watcher, space)).to_have_attribute("data-mark", "X" if mover is alice else "O")
        delays.append(latency_ms(mover, watcher, space))
        if mover is bob and space == 1:
            cell(bob, 2).click()  # not bob's turn: refused, in words
            expect(bob.locator("#move-error")).to_have_text(
                f"game 'duel': it is alice's turn (player 1, {table.key('alice')[:6]}...); nothing was submitted"
            )
            expect(cell(bob, 2)).to_have_attribute("data-mark", "-")

    expect(alice.locator("#game-status")).to_have_text("Your turn: you play X")
    expect(alice.locator("#move-help")).to_have_text(re.compile(r"^Click a space, or type 1-9 or A1-C3"))
    cell(alice, 6).click()
    delays.append(latency_ms(alice, bob, 6))
    expect(alice.locator("#game-status")).to_have_text("You won as X!")
    alice_label = f"alice ({table.key('alice')[:6]}…)"
    expect(bob.locator("#game-status")).to_have_text(f"X won: {alice_label}")
    # one sentence after another, each ended once; a key's name as it was typed, at the start of a sentence too
    expect(alice.locator("#announcer")).to_have_text(f"{alice_label} took C2 (6) as X. You won as X!")
    expect(bob.locator("#announcer")).to_have_text(f"{alice_label} took C2 (6) as X. X won: {alice_label}.")
    for page in (alice, bob):  # no hint on how to move once there is no move to make
        expect(page.locator("#move-help")).to_be_hidden()
    expect(bob.locator(".cell.winning")).to_have_count(3)
    print(f"move click -> opponent's page shows it: p50 {statistics.median(delays):.0f} ms, "
          f"max {max(delays):.0f} ms over {len(delays)} moves")
    assert max(delays) < SECONDS * 1000

    alice.screenshot(path=screenshots / "game-finished.png")
    alice.goto(alice.url.split("#")[0] + "#/")
    expect(alice.locator(".game-link", has_text="duel")).to_contain_text("You won as X!")
    alice.screenshot(path=screenshots / "lobby.png")
    long_name = "a-long-name-" + "x" * 200  # one unbroken word: the lobby cuts it, never widens for it
    table.move("bob", long_name, "create")
    expect(alice.locator(".game-link", has_text=long_name)).to_be_visible()
    for page, view in ((alice, "lobby"), (bob, "game")):
        page.set_viewport_size({"width": 360, "height": 760})
        page.screenshot(path=screenshots / f"{view}-360px.png", full_page=True)
        assert page.evaluate("document.documentElement.scrollWidth") <= 360  # nothing wider than the screen


def test_a_game_played_from_the_keyboard_and_stepped_through_in_its_history(pages, table):
    alice, bob = pages
    table.move("alice", "keys", "create")
    open_game(alice, "keys")
    open_game(bob, "keys")
    alice.keyboard.type("b2")  # grid notation, typed anywhere on the page
    expect(cell(bob, 5)).to_have_attribute("data-mark", "X")
    bob.keyboard.press("1")  # a space number
    expect(cell(alice, 1)).to_have_attribute("data-mark", "O")
    cell(alice, 5).focus()  # on the board: arrows move, Enter takes
    alice.keyboard.press("ArrowRight")
    expect(cell(alice, 6)).to_be_focused()
    alice.keyboard.press("Enter")
    expect(cell(bob, 6)).to_have_attribute("data-mark", "X")

    alice.get_by_role("link", name="History").click()
    steps = alice.locator("button.step")
    expect(steps).to_have_count(4)
    expect(steps.nth(0)).to_contain_text("alice (")
    expect(steps.nth(3)).to_have_attribute("aria-current", "step")
    steps.nth(1).click()
    board = alice.locator(".history-board .board")
    expect(board).to_have_attribute("aria-label", "Board after the chosen move: X on B2; 8 empty")
    alice.keyboard.press("ArrowDown")
    expect(board).to_have_attribute("aria-label", "Board after the chosen move: X on B2; O on A1; 7 empty")
    expect(steps.nth(2)).to_be_focused()
    bob.keyboard.press("9")  # a move while alice looks at the history: the list grows by itself
    expect(steps).to_have_count(5)


def test_a_game_links_to_its_transactions_and_each_to_its_own_view(alice_page, table, screenshots):
    alice = alice_page
    table.move("alice", "explored", "create")
    table.takes("explored", 5, 1)
    open_game(alice, "explored")
    alice.get_by_role("link", name="Transactions").click()
    rows = alice.locator("table.transactions tbody tr")
    expect(rows).to_have_count(3)
    expect(rows.nth(0)).to_contain_text("xo create explored")
    expect(rows.nth(2)).to_contain_text("bob")
    expect(rows.nth(2)).to_contain_text("xo take explored 1")
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", rows.nth(1).locator("td").nth(1).inner_text())
    rows.nth(1).get_by_role("link").click()
    expect(alice.locator("h1")).to_have_text("xo take explored 5")
    shown = alice.locator("dl.transaction")
    expect(shown).to_contain_text("committed (valid); it changed 1 address of state")
    expect(shown).to_contain_text("alice (")
    text = alice.locator("main").inner_text()
    assert [word for word in ("GET ", "HTTP", "P2-NEXT", "----X----", "undefined", "null") if word in text] == []
    alice.screenshot(path=screenshots / "transaction.png", full_page=True)
    alice.go_back()
    alice.go_back()
    alice.get_by_role("link", name="History").click()
    alice.locator("button.step").nth(2).click()
    alice.get_by_role("link", name="This move's transaction on the chain").click()
    expect(alice.locator("h1")).to_have_text("xo take explored 1")


def test_a_hostile_game_name_shows_as_text_and_runs_nothing(alice_page, table):
    alice = alice_page
    hostile = '<img src=x onerror="window.__pwned=1">\u202eevil\x07<script>window.__pwned=2</script>'
    table.move("bob", hostile, "create")
    item = alice.locator(".game-link").filter(has_text="evil")
    expect(item.locator(".game-name")).to_have_text(printable(hostile))
    item.click()
    expect(alice.locator("h1 bdi")).to_have_text(printable(hostile))
    assert alice.evaluate("window.__pwned") is None
    assert alice.locator("main img, main script").count() == 0


def test_alice_plays_the_computer_to_the_end(alice_page, screenshots):
    alice = alice_page
    alice.fill("#new-game-name", "vs-computer")
    alice.get_by_role("button", name="Create").click()
    expect(alice.locator("h1")).to_have_text("Game vs-computer")
    alice.get_by_role("button", name="Play against the computer").click()
    expect(alice.locator("#computer-state")).to_have_text(
        "The computer plays here, level perfect. Make the first move: it answers as O."
    )
    status = alice.locator("#game-status")
    alices_turn = ("Your turn: you play X", "X to play: the seat is open")
    for _ in range(5):  # alice has at most five moves
        expect(status).to_have_text(re.compile(rf"^({'|'.join(alices_turn)}|A tie|O won|You won).*$"))
        if not status.text_content().startswith(alices_turn):
            break
        marks = alice.locator("button.cell").evaluate_all("cells => cells.map(cell => cell.dataset.mark)")
        cell(alice, marks.index("-") + 1).click()
        expect(alice.locator("button.cell[data-mark='O']")).to_have_count(marks.count("O") + 1)  # the answer
    final = status.text_content()
    assert final == "A tie: the board is full and nobody won" or re.fullmatch(r"O won: xo-ai \([0-9a-f]{6}…\)", final)
    expect(alice.locator(".seats")).to_contain_text("xo-ai (")
    expect(alice.locator("#computer-state")).to_contain_text("The computer left the game: game 'vs-computer' is over")
    alice.screenshot(path=screenshots / "computer-finished.png")


def test_alice_and_bob_play_rock_paper_scissors_each_throw_secret_until_both_have_thrown(pages, screenshots):
    alice, bob = pages
    alice.fill("#new-game-name", "rps-duel")
    alice.select_option("#new-game-kind", "rps")
    alice.select_option("#new-game-points", "1")
    alice.get_by_role("button", name="Create").click()
    expect(alice.locator("h1")).to_have_text("Rock-paper-scissors rps-duel")
    link = bob.locator("#rps-games .game-link", has_text="rps-duel")
    expect(link).to_be_visible()  # bob's lobby, live
    badge = drawn_icons(bob, "#rps-games .game-link .rps-badge svg")  # the page's own pictures: no emoji font needed
    assert [icon[0] for icon in badge] == ["rock", "paper", "scissors"]
    assert all(width > 0 and height > 0 and shapes > 0 for _, width, height, shapes in badge), badge
    assert tofu(bob) == []
    bob.screenshot(path=screenshots / "lobby-rps.png")
    link.click()
    bob.get_by_role("button", name="Join the game").click()
    expect(bob.locator("#rps-help")).to_be_hidden()  # how to throw: not before play starts
    bob.get_by_role("button", name="I'm ready").click()
    alice.get_by_role("button", name="I'm ready").click()
    expect(alice.locator("#rps-status")).to_have_text("You and bob must throw in round 1")
    expect(bob.locator("#rps-status")).to_have_text("You and alice must throw in round 1")
    expect(alice.locator("#rps-announcer")).to_have_text("You are ready. Play starts, round 1.")
    expect(bob.locator("#rps-announcer")).to_have_text("alice is ready. Play starts, round 1.")
    expect(alice.locator("#rps-help")).to_have_text(re.compile(r"^Throw with the buttons, or type r, p or s"))
    throws = drawn_icons(alice, ".throws button.throw svg.throw-icon")
    assert [icon[0] for icon in throws] == ["rock", "paper", "scissors"]
    assert all(width >= 16 and height >= 16 and shapes > 0 for _, width, height, shapes in throws), throws
    assert tofu(alice) == []
    alice.screenshot(path=screenshots / "rps-throws.png")

    alice.get_by_role("button", name="rock").click()
    expect(bob.locator(".rps-seats")).to_contain_text("has thrown (secret until both have)")
    expect(bob.locator("#rps-status")).to_have_text("You must throw in round 1")
    expect(bob.locator("#rps-announcer")).to_have_text("alice has thrown in round 1.")
    expect(alice.locator("#rps-announcer")).to_have_text("You have thrown in round 1.")
    for part in (".rps-seats", "#rps-status", "#rps-note", ".rounds"):  # alice's throw is nowhere in bob's page yet
        assert "rock" not in bob.locator(part).inner_text()
    bob.screenshot(path=screenshots / "rps-secret-throw.png")
    bob.keyboard.press("s")  # scissors, from the keyboard
    expect(bob.locator("#rps-status")).to_have_text("alice won 1-0")  # a key's name as it was typed, never capitalised
    expect(alice.locator("#rps-status")).to_have_text("You won 1-0")
    expect(bob.locator(".rounds")).to_have_text("alice rock, you scissors: alice won the round")
    expect(alice.locator(".rounds")).to_have_text("You rock, bob scissors: you won the round")
    for page in (alice, bob):  # the game is over: no throw buttons, and no hint on how to throw
        expect(page.locator(".throws")).to_be_hidden()
        expect(page.locator("#rps-help")).to_be_hidden()
    expect(alice.locator(".rps-seats")).to_contain_text("won, 1 point")
    expect(alice.locator("#rps-note")).to_have_text("Revealed rock in round 1 of game 'rps-duel'")  # her own reveal
    alice.screenshot(path=screenshots / "rps-finished.png")
