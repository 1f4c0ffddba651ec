"""Blocks to many pages: each gets every event in order; a page that stops reading is dropped, not waited for."""

from __future__ import annotations

import asyncio

import pytest

from xo_web.fanout import Fanout, TooManyPages


def test_every_page_gets_its_snapshot_first_then_every_event_in_order():
    async def scenario():
        fanout = Fanout()
        first = fanout.subscribe(b"snapshot 1")
        fanout.publish(b"block 5")
        second = fanout.subscribe(b"snapshot 2")
        fanout.publish(b"block 6")
        return [await first.next() for _ in range(3)], [await second.next() for _ in range(2)]

    assert asyncio.run(scenario()) == (
        [b"snapshot 1", b"block 5", b"block 6"],
        [b"snapshot 2", b"block 6"],
    )


def test_a_page_that_stops_reading_is_dropped_and_the_others_keep_up():
    async def scenario():
        fanout = Fanout(queue_events=3)
        stalled = fanout.subscribe(b"snapshot")
        reading = fanout.subscribe(b"snapshot")
        received = [await reading.next()]
        for number in range(10):
            fanout.publish(f"block {number}".encode())
            received.append(await reading.next())
        return stalled, received, len(fanout), await stalled.next()

    stalled, received, pages, after_drop = asyncio.run(scenario())
    assert stalled.dropped
    assert pages == 1
    assert received == [b"snapshot"] + [f"block {number}".encode() for number in range(10)]
    assert after_drop is None  # its stream ends, and the browser reconnects to a fresh snapshot


def test_pages_beyond_the_limit_are_turned_away_until_one_leaves():
    async def scenario():
        fanout = Fanout(max_pages=2)
        first = fanout.subscribe(b"s")
        fanout.subscribe(b"s")
        with pytest.raises(TooManyPages):
            fanout.subscribe(b"s")
        fanout.unsubscribe(first)
        fanout.subscribe(b"s")
        return len(fanout)

    assert asyncio.run(scenario()) == 2


def test_closing_ends_every_stream():
    async def scenario():
        fanout = Fanout()
        pages = [fanout.subscribe(b"s") for _ in range(3)]
        fanout.publish(b"queued")
        fanout.close()
        return [await page.next() for page in pages], len(fanout)

    assert asyncio.run(scenario()) == ([None, None, None], 0)
