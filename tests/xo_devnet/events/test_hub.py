"""The hub's promise: every block after the cursor exactly once, in order, catch-up to live with no gap; bounds."""

import asyncio
import logging

import pytest

from tests.xo_devnet.harness import run
from xo_devnet.chain import NULL_BLOCK_ID
from xo_devnet.events.blocks import BlockEvents
from xo_devnet.events.hub import EventHub, SubscriberGone, TooManySubscribers, UnknownBlock


def block(number: int) -> BlockEvents:
    return BlockEvents(f"id{number}", number, f"id{number - 1}" if number else NULL_BLOCK_ID, "root", [])


class Chain:
    """A ``History`` holding blocks 0..n that counts its reads."""

    def __init__(self, head: int) -> None:
        self.blocks = {number: block(number) for number in range(head + 1)}
        self.reads: list[int] = []

    def commit(self, hub: EventHub) -> BlockEvents:
        new = block(len(self.blocks))
        self.blocks[new.block_num] = new
        hub.publish(new)
        return new

    def block_events(self, block_num: int) -> BlockEvents | None:
        self.reads.append(block_num)
        return self.blocks.get(block_num)

    def block_num_of(self, block_id: str) -> int | None:
        return next((number for number, item in self.blocks.items() if item.block_id == block_id), None)


def make_hub(chain: Chain, **bounds) -> EventHub:
    settings = {"max_subscribers": 8, "queue_limit": 4, "stall_timeout": 5.0} | bounds
    return EventHub(chain, max(chain.blocks), **settings)


class Recorder:
    """A transport that records block numbers; ``gate`` (when cleared) makes it stop taking blocks."""

    def __init__(self) -> None:
        self.numbers: list[int] = []
        self.gate = asyncio.Event()
        self.gate.set()
        self.ended: list[str | None] = []

    async def deliver(self, item: BlockEvents) -> None:
        await self.gate.wait()
        self.numbers.append(item.block_num)

    def on_end(self, reason: str | None) -> None:
        self.ended.append(reason)


async def until(condition, timeout: float = 5.0) -> None:
    async with asyncio.timeout(timeout):
        while not condition():
            await asyncio.sleep(0.001)


def test_a_subscriber_catches_up_from_storage_then_gets_live_blocks_each_once_in_order():
    async def scenario():
        chain = Chain(head=20)
        hub = make_hub(chain)
        recorder = Recorder()
        hub.subscribe("s", 5, recorder.deliver, recorder.on_end)
        for _ in range(3):  # committed while catch-up is still reading storage
            chain.commit(hub)
            await asyncio.sleep(0)
        await until(lambda: recorder.numbers[-1:] == [23])
        for _ in range(5):
            chain.commit(hub)
        await until(lambda: recorder.numbers[-1:] == [28])
        assert recorder.numbers == list(range(5, 29))
        assert set(chain.reads) <= set(range(5, 24)), "live blocks come from memory"
        await hub.close()

    run(scenario)


def test_a_long_catch_up_shares_the_event_loop_block_by_block():
    async def scenario():
        chain = Chain(head=2000)
        hub = make_hub(chain)
        recorder = Recorder()  # takes every block at once, never suspending
        ticks = []

        async def ticker() -> None:
            while True:
                ticks.append(len(recorder.numbers))
                await asyncio.sleep(0)

        ticking = asyncio.create_task(ticker())
        hub.subscribe("s", 0, recorder.deliver, recorder.on_end)
        await until(lambda: len(recorder.numbers) == 2001)
        ticking.cancel()
        assert len(set(ticks)) > 1000, "other tasks ran between the blocks of the catch-up"
        await hub.close()

    run(scenario)


