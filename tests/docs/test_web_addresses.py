"""The addresses docs/web.md gives for the page's views are the ones the page routes, each to the view it names."""

from __future__ import annotations

import re

from tests.docs.markdown import DOCS, REPO_ROOT

MAIN_JS = REPO_ROOT / "xo_web" / "static" / "js" / "main.js"
PAGE = "http://127.0.0.1:8080/"


def routes() -> dict[str, re.Pattern[str]]:
    """The page's ROUTES table: the view each hash pattern shows (JavaScript regex literals, read as Python's)."""
    table = re.search(r"const ROUTES = \[(.*?)\];", MAIN_JS.read_text(encoding="utf-8"), flags=re.DOTALL)
    assert table is not None, "main.js has no ROUTES table"
    found = re.findall(r"\{ pattern: /(.+?)/, view: (\w+) \}", table.group(1))
    return {view: re.compile(pattern) for pattern, view in found}


def documented() -> dict[str, str]:
    """The Addresses table of docs/web.md: address -> what it shows."""
    text = (DOCS / "web.md").read_text(encoding="utf-8")
    section = text.split("### Addresses\n", 1)[1].split("\n#", 1)[0]
    rows = re.findall(r"^\| `([^`]+)`[^|]*\| (.+?) \|$", section, flags=re.MULTILINE)
    return dict(rows)


def view_of(address: str) -> str:
    assert address.startswith(PAGE), address
    fragment = address.removeprefix(PAGE).replace("NAME", "my%20game").replace("/ID", "/" + "ab" * 32)
    views = [view for view, pattern in routes().items() if pattern.search(fragment)]
    assert len(views) == 1, f"{address} matches {views}"
    return views[0]


def test_every_view_of_the_page_has_its_documented_address():
    shown = {view_of(address) for address in documented()}
    assert shown == set(routes()) == {
        "lobbyView", "gameView", "historyView", "rpsView", "chipsView", "channelView", "ratingsView", "tournamentsView",
        "transactionsView", "transactionView",
    }  # fmt: skip


def test_each_documented_address_opens_the_view_it_describes():
    expected = {"the lobby": "lobbyView", "an XO game:": "gameView", "committed moves": "historyView",
                "rock-paper-scissors game": "rpsView", "your chips": "chipsView",
                "staked match": "channelView", "every player's rating": "ratingsView",
                "every tournament": "tournamentsView",
                "what the chain holds": "transactionsView", "one transaction": "transactionView"}  # fmt: skip
    for address, what in documented().items():
        [view] = [view for words, view in expected.items() if words in what]
        assert view_of(address) == view, address
