"""The server's feed of offers, without a broker: what a page is told about the broker while the list may be stale."""

from __future__ import annotations

from types import SimpleNamespace

from client_core.broker import BrokerAddress
from client_core.keys import NO_NAMES
from xo_web.offer_feed import OfferFeed


def test_the_view_says_while_the_broker_is_not_reached_or_lost_and_nothing_once_connected() -> None:
    feed = OfferFeed(BrokerAddress.parse("mqtt://127.0.0.1:1"), [].append, names=lambda: NO_NAMES,
                     rating_of=lambda _key: None, clock=lambda: 1_800_000_000.0)  # fmt: skip
    assert feed.view() == {
        "offers": [], "now": 1_800_000_000.0, "refused": 0, "message": "connecting to the broker at mqtt://127.0.0.1:1",
    }  # fmt: skip
    feed.message = None
    feed.session = SimpleNamespace(connected=False)  # type: ignore[assignment]
    assert feed.view()["message"] == "lost the broker at mqtt://127.0.0.1:1; reconnecting"
    feed.session = SimpleNamespace(connected=True)  # type: ignore[assignment]
    assert feed.view()["message"] is None
