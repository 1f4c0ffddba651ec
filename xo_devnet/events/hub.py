"""Fan-out of committed blocks to subscribers, each in order, each block once, none able to slow a commit.

The ledger calls ``EventHub.publish`` once per committed block, after its head moved;
``publish`` only appends to queues and returns. Each subscriber has a task of its own
(its pump) that walks a cursor, the number of the next block it must be sent:

- while the cursor is at or below the published head, the pump reads that block's
  events from storage (``History``), one block at a time: catch-up from an old block
  streams without holding the chain in memory;
- once it has passed the head, it switches to live in the same synchronous step, so
  the next published block is queued for it and nothing falls between catch-up and
  live;
- live blocks wait in a queue of at most ``queue_limit`` blocks (shared objects, so a
  queue costs references). A subscriber that falls further behind is not dropped:
  its queue is emptied and it goes back to reading from storage where its cursor is;
- a published block wakes the pumps ``_WAKE_PER_TURN`` at a time, one batch per turn
  of the loop, so that REST requests are served between them; each pump has its
  filters run off the loop (``matching``), and only sends on it.

A subscriber whose transport accepts nothing for ``stall_timeout`` seconds (a client
that stopped reading, once the socket buffers between us are full) is dropped (a
watchdog sweeps the subscribers four times per timeout), and so is one whose filters
are too slow; both are logged at WARNING. A transport that
reports its peer gone ends the subscriber quietly. Every line a client can cause goes
through the hub's ``log_limiter``: a block that drops two hundred subscribers writes
one line at once and one count at the end of the interval, not two hundred. The number of subscribers is
bounded: ``reserve`` hands out at most ``max_subscribers`` slots (ZMQ subscriptions and
open websockets together).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import OrderedDict, deque
from collections.abc import Awaitable, Callable, Sequence
from typing import Protocol

from xo_core.log_limits import LogLimiter
from xo_core.protobuf.events_pb2 import Event
from xo_devnet.chain import NULL_BLOCK_ID
from xo_devnet.events.blocks import BlockEvents
from xo_devnet.events.filters import FilterTimeout, Subscriptions
from xo_devnet.events.matching import Matcher

LOG = logging.getLogger(__name__)

_RECENT_BLOCKS = 64
"""Newest published blocks kept in memory: new subscribers and short catch-ups need no storage read."""
_WAKE_PER_TURN = 16
"""Subscribers woken per turn of the event loop when a block is published."""


class History(Protocol):
    """Committed blocks as storage holds them."""

    def block_events(self, block_num: int) -> BlockEvents | None: ...

    def block_num_of(self, block_id: str) -> int | None: ...


class TooManySubscribers(Exception):
    """Every subscriber slot is taken."""


MAX_LAST_KNOWN_BLOCK_IDS = 100
"""Most ``last_known_block_ids`` one subscription may name (Sawtooth sets no bound; a lookup each)."""


class UnknownBlock(Exception):
    """None of a client's last known block ids is a block of this chain."""


class SubscriberGone(Exception):
    """Raised by a transport whose peer has gone: the subscriber ends without a warning."""


Deliver = Callable[[BlockEvents], Awaitable[None]]
OnEnd = Callable[[str | None], None]


class Slot:
    """One of the hub's ``max_subscribers`` places; released once, by whoever holds it."""

    def __init__(self, hub: EventHub) -> None:
        self._hub: EventHub | None = hub

    def release(self) -> None:
        if self._hub is not None:
            self._hub._slots_taken -= 1
            self._hub = None


