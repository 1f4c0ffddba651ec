"""Following the chain: every committed block's state changes under some address prefixes, in order, exactly once.

A follower stands on one block (its *cursor*) and delivers each block after it as a
:class:`~client_core.blocks.BlockChanges`, oldest first, moving the cursor as it goes.
It knows no family: a command gives it address prefixes and reads the changes.

Where the blocks come from:

- **The ``/subscriptions`` websocket** first. The follower subscribes with its prefixes
  and ``last_known_block_ids`` (its cursor). xo-devnet honours that field and sends
  every block after the cursor; Sawtooth's REST API ignores it and starts with the
  newest block it has seen. So every block received is checked against the cursor:
  the block after it (its ``previous_block_id`` is the cursor) is delivered; one
  already delivered, or an older head at the start of a subscription, is skipped; a
  block further on means blocks were missed (a reconnection to Sawtooth's REST API,
  or its validator reconnecting), and they are read from the REST API before it.
- **Polling**, when the websocket is refused (a proxy without websockets, a subscriber
  limit's 429): one line says so, then ``GET /blocks?limit=1`` every ``poll_seconds``,
  and when the head has moved, the blocks up to it.

Missed blocks are always read the same way, by *catching up* through the REST API:
``GET /blocks?head=...`` pages (at most 100 blocks each) from the newest missed
block back to the cursor, then ``POST /receipts`` for the transactions whose
``outputs`` may touch the prefixes (100 per request), squashed to each block's last
change per address -- what the validator's state-delta event, and so the websocket,
carries. Where the chain from the newest block does not lead back to the cursor,
the cursor's block is no longer on the chain (a fork resolved the other way, or a
ledger started afresh): :class:`~client_core.blocks.ChainChanged` is raised, and the
consumer decides (start again from a fresh read of state). A one-node devnet never
forks, and PBFT finalises every block, so this happens there only after a reset.

Failures that may pass (:class:`~client_core.async_rest.Transient`: the connection
dropped or was refused, a time-out, a 5xx, a 429 on a request) are retried with
back-off (0.1 s doubling to 5 s, with jitter) for as long as it takes; one notice
says the connection was lost and one that it is back. Others (credentials refused,
answers that are not Sawtooth's) end the iteration with their error. Every HTTP
request keeps :mod:`client_core.rest`'s deadline; a silent websocket is pinged.

:class:`AsyncFollower` is the asyncio core (for servers); :class:`Follower` runs it
for a blocking command, one block per ``next()``: a Ctrl-C while it waits cancels
the wait cleanly and raises ``KeyboardInterrupt``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import math
import random
import signal
import threading
from collections import OrderedDict
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable, Iterator, Sequence
from types import FrameType
from typing import Any, Final, TypeVar

import aiohttp

from client_core.async_rest import AsyncRest, Transient, WebsocketRefused
from client_core.blocks import (
    BlockChanges,
    BlockRef,
    ChainBlock,
    ChainChanged,
    ServerNote,
    may_write_under,
    squash,
)
from client_core.errors import Unavailable
from client_core.rest import BLOCKS_PER_PAGE, RECEIPTS_PER_REQUEST, REQUEST_TIMEOUT

__all__ = ["AsyncFollower", "BlockChanges", "BlockRef", "ChainChanged", "Follower"]

T = TypeVar("T")
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)

POLL_SECONDS = 1.0
FIRST_PAUSE = 0.1
MAX_PAUSE = 5.0
HEALTHY_SECONDS = 10.0
"""A connection up this long counts as healthy again: the next failure starts the pauses afresh."""
RECENT_BLOCKS = 256
"""Blocks remembered by number, to tell a block sent again from a block of another fork."""


class _Connected:
    """Said by a source once it is connected (or polling answered): the moment to report a reconnection."""


CONNECTED: Final = _Connected()


class AsyncFollower:
    """Follows the chain of the REST API at ``base_url`` under ``prefixes`` (none: every address).

    ``after`` is the block to start after; without it, the newest block when
    :meth:`start` (or the iteration) begins. ``on_notice`` receives one-line notices
    for a person (the websocket refused, the connection lost and back); ``trace`` one
    line per HTTP request (``-v``). Use ``async for block in follower`` once, and
    :meth:`aclose` (or ``async with``) at the end.
    """

    def __init__(
        self,
        base_url: str,
        prefixes: Sequence[str] = (),
        *,
        after: BlockRef | None = None,
        auth: tuple[str, str] | None = None,
        websocket: bool = True,
        poll_seconds: float = POLL_SECONDS,
        on_notice: Callable[[str], None] | None = None,
        trace: Callable[[str], None] | None = None,
        timeout: float = REQUEST_TIMEOUT,
    ) -> None:
        self.prefixes = tuple(prefixes)
        self._rest = AsyncRest(base_url, auth=auth, timeout=timeout, trace=trace)
        self.base_url = self._rest.base_url
        self._cursor = after
        self._recent: OrderedDict[int, str] = OrderedDict()
        if after is not None:
            self._remember(after)
        self._websocket = websocket
        self._poll_seconds = poll_seconds
        self._notice = on_notice if on_notice is not None else _ignore
        self._iterator: AsyncGenerator[BlockChanges, None] | None = None

    @property
    def cursor(self) -> BlockRef | None:
        """The last block delivered (or the one started after): where to resume later with ``after=``."""
        return self._cursor

    @property
    def polling(self) -> bool:
        """Whether the websocket was refused and the follower polls instead."""
        return not self._websocket

    async def start(self) -> BlockRef:
        """The block the follower starts after: ``after``, else the newest block now. Failures here are not retried."""
        if self._cursor is None:
            self._cursor = (await self._rest.head_block()).ref
            self._remember(self._cursor)
        return self._cursor

    def __aiter__(self) -> AsyncIterator[BlockChanges]:
        if self._iterator is None:
            self._iterator = self._follow()
        return self._iterator

    async def aclose(self) -> None:
        """Stop following: close the websocket and the HTTP session."""
        if self._iterator is not None:
            await self._iterator.aclose()
        await self._rest.close()

    async def __aenter__(self) -> AsyncFollower:
        return self

    async def __aexit__(self, *_exc: object) -> None:
        await self.aclose()

    # --- following ---

    async def _follow(self) -> AsyncGenerator[BlockChanges, None]:
        """Blocks from one source after another: a failure that may pass is followed by a pause, then a new source.

        The pauses grow with each failure and shrink back only once a connection has
        delivered a block or stayed up for :data:`HEALTHY_SECONDS`, so a server that
        accepts connections and drops them at once is not hammered.
        """
        await self.start()
        lost = False
        failures = 0
        loop = asyncio.get_running_loop()
        while True:
            source = self._subscribed() if self._websocket else self._polled()
            connected_at: float | None = None
            try:
                async with contextlib.aclosing(source):
                    async for item in source:
                        if isinstance(item, _Connected):
                            connected_at = loop.time()
                            if lost:
                                self._notice(f"reconnected to the REST API at {self.base_url}; "
                                             f"resuming after block {self._position().block_num}")
                            lost = False
                            continue
                        failures = 0
                        self._cursor = item.ref
                        self._remember(item.ref)
                        yield item
            except WebsocketRefused as refused:
                self._websocket = False
                self._notice(f"{refused.message}: polling for new blocks every {self._poll_seconds:g} s instead")
            except Transient as error:
                if connected_at is not None and loop.time() - connected_at >= HEALTHY_SECONDS:
                    failures = 0
                failures += 1
                if not lost:
                    lost = True
                    self._notice(f"{error.message}; reconnecting")
                await asyncio.sleep(pause(failures))

    async def _subscribed(self) -> AsyncIterator[BlockChanges | _Connected]:
        """Blocks from the websocket, linked onto the cursor (see the module's docstring)."""
        async with self._rest.websocket() as ws:
            subscribe = {
                "action": "subscribe",
                "address_prefixes": list(self.prefixes),
                "last_known_block_ids": [self._position().block_id],
            }
            try:
                async with asyncio.timeout(self._rest.timeout):
                    await ws.send_str(json.dumps(subscribe))
            except (ConnectionError, aiohttp.ClientError, TimeoutError) as error:
                raise Transient(f"the REST API at {self.base_url} took no subscription ({error!r})") from None
            yield CONNECTED
            first = True
            while True:
                message = await self._rest.receive(ws)
                if isinstance(message, ServerNote):
                    self._server_said(message)
                    continue
                async for block in self._linked(message, first):
                    yield block
                first = False

    def _server_said(self, note: ServerNote) -> None:
        """A warning is passed on; an error means the subscription did not take."""
        if note.kind == "warning":
            self._notice(f"the REST API at {self.base_url} warns: {note.text}")
        elif note.text.startswith("Unknown block"):
            raise self._changed()
        else:
            raise Unavailable(f"the REST API at {self.base_url} refused the subscription: {note.text}")

    async def _linked(self, block: BlockChanges, first: bool) -> AsyncIterator[BlockChanges]:
        """``block`` and any blocks missed before it, if it comes after the cursor; nothing if it does not."""
        cursor = self._position()
        if self._recent.get(block.block_num) == block.block_id:
            return  # delivered already
        if block.block_num <= cursor.block_num:
            if first:
                return  # Sawtooth's REST API starts with the newest block it has seen, which may be behind ours
            raise self._changed()
        if block.block_num > cursor.block_num + 1 or block.previous_block_id != cursor.block_id:
            async for missed in self._catch_up(block.previous_block_id):
                yield missed
            if block.block_num != self._position().block_num + 1:
                raise self._rest.answers.not_sawtooth(
                    f"{self._rest.base_url}/subscriptions numbers block {block.block_id[:16]}... "
                    f"{block.block_num}, but its previous block is {self._position().block_num}"
                )
        yield block

    async def _polled(self) -> AsyncIterator[BlockChanges | _Connected]:
        """Blocks from ``GET /blocks``: the head every ``poll_seconds``, and the blocks up to it when it moved."""
        connected = False
        while True:
            head = await self._rest.head_block()
            if not connected:
                connected = True
                yield CONNECTED
            cursor = self._position()
            if head.block_num > cursor.block_num:
                async for block in self._catch_up(head.block_id, head):
                    yield block
                continue
            if head.block_id != cursor.block_id and (
                head.block_num == cursor.block_num or not await self._rest.has_block(cursor.block_id)
            ):
                raise self._changed()
            await asyncio.sleep(self._poll_seconds)

    async def _catch_up(self, head_id: str, head: ChainBlock | None = None) -> AsyncIterator[BlockChanges]:
        """Every block after the cursor up to ``head_id``, read from the REST API, oldest first.

        Blocks are read newest first, 100 per request and never more than needed,
        keeping only the transactions that may write under the prefixes (without their
        payloads); then the receipts of those, 100 per request, as the blocks are given
        out. If the chain from ``head_id`` does not lead back to the cursor, the
        cursor's block is not on it: :class:`ChainChanged`.
        """
        cursor = self._position()
        newest_first: list[ChainBlock] = []
        if head is not None:
            newest_first.append(self._trimmed(head))
        while not newest_first or newest_first[-1].block_num > cursor.block_num + 1:
            older = newest_first[-1] if newest_first else None
            wanted = older.block_num - cursor.block_num - 1 if older else BLOCKS_PER_PAGE
            page = await self._rest.blocks(older.previous_block_id if older else head_id, min(wanted, BLOCKS_PER_PAGE))
            if not page:
                raise self._changed()
            for block in page:
                self._check_link(newest_first[-1] if newest_first else None, block, head_id)
                if block.block_num <= cursor.block_num:
                    raise self._changed()
                newest_first.append(self._trimmed(block))
                if block.block_num == cursor.block_num + 1:
                    break
        if newest_first[-1].previous_block_id != cursor.block_id:
            raise self._changed()
        group: list[ChainBlock] = []
        for block in reversed(newest_first):
            group.append(block)
            if sum(len(member.transactions) for member in group) >= RECEIPTS_PER_REQUEST or block is newest_first[0]:
                wanted_ids = [transaction.transaction_id for member in group for transaction in member.transactions]
                receipts = await self._rest.receipts(wanted_ids) if wanted_ids else {}
                for member in group:
                    yield squash(member, receipts, self.prefixes)
                group = []

    def _check_link(self, newer: ChainBlock | None, block: ChainBlock, head_id: str) -> None:
        """Each block read must be the previous one of the block read before it (the first: the head asked for)."""
        if newer is None:
            linked = block.block_id == head_id
        else:
            linked = block.block_id == newer.previous_block_id and block.block_num == newer.block_num - 1
        if not linked:
            raise self._rest.answers.not_sawtooth(
                f"/blocks?head={head_id[:16]}... lists block {block.block_num} ({block.block_id[:16]}...) "
                "out of the chain's order"
            )

    def _trimmed(self, block: ChainBlock) -> ChainBlock:
        """``block`` with only the transactions that may write under the prefixes, without payloads: what to keep."""
        kept = tuple(
            transaction._replace(payload=b"")
            for transaction in block.transactions
            if may_write_under(transaction, self.prefixes)
        )
        return block._replace(transactions=kept)

    def _position(self) -> BlockRef:
        assert self._cursor is not None, "start() sets the cursor before any block is read"
        return self._cursor

    def _remember(self, ref: BlockRef) -> None:
        self._recent[ref.block_num] = ref.block_id
        self._recent.move_to_end(ref.block_num)
        while len(self._recent) > RECENT_BLOCKS:
            self._recent.popitem(last=False)

    def _changed(self) -> ChainChanged:
        cursor = self._position()
        return ChainChanged(
            f"block {cursor.block_num} ({cursor.block_id[:16]}...), the last one followed, is not on the chain of "
            f"the REST API at {self.base_url} any more: a fork was resolved the other way, or the ledger was "
            "started afresh"
        )


def pause(failures: int) -> float:
    """Seconds to wait before attempt ``failures + 1``: doubling from 0.1 s, give or take a quarter, 5 s at most."""
    return min(MAX_PAUSE, FIRST_PAUSE * 2 ** min(failures - 1, 16) * random.uniform(0.75, 1.25))


def _ignore(_message: str) -> None:
    pass


class _Ended:
    """What a wait for the next block gets once the iteration has ended."""


_END: Final = _Ended()


class Follower:
    """:class:`AsyncFollower` for a blocking command: ``start()``, then ``for block in follower``, then ``close()``.

    Takes the same arguments. It runs its own event loop (``asyncio.Runner``) only
    while it waits for a block, so the command's own code between blocks is plain
    blocking code. A signal must not interrupt the loop half-way through its own
    work, so while it runs, Ctrl-C and SIGTERM cancel the wait (closing what was open)
    and only then get the handling they have outside: Ctrl-C raises
    ``KeyboardInterrupt``, SIGTERM calls the command's handler (or ends the process).

    :meth:`next_within` bounds a wait: a command that gives up after some seconds
    (``--wait SECONDS``) on a quiet chain, where no block may come at all. The wait it
    cuts short is not lost: the next call takes it up, so no block is skipped.
    """

    def __init__(self, base_url: str, prefixes: Sequence[str] = (), **options: Any) -> None:
        self._runner = asyncio.Runner()
        self._follower = AsyncFollower(base_url, prefixes, **options)
        self._pending: asyncio.Future[BlockChanges | _Ended] | None = None

    @property
    def cursor(self) -> BlockRef | None:
        return self._follower.cursor

    @property
    def polling(self) -> bool:
        return self._follower.polling

    def start(self) -> BlockRef:
        """The block the follower starts after (see :meth:`AsyncFollower.start`)."""
        return self._run(self._follower.start())

    def __iter__(self) -> Iterator[BlockChanges]:
        return self

    def __next__(self) -> BlockChanges:
        block = self._run(self._next_block(None))
        if block is None or isinstance(block, _Ended):
            raise StopIteration
        return block

    def next_within(self, seconds: float) -> BlockChanges | None:
        """The next block, or ``None`` if none came within ``seconds`` (``math.inf``: as long as it takes).

        A ``None`` leaves the follower where it was: the next call goes on waiting for the
        same block.
        """
        block = self._run(self._next_block(None if math.isinf(seconds) else max(seconds, 0.0)))
        if isinstance(block, _Ended):
            raise StopIteration
        return block

    async def _next_block(self, timeout: float | None) -> BlockChanges | _Ended | None:
        """The next block (or :data:`_END`), or ``None`` after ``timeout``; the wait is a task that outlives it."""
        if self._pending is None:
            self._pending = asyncio.ensure_future(anext(aiter(self._follower), _END))
        done, _ = await asyncio.wait({self._pending}, timeout=timeout)
        if not done:
            return None
        pending, self._pending = self._pending, None
        return pending.result()

    def close(self) -> None:
        try:
            self._run(self._close())
        finally:
            self._runner.close()

    async def _close(self) -> None:
        """Cancel a wait that was cut short, then close the follower."""
        if self._pending is not None:
            pending, self._pending = self._pending, None
            pending.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await pending
        await self._follower.aclose()

    def __enter__(self) -> Follower:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    def _run(self, step: Awaitable[T]) -> T:
        """Run ``step`` in the loop; a Ctrl-C or SIGTERM meanwhile cancels it, then gets the handling it had outside.

        A step that never ran (a signal came first) is closed, so no coroutine is left never awaited.
        """
        started: list[bool] = []
        try:
            return self._run_started(step, started)
        finally:
            closing = getattr(step, "close", None)
            if not started and closing is not None:
                closing()

    def _run_started(self, step: Awaitable[T], started: list[bool]) -> T:
        received: list[tuple[int, FrameType | None]] = []
        running: list[asyncio.Task[Any]] = []
        loops: list[asyncio.AbstractEventLoop] = []

        async def main() -> T:
            running.append(asyncio.current_task())  # type: ignore[arg-type]
            if received:  # the signal came before this task began: ``_run`` closes the step
                raise asyncio.CancelledError
            started.append(True)
            return await step

        def cancel_running() -> None:
            for task in running:
                task.cancel()

        def cancel(signum: int, frame: FrameType | None) -> None:
            received.append((signum, frame))
            for loop in loops:
                loop.call_soon_threadsafe(cancel_running)

        outside = {signum: signal.getsignal(signum) for signum in STOP_SIGNALS}
        caught = [signum for signum, handler in outside.items() if handler not in (signal.SIG_IGN, None)]
        if threading.current_thread() is not threading.main_thread():
            caught = []
        for signum in caught:
            signal.signal(signum, cancel)
        try:
            loops.append(self._runner.get_loop())  # made here the first time: never half-made by a signal
            result = self._runner.run(main())
        except asyncio.CancelledError:
            if not received:
                raise
        finally:
            for signum in caught:
                signal.signal(signum, outside[signum])
        if not received:
            return result
        signum, frame = received[0]
        handler = outside[signum]
        if callable(handler):
            handler(signum, frame)  # the command's handler (Ctrl-C: KeyboardInterrupt; xo's SIGTERM: exit 143)
        else:
            signal.raise_signal(signum)  # the default: the process ends, as if the loop had not been running
        raise KeyboardInterrupt  # a handler that lets the command go on: this wait, though, was cut short
