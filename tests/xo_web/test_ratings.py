"""The leaderboard of ``xo web`` (``GET /api/ratings``, ``#/ratings``): the table ``xo ratings`` prints, kept live.

Games are played on the module's devnet as whole batches; the server's table must be
the command's (``xo ratings --json``, run here in-process on the same chain), with the
players named from the key directory; a game that finishes later reaches an open page's
event stream as a ``ratings`` event and the table; and one page load shows the rows, and the lobby
each player's rating.
"""

from __future__ import annotations

import json
import time

import pytest

from client_core.rest import RestClient
from client_core.submission import submit
from tests.xo_web.browser import launched_chromium
from tests.xo_web.local_server import SECONDS, EventReader
from xo_cli import ratings as command
from xo_cli.main import main as xo
from xo_client.transactions import make_xo_transaction
from xo_core.keyfiles import load_signer
from xo_web import ratings as leaderboard

try:
    from playwright.sync_api import expect
except ImportError:  # the test extra is not installed: the browser fixture says so (CI fails instead)
    expect = None

X_WINS, O_WINS, TIE = [1, 4, 2, 5, 3], [1, 4, 2, 5, 9, 6], [5, 1, 9, 3, 2, 8, 7, 4, 6]


def play(devnet, name: str, x: str, o: str, spaces: list[int]) -> None:
    """A whole XO game in one batch, waited for: ``x`` takes the odd moves, ``o`` the even ones."""
    signers = {who: load_signer(devnet.key_dir, who) for who in (x, o)}
    moves = [make_xo_transaction(signers[x], name, "create")]
    for turn, space in enumerate(spaces):
        mover = signers[x if turn % 2 == 0 else o]
        moves.append(make_xo_transaction(mover, name, "take", space, batcher_public_key=signers[x].public_key))
    client = RestClient(devnet.rest_url)
    assert client.batch_status(submit(client, signers[x], moves), wait=60).status == "COMMITTED"


def table_with(server, games: int, query: str = "") -> dict:
    """``GET /api/ratings`` once it counts ``games`` games (the server follows the chain a block behind at most)."""
    deadline = time.monotonic() + SECONDS
    while True:
        table = server.get_json(f"/api/ratings{query}")
        if (table["ready"] and table["games"] >= games) or time.monotonic() > deadline:
            return table
        time.sleep(0.05)


def command_table(devnet, capsys, tmp_path, monkeypatch, *argv: str) -> dict:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    capsys.readouterr()
    assert xo(["ratings", "--json", "--url", devnet.rest_url, *argv]) == 0
    return json.loads(capsys.readouterr().out)


@pytest.fixture(scope="module")
def played(devnet) -> int:
    play(devnet, "w1", "alice", "bob", X_WINS)
    play(devnet, "w2", "bob", "alice", O_WINS)
    play(devnet, "w3", "alice", "bob", X_WINS)
    play(devnet, "w4", "bob", "alice", TIE)
    return 4


def test_the_page_and_the_command_rate_the_same_families():
    assert leaderboard.RATED == command.RATED


def test_the_leaderboard_is_the_table_the_command_prints_with_names(
    server, devnet, played, capsys, tmp_path, monkeypatch
):
    shown = table_with(server, played)
    printed = command_table(devnet, capsys, tmp_path, monkeypatch)
    assert shown["games"] == printed["games"] >= played
    assert [{key: row[key] for key in printed["players"][0]} for row in shown["players"]] == printed["players"]
    names = {load_signer(devnet.key_dir, who).public_key: who for who in ("alice", "bob")}
    assert [row["name"] for row in shown["players"]] == [names[row["key"]] for row in shown["players"]]
    assert shown["players"][0]["name"] == "alice"  # three wins of four against bob
    assert (shown["block"], shown["system"]) == (printed["block"], printed["system"])
    xo_alone = table_with(server, played, "?game=xo")
    assert xo_alone["players"] == shown["players"]  # every game here is an XO game
    assert table_with(server, 0, "?game=rps")["players"] == []
    refused = server.request("GET", "/api/ratings?game=chess")
    assert refused.status == 400
    assert "xo, rps, chips" in refused.json()["error"]["message"]


def test_a_game_finished_later_reaches_an_open_page_and_the_table(server, devnet, played):
    before = table_with(server, played)["games"]
    with EventReader(server) as events:
        events.next("snapshot")
        play(devnet, "late", "bob", "alice", X_WINS)
        kind, data = events.next("ratings")
    assert kind == "ratings"
    assert data["games"] == before + 1
    bob = next(row for row in table_with(server, before + 1)["players"] if row["name"] == "bob")
    assert bob["wins"] == 1  # the first game bob wins


@pytest.fixture(scope="module")
def browser():
    yield from launched_chromium(SECONDS)


def test_the_page_shows_the_leaderboard(browser, server, played):
    table = table_with(server, played)
    page = browser.new_page()
    try:
        page.goto(f"{server.origin}/#/ratings")
        rows = page.locator("#ratings-rows tr")
        expect(rows).to_have_count(len(table["players"]))
        first = table["players"][0]
        expect(rows.first).to_contain_text(f"{first['name']} ({first['key'][:6]}…)")
        expect(rows.first).to_contain_text(f"{first['rating']:.2f}" + ("?" if first["provisional"] else ""))
        expect(rows.first).to_contain_text(f"{first['ordinal']:.2f}")  # the score it is ranked by, in a column
        expect(page.locator("main")).to_contain_text("Ranked by score = rating \u2212 3 \u00d7 deviation")
        expect(page.locator("main")).to_contain_text("? marks a provisional rating (fewer than 5 games")
        expect(page.locator("#ratings-summary")).to_contain_text(f"{table['games']} games, 2 players")
        expect(page.locator("#nav-ratings")).to_have_attribute("aria-current", "")
        page.evaluate("location.hash = '#/'")  # the lobby, same page: each player named with their rating
        alice = next(row for row in table_with(server, played)["players"] if row["name"] == "alice")
        item = page.locator(".game-item", has_text="w1")
        seated = f"X: alice ({alice['key'][:6]}…) rated {alice['rating']:.1f}"
        expect(item.locator(".game-players")).to_contain_text(seated)
    finally:
        page.close()
