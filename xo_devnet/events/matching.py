"""Where event filters run: in one worker thread, never on the event loop, under one CPU budget per block.

A ZMQ subscriber's filters are the client's own regular expressions, applied to every
event of every block. RE2 makes each search linear in the value searched (see
``filters``), but a subscriber may still bring hundreds of patterns, and two hundred
subscribers multiply that: run on the loop, their searches would hold up every REST
request and every commit behind them. So the searches run in one thread of their own
(RE2 releases the GIL while it searches); the loop only awaits the encoded answer.

One budget for all subscribers per block (``BLOCK_BUDGET_SECONDS`` of the thread's
CPU): the searches for one subscriber over one block may use whatever of the block's
budget the subscribers before it left, and never less than an even share of it (the
budget divided by the number of subscribers). A subscriber whose filters need more is
dropped (``FilterTimeout``, logged by the hub). Honest filters cost microseconds, far
below their share, so they are never dropped, whoever else subscribes: however many
slow filters come first, a block costs at most twice the budget, and every honest
subscriber still gets every block. Equal subscriptions share one search and one
encoding per block (``BlockEvents``' cache), answered on the loop without the thread.
"""

from __future__ import annotations

import asyncio
import time
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

from xo_core.protobuf.events_pb2 import Event
from xo_devnet.events.blocks import BlockEvents
from xo_devnet.events.filters import Budget, Subscriptions

BLOCK_BUDGET_SECONDS = 0.25
"""CPU time all subscribers' searches may take over one block, shared out as above."""
_BLOCKS_TRACKED = 256
"""Blocks whose spent budget is remembered (catch-up reads old blocks too)."""

T = TypeVar("T")


class Matcher:
    """The worker thread that runs subscribers' filters, and what each block's budget has spent."""

    def __init__(self, budget_seconds: float | None = None, clock: Callable[[], float] = time.thread_time) -> None:
        self.budget_seconds = BLOCK_BUDGET_SECONDS if budget_seconds is None else budget_seconds
        self._clock = clock
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="xo-event-filters")
        self._spent: OrderedDict[int, float] = OrderedDict()
        """Block number -> CPU seconds its searches took; touched by the worker thread only."""

    async def event_list(self, block: BlockEvents, subscriptions: Subscriptions, sharers: int) -> bytes:
        """The encoded ``EventList`` for ``subscriptions``; FilterTimeout past its share of the block's budget.

        ``sharers`` is how many subscribers the budget is shared among (the subscribers now).
        """
        cached = block.cached_event_list(subscriptions)
        if cached is not None:
            return cached
        return await self._run(block.block_num, sharers, lambda budget: block.event_list(subscriptions, budget))

    async def events_for(self, block: BlockEvents, subscriptions: Subscriptions, sharers: int) -> list[Event]:
        """The block's events in ``subscriptions`` (for a one-off request); FilterTimeout as for ``event_list``."""
        return await self._run(block.block_num, sharers, lambda budget: block.events_for(subscriptions, budget))

    async def _run(self, block_num: int, sharers: int, search: Callable[[Budget], T]) -> T:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._executor, self._charged, block_num, sharers, search)

    def _charged(self, block_num: int, sharers: int, search: Callable[[Budget], T]) -> T:
        """Run ``search`` on the worker thread with what the block's budget allows, and charge what it took."""
        spent = self._spent.get(block_num, 0.0)
        budget = Budget(max(self.budget_seconds / max(1, sharers), self.budget_seconds - spent), self._clock)
        try:
            return search(budget)
        finally:
            self._spent[block_num] = spent + budget.used
            self._spent.move_to_end(block_num)
            while len(self._spent) > _BLOCKS_TRACKED:
                self._spent.popitem(last=False)

    def spent(self, block_num: int) -> float:
        """CPU seconds the searches over block ``block_num`` have taken so far (0 once forgotten)."""
        return self._spent.get(block_num, 0.0)

    def close(self) -> None:
        """Stop the worker thread (searches queued are dropped; one running finishes on its own)."""
        self._executor.shutdown(wait=False, cancel_futures=True)
