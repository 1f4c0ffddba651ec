"""The wait of an accept for the offerer's join, without a chain: a new block has the channel read at once."""

from __future__ import annotations

import threading
from types import SimpleNamespace

from chips_client.offers import Terms, channel_fixed, make_offer
from chips_tp.state import FUNDING, RUNNING
from xo_core.signing import Signer
from xo_web import offer_accepts
from xo_web.offer_accepts import OfferAccepts

ALICE, BOB = Signer.from_hex("11" * 32), Signer.from_hex("22" * 32)


def test_a_join_is_seen_at_the_block_that_holds_it_not_at_the_next_poll(monkeypatch) -> None:
    monkeypatch.setattr(offer_accepts, "POLL_SECONDS", 600.0)  # a read within the test's deadline is the block's
    fixed = channel_fixed(make_offer(ALICE, Terms("xo", 10, 50, 1, 60), 1_800_000_000).offer, BOB.public_key, 1)
    chain = {"status": FUNDING}
    read, started = threading.Event(), threading.Event()

    def record(_ident: bytes, _me: str) -> SimpleNamespace:
        found = SimpleNamespace(status=chain["status"])
        read.set()
        return found

    matches = SimpleNamespace(say=lambda *_: None, start=lambda *_: started.set())
    accepts = OfferAccepts(SimpleNamespace(record=record), matches, None)  # type: ignore[arg-type]
    waiter = threading.Thread(target=accepts.wait_for_join, args=("bob", BOB, fixed, "offer-1"), daemon=True)
    waiter.start()
    try:
        assert read.wait(30.0)  # the channel read once: still funding, so it waits
        chain["status"] = RUNNING  # alice joined ...
        accepts.block_committed([])  # ... in this block
        assert started.wait(30.0)
    finally:
        accepts.close()
        waiter.join(30.0)
    assert not waiter.is_alive()
