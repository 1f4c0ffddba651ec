"""A ledger and its REST API on an event loop in a background thread of the test process.

For tests that configure the ledger (tiny queues, short waits), reach into it, or read
what the server logs; the others use a devnet process (``conftest.devnet``).
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Awaitable, Callable
from typing import TypeVar

from xo_devnet.ledger import Ledger, LedgerConfig
from xo_devnet.rest.server import RestServer, start_rest_server

_T = TypeVar("_T")


class ThreadedDevnet:
    """A ledger and its REST API on an event loop in a background thread of the test process."""

    def __init__(self, config: LedgerConfig) -> None:
        self._config = config
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="devnet", daemon=True)
        self.ledger: Ledger | None = None
        self.server: RestServer | None = None

    def start(self) -> ThreadedDevnet:
        self._thread.start()
        asyncio.run_coroutine_threadsafe(self._start(), self._loop).result(60)
        return self

    async def _start(self) -> None:
        self.ledger = await Ledger.start(self._config)
        self.server = await start_rest_server(self.ledger, "127.0.0.1", 0)

    def stop(self) -> None:
        asyncio.run_coroutine_threadsafe(self._stop(), self._loop).result(60)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(30)
        self._loop.close()

    async def _stop(self) -> None:
        if self.server is not None:
            await self.server.stop()
        if self.ledger is not None:
            await self.ledger.stop()

    def call(self, function: Callable[[], Awaitable[_T]], timeout: float = 60.0) -> _T:
        """Run a coroutine function on the devnet's loop and return its result."""
        return asyncio.run_coroutine_threadsafe(function(), self._loop).result(timeout)

    def call_soon(self, callback: Callable[[], object]) -> None:
        """Run a plain function on the devnet's loop (and wait until it has run)."""

        async def run() -> None:
            callback()

        self.call(run)
