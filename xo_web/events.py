"""``GET /api/events``: the chain as server-sent events, for one page.

A page opens one ``EventSource``. The stream starts with a ``snapshot`` event
(every game, the block they stand at, whether the server is following the chain),
then a ``block`` event per committed block (``{"block", "changes"}``: what each
move did and the game after it) and a ``status`` event whenever the server loses
or regains the REST API. Each block event's ``id`` is the block's number.

Server-sent events rather than a websocket: one direction is all the page needs,
they pass through proxies as plain HTTP, and the browser reconnects by itself.
A reconnected page is sent a fresh snapshot, so a page that was away (or was
dropped for falling behind, :mod:`xo_web.fanout`) is whole again at once. A
comment line every :data:`KEEPALIVE_SECONDS` keeps idle connections open and
finds dead ones; a page that does not take a write within :data:`WRITE_SECONDS`
is dropped.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Callable
from typing import Any, Final

from aiohttp import web

from xo_web.errors import BUSY, ApiError
from xo_web.fanout import Fanout, TooManyPages

KEEPALIVE_SECONDS: Final = 15.0
WRITE_SECONDS: Final = 10.0
RETRY_MILLISECONDS: Final = 1000
"""How soon the browser reconnects after the stream ends."""
KEEPALIVE: Final = b": keepalive\n\n"


def encode(kind: str, data: Any, event_id: str | None = None) -> bytes:
    """One event in the text/event-stream format; the data is one line of JSON (ASCII: no line break inside)."""
    head = f"event: {kind}\n" + (f"id: {event_id}\n" if event_id is not None else "")
    return f"{head}data: {json.dumps(data, ensure_ascii=True)}\n\n".encode("ascii")


class EventStream:
    """The ``/api/events`` handler: a page's subscription to ``fanout``, opened with ``snapshot()``."""

    def __init__(self, fanout: Fanout, snapshot: Callable[[], bytes]) -> None:
        self.fanout = fanout
        self.snapshot = snapshot

    async def handle(self, request: web.Request) -> web.StreamResponse:
        try:
            page = self.fanout.subscribe(self.snapshot())
        except TooManyPages:
            raise ApiError(
                503, BUSY, "Too Many Pages",
                f"{self.fanout.max_pages} pages already follow the chain through this server; close one",
                headers={"Retry-After": "5"},
            ) from None  # fmt: skip
        response = web.StreamResponse(
            headers={"Content-Type": "text/event-stream", "Cache-Control": "no-store", "X-Accel-Buffering": "no"}
        )
        try:
            await response.prepare(request)
            await self._write(request, response, f"retry: {RETRY_MILLISECONDS}\n\n".encode("ascii"))
            while True:
                try:
                    async with asyncio.timeout(KEEPALIVE_SECONDS):  # not wait_for: before 3.12 it can swallow a cancel
                        event = await page.next()
                except TimeoutError:
                    event = KEEPALIVE
                if event is None:
                    break
                await self._write(request, response, event)
        except (ConnectionError, TimeoutError):
            pass
        finally:
            self.fanout.unsubscribe(page)
        return response

    @staticmethod
    async def _write(request: web.Request, response: web.StreamResponse, data: bytes) -> None:
        """Write within :data:`WRITE_SECONDS`; a page that takes no more is cut off (its connection closed)."""
        try:
            async with asyncio.timeout(WRITE_SECONDS):
                await response.write(data)
        except TimeoutError:
            if request.transport is not None:
                with contextlib.suppress(OSError):
                    request.transport.abort()
            raise