class Subscriber:
    """One client's cursor over the chain, its queue of live blocks, and the task that sends them."""

    def __init__(self, hub: EventHub, name: str, next_num: int, deliver: Deliver, on_end: OnEnd) -> None:
        self.name = name
        self._hub = hub
        self._next_num = next_num
        self._deliver = deliver
        self._on_end = on_end
        self._live = False
        self._queue: deque[BlockEvents] = deque()
        self._waiter: asyncio.Future[None] | None = None
        self._task: asyncio.Task[None] | None = None
        self._stalled = False
        self._cancelled = False
        self.sending_since: float | None = None
        """When the block being delivered was handed to the transport (loop time); None between blocks."""

    def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name=f"xo-events-{self.name}")

    def cancel(self) -> asyncio.Task[None] | None:
        """End the subscription now (the client unsubscribed or went away): nothing more is sent from here on.

        Its ``on_end`` is not called. Returns the task, still finishing, for the caller to keep or await.
        """
        self._hub._subscribers.discard(self)
        self._stalled = False  # even if a stall was being handled: the caller ends it, without on_end
        self._cancelled = True
        if self._task is not None and not self._task.done():
            if self._waiter is not None and not self._waiter.done():
                self._waiter.set_result(None)  # idle: it returns when it wakes, and leaves no exception behind
            else:
                self._task.cancel()
        return self._task

    async def stop(self) -> None:
        """``cancel``, and wait until the task has finished."""
        task = self.cancel()
        if task is not None:
            with contextlib.suppress(asyncio.CancelledError):
                await task

    def stall(self) -> None:
        """Its transport has taken nothing for the stall timeout: drop it (its ``on_end`` is called)."""
        if self._task is not None and not self._task.done() and not self._stalled:
            self._stalled = True
            self._task.cancel()

    def offer(self, block: BlockEvents) -> None:
        """A block was committed: queue it if live; past the queue's bound, fall back to storage.

        The pump is not woken here: the hub wakes its subscribers a turn at a time (``wake``).
        """
        if self._live:
            if len(self._queue) >= self._hub.queue_limit:
                self._hub.log_limiter.log(
                    LOG, "behind", logging.INFO, "event subscriber %s is %d blocks behind; it continues from storage",
                    self.name, len(self._queue),
                )  # fmt: skip
                self._live = False
                self._queue.clear()
            else:
                self._queue.append(block)

    def wake(self) -> None:
        """Let the pump send what is waiting for it (a block offered, or catch-up to resume)."""
        if self._waiter is not None and not self._waiter.done():
            self._waiter.set_result(None)

    def _take(self) -> BlockEvents | None:
        """The next block to send, or None when there is none yet (and the subscriber is then live)."""
        if self._live:
            return self._queue.popleft() if self._queue else None
        if self._next_num > self._hub.head_num:
            self._live = True
            return None
        block = self._hub.block_events(self._next_num)
        if block is None:
            raise LookupError(f"block {self._next_num} is missing from storage")
        return block

    async def _run(self) -> None:
        loop = asyncio.get_running_loop()
        reason: str | None = None
        try:
            while True:
                block = self._take()
                if block is None:
                    self._waiter = loop.create_future()
                    await self._waiter
                    if self._cancelled:
                        return
                    continue
                self.sending_since = loop.time()
                await self._deliver(block)
                self.sending_since = None
                self._next_num = block.block_num + 1
                if not self._live:
                    await asyncio.sleep(0)  # a transport with room never suspends: let a long catch-up share the loop
        except asyncio.CancelledError:
            if not self._stalled:
                return  # ended by its owner: quietly, and with no exception kept to tie the task to this object
            reason = f"it took nothing for {self._hub.stall_timeout:g} s (not reading)"
            self._log("stalled", logging.WARNING, "dropping event subscriber %s: %s", reason)
            self._hub.dropped += 1
        except SubscriberGone as gone:
            reason = str(gone)
            self._log("gone", logging.INFO, "event subscriber %s ended: %s", reason)
        except FilterTimeout as error:
            reason = f"its filter is too slow: {error}"
            self._log("too-slow", logging.WARNING, "dropping event subscriber %s: %s", reason)
            self._hub.dropped += 1
        except Exception as error:
            reason = "an internal error"
            self._log("failed", logging.ERROR, "event subscriber %s failed: %s", reason, exc_info=error)
            self._hub.dropped += 1
        self._hub._subscribers.discard(self)
        self._on_end(reason)

    def _log(self, key: str, level: int, message: str, reason: str, exc_info: BaseException | None = None) -> None:
        self._hub.log_limiter.log(LOG, key, level, message, self.name, reason, exc_info=exc_info)


