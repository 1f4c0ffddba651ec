"""The joins of the page's offers, without a chain or broker: what the offerer's page hears of an accept not joined,
what an expired offer leaves on the board, and when the chain is read: at once for a new block, else at the next poll
or expiry."""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from types import SimpleNamespace

from chips_client.offer_board import Post
from chips_client.offer_desk import Published
from chips_client.offers import SignedOffer, Terms, channel_fixed, encode_offer, make_offer, topic
from chips_tp.channel import channel_id
from chips_tp.state import FUNDING, Channel
from client_core.keys import KeyNames
from xo_core.signing import Signer
from xo_web import offer_posts
from xo_web.offer_posts import OfferPosts, Posted

NOW = 1_800_000_000.0
ALICE, BOB = Signer.from_hex("11" * 32), Signer.from_hex("22" * 32)


class Board:
    """A broker session that keeps what is retained, by topic."""

    def __init__(self) -> None:
        self.retained: dict[str, bytes] = {}

    def publish(self, topic: str, payload: bytes, timeout: float, *, retain: bool = False) -> None:
        self.retained[topic] = payload


class Desk:
    """The chain as the offerer's server reads it: its channels and alice's free chips."""

    def __init__(self, channels: list[Channel], balance: int) -> None:
        self.channels, self.balance = channels, balance

    def client(self) -> contextlib.nullcontext:
        return contextlib.nullcontext()

    def chain(self, _client: object) -> SimpleNamespace:
        return SimpleNamespace(channels=lambda: self.channels, balance=lambda _key: self.balance)

    def names(self) -> KeyNames:
        return KeyNames({BOB.public_key: "bob"})


def posts_with(desk: Desk, board: Board, said: list, expires: float) -> tuple[OfferPosts, SignedOffer]:
    feed = SimpleNamespace(on_reconnect=[], listeners=[])
    posts = OfferPosts(desk, SimpleNamespace(say=lambda *a: said.append(a)), feed, clock=lambda: NOW)  # type: ignore[arg-type]
    signed = make_offer(ALICE, Terms("xo", 10, 50, 1, 60), int(expires))
    post = Post(board, signed)
    post.publish()
    posts.posted[signed.offer.id] = Posted("alice", ALICE, post, Published(signed, 1))
    return posts, signed


def test_an_accept_the_offerers_chips_cannot_cover_is_told_once_to_her_page_and_not_joined() -> None:
    board, said = Board(), []
    desk = Desk([], 20)
    posts, signed = posts_with(desk, board, said, NOW + 600)
    fixed = channel_fixed(signed.offer, BOB.public_key, 1)
    desk.channels = [Channel(channel_id(fixed), fixed, FUNDING, (True, False), 50, 0, None, None, None)]
    posts.check()
    posts.check()  # polled again: not said again
    told = "bob accepted your offer, but it is not joined: your 20 free chips cannot cover its 50 deposit"
    assert said == [(ALICE.public_key, channel_id(fixed), "xo", told)]
    assert posts.open() and board.retained  # still open, still on the board


def test_a_page_offer_someone_else_clears_is_put_back_and_another_topic_is_left_alone() -> None:
    board, said = Board(), []
    posts, signed = posts_with(Desk([], 1000), board, said, NOW + 600)
    mine, theirs = topic(signed.offer), topic(make_offer(BOB, Terms("xo", 10, 50, 1, 60), int(NOW) + 600).offer)
    board.retained[theirs] = b""
    for listener in posts.feed.listeners:  # as the feed hands over what its session hears
        listener(theirs, b"")
        listener(mine, b"")  # a stranger's clear of alice's offer
    deadline = time.monotonic() + 3
    while board.retained[mine] != encode_offer(signed):
        assert time.monotonic() < deadline, "not put back within 3 s"
        time.sleep(0.01)
    assert board.retained[theirs] == b"", "only the page's own offers are put back"


def test_an_expired_offer_is_cleared_from_the_board_at_the_next_poll() -> None:
    board, said = Board(), []
    posts, _signed = posts_with(Desk([], 1000), board, said, NOW)
    posts.check()
    assert not posts.open() and list(board.retained.values()) == [b""] and said == []


def test_a_new_block_has_the_chain_read_for_accepts_at_once_not_at_the_next_poll(monkeypatch) -> None:
    monkeypatch.setattr(offer_posts, "POLL_SECONDS", 600.0)  # a read within the test's deadline is the block's
    posts, _signed = posts_with(Desk([], 1000), Board(), [], NOW + 600)
    read = threading.Event()
    monkeypatch.setattr(posts, "check", read.set)

    async def a_block_commits() -> bool:
        running = asyncio.create_task(posts.run())
        try:
            posts.block_committed([])
            return await asyncio.to_thread(read.wait, 30.0)
        finally:
            running.cancel()

    assert asyncio.run(a_block_commits())


def test_the_chain_is_read_next_at_the_poll_or_at_an_offers_expiry_if_that_comes_first() -> None:
    posts, _signed = posts_with(Desk([], 1000), Board(), [], NOW + 600)
    assert posts.next_read() == offer_posts.POLL_SECONDS
    soon, _signed = posts_with(Desk([], 1000), Board(), [], NOW)
    soon.clock = lambda: NOW - 0.25
    assert soon.next_read() == 0.25  # withdrawn as it expires, not up to a poll later
    soon.clock = lambda: NOW + 5
    assert soon.next_read() == 0.0
