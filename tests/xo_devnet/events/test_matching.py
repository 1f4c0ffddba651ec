"""Filters run off the event loop, with one CPU budget per block for all subscribers: the slow ones are dropped,
the honest ones get every block."""

import asyncio
import itertools
import threading

import pytest

from tests.xo_devnet.harness import SIGNER, address, kv_batch
from xo_core.protobuf.events_pb2 import Event, EventFilter, EventList, EventSubscription
from xo_core.protobuf.transaction_receipt_pb2 import StateChange, TransactionReceipt
from xo_devnet.chain import build_block
from xo_devnet.events.blocks import BlockEvents
from xo_devnet.events.filters import FilterTimeout, compile_subscriptions
from xo_devnet.events.matching import Matcher
from xo_devnet.merkle import EMPTY_ROOT

MICROSECOND = 1e-6


def busy_block(changes: int = 2000) -> BlockEvents:
    """A block with one hostile game name and ``changes`` state changes: as many ``address`` attributes to search."""
    receipt = TransactionReceipt(
        transaction_id="t1",
        state_changes=[StateChange(address=address(n), value=b"x", type=StateChange.SET) for n in range(changes)],
        events=[Event(event_type="xo/create", attributes=[Event.Attribute(key="name", value="a" * 40 + "!")])],
    )
    block = build_block(SIGNER, block_num=9, previous_block_id="p" * 128, batches=[kv_batch()], state_root=EMPTY_ROOT)
    return BlockEvents.of(block, [receipt])


def regex(event_type: str, key: str, pattern: str):
    filters = [EventFilter(key=key, match_string=pattern, filter_type=EventFilter.REGEX_ANY)]
    return compile_subscriptions([EventSubscription(event_type=event_type, filters=filters)])


SLOW = regex("sawtooth/state-delta", "address", "z")  # searches every address, finds none
HONEST = regex("xo/create", "name", "^a")


def ticking_clock():
    """Every reading is 1 µs after the one before: each search costs 1 µs of "CPU", whatever the machine does."""
    readings = itertools.count()
    return lambda: next(readings) * MICROSECOND


def test_slow_filters_use_up_the_blocks_budget_and_are_dropped_while_the_honest_one_gets_its_share():
    matcher = Matcher(budget_seconds=1000 * MICROSECOND, clock=ticking_clock())
    block = busy_block()

    async def scenario():
        for _ in range(9):
            with pytest.raises(FilterTimeout, match="of CPU on one block's events"):
                await matcher.event_list(block, SLOW, sharers=10)
        honest = EventList.FromString(await matcher.event_list(block, HONEST, sharers=10))
        assert [event.event_type for event in honest.events] == ["xo/create"]
        # the first slow subscriber had the whole budget, the others their share (a tenth): twice the budget at most
        assert 1000 * MICROSECOND < matcher.spent(block.block_num) < 2 * 1000 * MICROSECOND

    try:
        asyncio.run(scenario())
    finally:
        matcher.close()


def test_each_block_has_a_whole_budget_of_its_own():
    matcher = Matcher(budget_seconds=1000 * MICROSECOND, clock=ticking_clock())
    spent, medium, next_medium = busy_block(), busy_block(changes=900), busy_block(changes=900)
    next_medium.block_num = spent.block_num + 1
    medium_and_slow = regex("sawtooth/state-delta", "address", "y")

    async def scenario():
        with pytest.raises(FilterTimeout):
            await matcher.event_list(spent, SLOW, sharers=10)
        with pytest.raises(FilterTimeout):  # 900 searches: over the tenth of block 9's budget that is left
            await matcher.event_list(medium, medium_and_slow, sharers=10)
        assert EventList.FromString(await matcher.event_list(next_medium, medium_and_slow, sharers=10)).events == []

    try:
        asyncio.run(scenario())
    finally:
        matcher.close()


def test_the_searches_run_on_the_matchers_thread_never_on_the_loop():
    searched_on: set[str] = set()
    readings = itertools.count()

    def clock() -> float:
        searched_on.add(threading.current_thread().name)
        return next(readings) * MICROSECOND

    matcher = Matcher(clock=clock)

    async def scenario():
        await matcher.event_list(busy_block(changes=10), HONEST, sharers=1)
        await matcher.events_for(busy_block(changes=10), SLOW, sharers=1)

    try:
        asyncio.run(scenario())
    finally:
        matcher.close()
    assert searched_on and all(name.startswith("xo-event-filters") for name in searched_on)
    assert threading.main_thread().name not in searched_on