class EventHub:
    """The subscribers of one ledger and the newest blocks published to them."""

    def __init__(
        self,
        history: History,
        head_num: int,
        *,
        max_subscribers: int,
        queue_limit: int,
        stall_timeout: float,
    ) -> None:
        self._history = history
        self._head_num = head_num
        self.max_subscribers = max_subscribers
        self.queue_limit = queue_limit
        self.stall_timeout = stall_timeout
        self._slots_taken = 0
        self.dropped = 0
        """Subscribers the ledger ended: stalled (not reading), too slow a filter, or an internal error."""
        self._subscribers: set[Subscriber] = set()
        self._recent: OrderedDict[int, BlockEvents] = OrderedDict()
        self._watchdog: asyncio.Task[None] | None = None
        self._matcher = Matcher()
        self.log_limiter = LogLimiter()
        """For every line a client can cause, here and in the transports (ZMQ, websockets): one per interval."""

    @property
    def head_num(self) -> int:
        """The number of the newest published (durable) block."""
        return self._head_num

    @property
    def subscriber_count(self) -> int:
        return len(self._subscribers)

    def publish(self, block: BlockEvents) -> None:
        """A block is durable and is the new head: hand it to every subscriber. Never waits."""
        self._head_num = block.block_num
        self._recent[block.block_num] = block
        while len(self._recent) > _RECENT_BLOCKS:
            self._recent.popitem(last=False)
        subscribers = list(self._subscribers)
        for subscriber in subscribers:
            subscriber.offer(block)
        self._wake(subscribers)

    def _wake(self, subscribers: list[Subscriber]) -> None:
        """Wake ``_WAKE_PER_TURN`` subscribers now and the rest in later turns of the loop.

        Woken at once, two hundred pumps would each take their step (a send, an encoding)
        in one turn of the loop, and every REST request would wait for all of them.
        """
        for subscriber in subscribers[:_WAKE_PER_TURN]:
            subscriber.wake()
        if len(subscribers) > _WAKE_PER_TURN:
            asyncio.get_running_loop().call_soon(self._wake, subscribers[_WAKE_PER_TURN:])

    def reserve(self) -> Slot:
        """A subscriber slot; raises TooManySubscribers when all ``max_subscribers`` are taken."""
        if self._slots_taken >= self.max_subscribers:
            raise TooManySubscribers(
                f"All {self.max_subscribers} event subscriber places of this ledger are taken; try again later"
            )
        self._slots_taken += 1
        return Slot(self)

    def subscribe(self, name: str, next_num: int, deliver: Deliver, on_end: OnEnd) -> Subscriber:
        """Start sending blocks from number ``next_num`` on; ``deliver`` is awaited once per block, in order.

        ``on_end(reason)`` is called if the subscriber ends by itself (dropped, or its
        peer gone), not after ``Subscriber.stop``.
        """
        subscriber = Subscriber(self, name, next_num, deliver, on_end)
        self._subscribers.add(subscriber)
        subscriber.start()
        if self._watchdog is None:
            self._watchdog = asyncio.create_task(self._watch(), name="xo-events-watchdog")
        return subscriber

    async def _watch(self) -> None:
        """Drop the subscribers whose transport has been stuck on one block for ``stall_timeout``.

        One sweep every quarter of the timeout rather than a timer per delivery: a
        hundred subscribers take a block several times a second.
        """
        loop = asyncio.get_running_loop()
        while True:
            await asyncio.sleep(self.stall_timeout / 4)
            now = loop.time()
            for subscriber in list(self._subscribers):
                since = subscriber.sending_since
                if since is not None and now - since > self.stall_timeout:
                    subscriber.stall()

    def first_block_after(self, last_known_block_ids: Sequence[str]) -> int:
        """Where catch-up starts: after the newest of these blocks on the chain (the null id: before genesis).

        Raises UnknownBlock when none of them is known, as the validator answers UNKNOWN_BLOCK,
        and when there are more than ``MAX_LAST_KNOWN_BLOCK_IDS`` (each is a lookup; a client
        that knows where it stopped needs one).
        """
        if len(last_known_block_ids) > MAX_LAST_KNOWN_BLOCK_IDS:
            raise UnknownBlock(
                f"too many last known block ids: {len(last_known_block_ids)} (at most {MAX_LAST_KNOWN_BLOCK_IDS});"
                " send the newest few"
            )
        known = [-1 if block_id == NULL_BLOCK_ID else self.block_num_of(block_id) for block_id in last_known_block_ids]
        numbers = [number for number in known if number is not None]
        if not numbers:
            raise UnknownBlock("none of the last known block ids is a block of this chain")
        return max(numbers) + 1

    def block_num_of(self, block_id: str) -> int | None:
        for number, block in reversed(self._recent.items()):
            if block.block_id == block_id:
                return number
        number = self._history.block_num_of(block_id)
        return number if number is not None and number <= self._head_num else None

    def block_events(self, block_num: int) -> BlockEvents | None:
        """A published block's events, from memory when recent, else from storage."""
        if block_num > self._head_num:
            return None
        return self._recent.get(block_num) or self._history.block_events(block_num)

    async def event_list(self, block: BlockEvents, subscriptions: Subscriptions) -> bytes:
        """A subscriber's encoded ``EventList`` for ``block``, filtered off the loop (``matching``); may raise
        FilterTimeout, and the subscriber that gets it is dropped."""
        return await self._matcher.event_list(block, subscriptions, self.subscriber_count)

    async def events_for(self, block: BlockEvents, subscriptions: Subscriptions) -> list[Event]:
        """``block``'s events in ``subscriptions`` for a one-off request, filtered as ``event_list`` does."""
        return await self._matcher.events_for(block, subscriptions, self.subscriber_count + 1)

    def block_events_by_id(self, block_id: str) -> BlockEvents | None:
        number = self.block_num_of(block_id)
        return None if number is None else self.block_events(number)

    async def close(self) -> None:
        """Stop every subscriber (the ledger is stopping)."""
        tasks = [subscriber.cancel() for subscriber in list(self._subscribers)]
        if self._watchdog is not None:
            tasks.append(self._watchdog)
            self._watchdog.cancel()
        await asyncio.gather(*(task for task in tasks if task is not None), return_exceptions=True)
        self._matcher.close()
        self.log_limiter.flush()
