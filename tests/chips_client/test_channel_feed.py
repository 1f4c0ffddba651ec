"""The followed channel records: each block's changes land in order, wake whoever waits, and tell the listeners."""

from __future__ import annotations

import threading

from chips_client import channel_feed
from chips_client.channel_feed import ChannelBook
from chips_client.channels import address_of, nonce_of
from chips_tp.channel import Fixed, channel_id
from chips_tp.state import FUNDING, Channel, encode_channel
from client_core.answers import StateChange
from client_core.blocks import BlockChanges, BlockRef


def channel(name: str, status: str = FUNDING, joined: bool = False) -> Channel:
    fixed = Fixed(("02" + "a" * 64, "03" + "b" * 64), "xo", 10, (50, 50), 600, nonce_of(name, 1))
    return Channel(channel_id(fixed), fixed, status, (True, joined), 100 if joined else 50, 0, None, None, None)


def block(number: int, *changes: StateChange) -> BlockChanges:
    return BlockChanges(f"{number:02x}" * 8, number, f"{number - 1:02x}" * 8, changes)


def setting(record: Channel) -> StateChange:
    return StateChange(address_of(record.fixed), "SET", encode_channel(record))


def test_a_block_sets_and_deletes_records_and_tells_listeners_what_it_changed() -> None:
    book = ChannelBook()
    first, second = channel("one"), channel("two")
    heard: list[list[Channel]] = []
    book.listen(heard.append)
    book.reset([first], BlockRef("01" * 8, 1))
    joined = channel("one", "running", joined=True)
    book.apply(block(2, setting(joined), setting(second)))
    assert book.block_num == 2 and book.channel(address_of(first.fixed)) == joined
    assert heard == [[first], [joined, second]]
    book.apply(block(3, StateChange(address_of(second.fixed), "DELETE", b"")))
    assert book.channel(address_of(second.fixed)) is None and len(heard) == 2  # nothing left to tell of
    assert book.channels() == [joined]


def test_changes_outside_the_channels_and_values_no_processor_wrote_are_left_out() -> None:
    book = ChannelBook()
    book.reset([], BlockRef("01" * 8, 1))
    junk = channel("junk")
    book.apply(block(2, StateChange(address_of(junk.fixed), "SET", b"not a channel"),
                     StateChange("e0b0ef" + "00" + "1" * 62, "SET", b"an account")))  # fmt: skip
    assert book.channels() == [] and book.block_num == 2


def test_a_waiter_is_woken_by_the_block_it_waits_for_and_a_wait_in_vain_ends_on_time() -> None:
    book = ChannelBook()
    opened = channel("wait")
    book.reset([opened], BlockRef("01" * 8, 1))
    address = address_of(opened.fixed)
    joined = channel("wait", "running", joined=True)
    threading.Timer(0.05, book.apply, (block(2, setting(joined)),)).start()
    assert book.wait_for(lambda: (found := book.channel(address)) is not None and found.funded[1], 5.0)
    assert book.reaches(2, 0.0) and not book.reaches(3, 0.05)


def test_a_book_knows_the_blocks_it_took_in_the_last_ones_only_and_counts_its_fresh_readings(monkeypatch) -> None:
    monkeypatch.setattr(channel_feed, "SEEN_BLOCKS", 3)
    book = ChannelBook()
    book.reset([], BlockRef("01" * 8, 1))
    for number in range(2, 5):
        book.apply(block(number))
    assert [book.has_seen(f"{n:02x}" * 8) for n in range(1, 6)] == [False, True, True, True, False]
    assert book.readings == 1
    book.reset([], BlockRef("09" * 8, 9))
    assert book.readings == 2 and book.has_seen("09" * 8) and not book.has_seen("04" * 8)