def test_a_subscriber_that_falls_behind_its_queue_continues_from_storage_without_loss():
    async def scenario():
        chain = Chain(head=0)
        hub = make_hub(chain, queue_limit=4)
        recorder = Recorder()
        hub.subscribe("slow", 1, recorder.deliver, recorder.on_end)
        await asyncio.sleep(0.01)
        recorder.gate.clear()
        chain.commit(hub)
        await asyncio.sleep(0.01)  # block 1 is being delivered, held by the gate
        for _ in range(99):  # more than the hub keeps in memory, too
            chain.commit(hub)
        chain.reads.clear()
        recorder.gate.set()
        await until(lambda: recorder.numbers[-1:] == [100])
        assert recorder.numbers == list(range(1, 101))
        assert chain.reads == list(range(2, 37)), "the blocks no longer in memory were read back from storage"
        assert recorder.ended == []
        await hub.close()

    run(scenario)


def test_a_subscriber_that_takes_nothing_is_dropped_once_with_a_warning(caplog):
    caplog.set_level(logging.INFO, "xo_devnet.events")

    async def scenario():
        chain = Chain(head=0)
        hub = make_hub(chain, stall_timeout=0.1)
        stuck, healthy = Recorder(), Recorder()
        stuck.gate.clear()
        hub.subscribe("stuck", 1, stuck.deliver, stuck.on_end)
        hub.subscribe("healthy", 1, healthy.deliver, healthy.on_end)
        for _ in range(3):
            chain.commit(hub)
        await until(lambda: stuck.ended)
        assert stuck.ended == ["it took nothing for 0.1 s (not reading)"]
        assert hub.subscriber_count == 1
        assert hub.dropped == 1  # counted for /metrics
        await until(lambda: healthy.numbers == [1, 2, 3])
        await hub.close()

    run(scenario)
    warnings = [record.getMessage() for record in caplog.records if record.levelno >= logging.WARNING]
    assert warnings == ["dropping event subscriber stuck: it took nothing for 0.1 s (not reading)"]


def test_a_transport_whose_peer_is_gone_ends_its_subscriber_quietly(caplog):
    async def scenario():
        chain = Chain(head=0)
        hub = make_hub(chain)
        ended = []

        async def gone(_: BlockEvents) -> None:
            raise SubscriberGone("its connection is gone")

        hub.subscribe("gone", 0, gone, ended.append)
        await until(lambda: ended)
        assert hub.dropped == 0  # it left: nothing the ledger did
        assert ended == ["its connection is gone"]
        assert hub.subscriber_count == 0

    run(scenario)
    assert not [record for record in caplog.records if record.levelno >= logging.WARNING]


def test_slots_are_bounded_and_released_once():
    chain = Chain(head=0)
    hub = make_hub(chain, max_subscribers=2)
    first, second = hub.reserve(), hub.reserve()
    with pytest.raises(TooManySubscribers, match="All 2 event subscriber places"):
        hub.reserve()
    first.release()
    first.release()
    third = hub.reserve()
    with pytest.raises(TooManySubscribers):
        hub.reserve()
    second.release()
    third.release()


def test_catch_up_starts_after_the_newest_known_block_and_the_null_id_means_genesis():
    chain = Chain(head=9)
    hub = make_hub(chain)
    assert hub.first_block_after(["id3", "unknown", "id7", "id5"]) == 8
    assert hub.first_block_after([NULL_BLOCK_ID]) == 0
    assert hub.first_block_after(["id9"]) == 10
    with pytest.raises(UnknownBlock):
        hub.first_block_after(["unknown", "id10"])


def test_blocks_beyond_the_published_head_are_not_served_even_if_storage_has_them():
    chain = Chain(head=3)
    hub = make_hub(chain)
    chain.blocks[4] = block(4)  # written by storage, its commit not yet reported
    assert hub.block_events(4) is None
    assert hub.block_events_by_id("id4") is None
    assert hub.block_events(3).block_id == "id3"


def test_stopping_a_subscriber_sends_nothing_more():
    async def scenario():
        chain = Chain(head=0)
        hub = make_hub(chain)
        recorder = Recorder()
        subscriber = hub.subscribe("s", 1, recorder.deliver, recorder.on_end)
        chain.commit(hub)
        await until(lambda: recorder.numbers == [1])
        await subscriber.stop()
        chain.commit(hub)
        await asyncio.sleep(0.02)
        assert recorder.numbers == [1]
        assert recorder.ended == []
        assert hub.subscriber_count == 0

    run(scenario)
