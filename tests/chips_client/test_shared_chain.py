"""A match reads the followed records, and after its own commit never an older record than the one it committed."""

from __future__ import annotations

import threading

import pytest

from chips_client.channel_feed import ChannelBook
from chips_client.channels import address_of, nonce_of
from chips_client.shared_chain import ChainPool, MatchChain
from chips_tp.channel import Fixed, channel_id
from chips_tp.state import Channel, encode_channel
from client_core.answers import StateChange
from client_core.blocks import BlockChanges, BlockRef
from client_core.errors import Rejected, Unavailable


def channel(name: str, status: str = "running", turn: int = 0) -> Channel:
    fixed = Fixed(("02" + "a" * 64, "03" + "b" * 64), "xo", 10, (50, 50), 600, nonce_of(name, 1))
    return Channel(channel_id(fixed), fixed, status, (True, True), 100, turn, None, None, None)


def block(number: int, *records: Channel) -> BlockChanges:
    changes = tuple(StateChange(address_of(r.fixed), "SET", encode_channel(r)) for r in records)
    return BlockChanges(block_id(number), number, block_id(number - 1), changes)


class Own:
    """A match's own connection: it counts its reads, and the block it reads at is what the test says."""

    def __init__(self, record: Channel | None, head: int, refuse: bool = False) -> None:
        self.record, self.head_num, self.refuse = record, head, refuse
        self.submitted: list[str] = []
        self.reads = 0
        self.away = False

    def submit(self, _transaction: object, what: str) -> None:
        self.submitted.append(what)
        if self.refuse:
            raise Rejected(f"the validator rejected {what}: the channel is closed")

    def channel_at_head(self, _address: str) -> tuple[Channel | None, str | None]:
        if self.away:
            raise Unavailable("cannot reach the REST API at http://127.0.0.1:8008: Connection refused")
        self.reads += 1
        return self.record, block_id(self.head_num)


def block_id(number: int) -> str:
    return f"{number:02x}" * 8


def test_records_come_from_the_book_without_a_request() -> None:
    book = ChannelBook()
    running = channel("a")
    book.reset([running], BlockRef(block_id(1), 1))
    own = Own(None, 1)
    assert MatchChain(book, own).channel(address_of(running.fixed)) == running and own.reads == 0


def concluded_at_block_5() -> tuple[ChannelBook, Own, MatchChain, str, Channel]:
    """A match whose conclude committed in block 5, while the book still shows block 4: the book, the match's own
    connection and chain, the channel's address and its record as closed."""
    book = ChannelBook()
    before, after = channel("a", turn=3), channel("a", status="closed", turn=3)
    book.reset([before], BlockRef(block_id(4), 4))
    own = Own(after, head=5)
    match = MatchChain(book, own)
    match.submit(object(), "the conclude")  # type: ignore[arg-type]
    return book, own, match, address_of(before.fixed), after


def test_after_its_commit_a_match_reads_the_rest_api_until_the_book_takes_in_the_block_it_read_at() -> None:
    book, own, match, address, after = concluded_at_block_5()
    assert match.channel(address) == after and own.reads == 1  # read at block 5; the book still says block 4
    assert match.channel(address) == after and own.reads == 2  # and again while it does
    book.apply(block(5, after))
    assert match.channel(address) == after and own.reads == 2  # the book shows the commit: no more requests


def test_a_commit_the_book_already_shows_costs_one_read_and_a_refusal_catches_up_too() -> None:
    book = ChannelBook()
    before, closed = channel("a"), channel("a", status="closed")
    book.reset([before], BlockRef(block_id(4), 4))
    own = Own(closed, head=5, refuse=True)
    match = MatchChain(book, own)
    book.apply(block(5, closed))
    with pytest.raises(Rejected):
        match.submit(object(), "the conclude")  # type: ignore[arg-type]
    address = address_of(before.fixed)
    assert match.channel(address) == closed and own.reads == 1
    assert match.channel(address) == closed and own.reads == 1


def test_a_read_after_the_commit_that_cannot_reach_the_rest_api_is_asked_again_not_taken_from_the_book() -> None:
    _book, own, match, address, after = concluded_at_block_5()
    own.away = True
    with pytest.raises(Unavailable):
        match.channel(address)
    own.away = False
    assert match.channel(address) == after and own.reads == 1


def test_a_book_read_afresh_after_the_commit_is_as_new_as_it() -> None:
    book, own, match, address, after = concluded_at_block_5()
    assert match.channel(address) == after and own.reads == 1
    book.reset([after], BlockRef(block_id(9), 9))  # the follower started afresh: block 5 was never applied
    assert match.channel(address) == after and own.reads == 1


def test_a_pool_lends_each_chain_to_one_caller_at_a_time() -> None:
    busy: list[int] = []
    most = [0]
    lock = threading.Lock()

    class Slow(Own):
        def submit(self, transaction: object, what: str) -> None:
            with lock:
                busy.append(1)
                most[0] = max(most[0], len(busy))
            threading.Event().wait(0.02)
            with lock:
                busy.pop()

    pool = ChainPool([Slow(None, 0), Slow(None, 0)])
    threads = [threading.Thread(target=pool.submit, args=(object(), "the move")) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(5)
    assert most[0] == 2
