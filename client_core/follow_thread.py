"""The chain follower on a thread of its own, for a command that waits on more than the chain.

:class:`client_core.follow.Follower` reads the websocket only while its ``next()``
waits. A command that also waits for a person's input (``xo play``) or for a retry
timer (``xo bot``) cannot sit in ``next()``: the websocket would go unread and a
slow reader is dropped by the server. :class:`FollowerThread` runs an
:class:`~client_core.follow.AsyncFollower` on its own event loop, on its own thread,
from the moment it starts until :meth:`FollowerThread.stop`, and hands every block
to a callback; the command's thread merges them with its other events (one
``queue.Queue`` is the natural meeting point) and stays plain blocking code, where
Ctrl-C raises ``KeyboardInterrupt`` as usual.

What ends the following -- an error that is not retried (:class:`~client_core.blocks.ChainChanged`,
credentials refused, answers that are not Sawtooth's) or a bug -- is handed to the
same callback as the exception, so the command's thread learns of it instead of
waiting for blocks that never come.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Sequence
from typing import Any

from client_core.blocks import BlockChanges, BlockRef
from client_core.follow import AsyncFollower

STOP_SECONDS = 5.0
"""How long :meth:`FollowerThread.stop` waits for the websocket and HTTP session to close."""

Delivery = Callable[[BlockChanges | BaseException], None]


class FollowerThread:
    """Follows the chain after ``after`` under ``prefixes`` on a daemon thread; ``deliver`` gets each block.

    Takes :class:`~client_core.follow.AsyncFollower`'s options (``auth``, ``on_notice``,
    ``trace``, ``websocket``, ``poll_seconds``, ``timeout``); ``on_notice`` and
    ``trace`` are called on the follower's thread, like ``deliver``. ``after`` is
    required: the command reads state as of that block first, so nothing falls
    between what it read and what the follower delivers.
    """

    def __init__(
        self, base_url: str, prefixes: Sequence[str], *, after: BlockRef, deliver: Delivery, **options: Any
    ) -> None:
        self._follower = AsyncFollower(base_url, prefixes, after=after, **options)
        self._deliver = deliver
        self._lock = threading.Lock()
        self._stopping = False
        self._loop: asyncio.AbstractEventLoop | None = None
        self._task: asyncio.Task[None] | None = None
        self._thread = threading.Thread(target=self._run, name="xo-follower", daemon=True)

    @property
    def cursor(self) -> BlockRef | None:
        """The last block delivered (or the one started after)."""
        return self._follower.cursor

    def is_alive(self) -> bool:
        """Whether the thread still runs (it ends once stopped, or after handing over the error that ended it)."""
        return self._thread.is_alive()

    def start(self) -> FollowerThread:
        self._thread.start()
        return self

    def stop(self, timeout: float = STOP_SECONDS) -> None:
        """Stop following and wait (up to ``timeout``) for the connection to close; no block is delivered after."""
        with self._lock:
            self._stopping = True
            loop, task = self._loop, self._task
        if loop is not None and task is not None:
            loop.call_soon_threadsafe(task.cancel)
        if self._thread.is_alive() and self._thread is not threading.current_thread():
            self._thread.join(timeout)

    def __enter__(self) -> FollowerThread:
        return self.start()

    def __exit__(self, *_exc: object) -> None:
        self.stop()

    def _run(self) -> None:
        try:
            asyncio.run(self._follow())
        except asyncio.CancelledError:
            pass  # stopped
        except BaseException as error:  # whatever ended the following, the command must learn of it
            self._hand_over(error)

    async def _follow(self) -> None:
        with self._lock:
            if self._stopping:
                await self._follower.aclose()
                return
            self._loop = asyncio.get_running_loop()
            self._task = asyncio.current_task()  # type: ignore[assignment]
        try:
            async with self._follower as follower:
                async for block in follower:
                    self._hand_over(block)
        finally:
            with self._lock:
                self._loop = self._task = None  # the loop closes with this task: nothing to cancel any more

    def _hand_over(self, item: BlockChanges | BaseException) -> None:
        with self._lock:
            if self._stopping:
                return
        self._deliver(item)
