"""One stream of events to many pages: a bounded queue per page, and a page that falls behind is dropped.

The follower must never wait for a page: publishing only puts the (already
encoded) event on each page's queue. A page whose queue is full has stopped
reading (a sleeping laptop, a stalled tab); it is dropped at once, its stream
ends, and the browser reconnects and starts again from a fresh snapshot, so it
misses nothing and slows no one. The number of pages is bounded too: a page
beyond :data:`MAX_PAGES` is turned away.
"""

from __future__ import annotations

import asyncio
from typing import Final

MAX_PAGES: Final = 32
"""Pages connected at once: one player's tabs, with room to spare."""
QUEUE_EVENTS: Final = 256
"""Events queued for one page before it counts as not reading and is dropped."""


class TooManyPages(Exception):
    """Every place is taken."""


class Subscription:
    """One page's queue of encoded events; ``None`` ends the stream."""

    def __init__(self, size: int) -> None:
        self._queue: asyncio.Queue[bytes | None] = asyncio.Queue(size)
        self.dropped = False

    async def next(self) -> bytes | None:
        return await self._queue.get()

    def offer(self, event: bytes) -> bool:
        """Queue ``event``; False if the queue is full."""
        try:
            self._queue.put_nowait(event)
        except asyncio.QueueFull:
            return False
        return True

    def end(self) -> None:
        """End the stream as soon as the page reads again: what is still queued is dropped."""
        while not self._queue.empty():
            self._queue.get_nowait()
        self._queue.put_nowait(None)


class Fanout:
    """The pages following the chain through this server."""

    def __init__(self, max_pages: int = MAX_PAGES, queue_events: int = QUEUE_EVENTS) -> None:
        self.max_pages = max_pages
        self.queue_events = queue_events
        self._pages: set[Subscription] = set()

    def __len__(self) -> int:
        return len(self._pages)

    def subscribe(self, first: bytes) -> Subscription:
        """A new page's subscription, with ``first`` (its snapshot) queued before anything published later."""
        if len(self._pages) >= self.max_pages:
            raise TooManyPages
        page = Subscription(self.queue_events)
        page.offer(first)
        self._pages.add(page)
        return page

    def unsubscribe(self, page: Subscription) -> None:
        self._pages.discard(page)

    def publish(self, event: bytes) -> None:
        """Queue ``event`` for every page; drop each page whose queue is full."""
        for page in list(self._pages):
            if not page.offer(event):
                page.dropped = True
                page.end()
                self._pages.discard(page)

    def close(self) -> None:
        """End every page's stream (the server is stopping)."""
        for page in self._pages:
            page.end()
        self._pages.clear()
