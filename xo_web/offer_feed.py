"""The board of open offers, live: the server's one session on the broker, subscribed to every offer's topic.

The server keeps one :class:`client_core.broker.BrokerSession` with a clean session
(``persistent=False``: a look that leaves nothing behind on the broker) subscribed to
:func:`chips_client.offers.subscription`, for as long as it runs. The broker hands it
every retained offer at once and each new one or withdrawal as it comes; each is checked
by :class:`xo_web.offer_list.OfferList`, on the server's event loop. Expired offers are
dropped when their time comes. Every change goes to the pages as an ``offers`` event
(the whole list), so a page never polls. On a new connection the list is emptied first:
the broker sends every retained offer again, and one withdrawn meanwhile is gone.

The same session publishes the page's own offers (:mod:`xo_web.offer_posts`): they are
published again after a reconnection, since a broker restarted without persistence forgot them,
and put back when anyone else clears or replaces them (:attr:`OfferFeed.listeners`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from collections.abc import Callable
from typing import Any, Final

from chips_client.offer_board import Board, find
from chips_client.offers import SignedOffer, subscription
from client_core.broker import BrokerAddress, BrokerError, BrokerSession
from client_core.errors import CommandError
from client_core.keys import KeyNames
from xo_web.offer_list import OfferList

Json = dict[str, Any]
TIMEOUT: Final = 10.0
RETRY_SECONDS: Final = 5.0
"""Pause before trying the broker again when it could not be reached."""
LOG = logging.getLogger("xo_web")


class OfferFeed:
    """The open offers on the broker at ``broker``; :meth:`run` until cancelled, :meth:`view` for a page."""

    def __init__(
        self, broker: BrokerAddress, publish: Callable[[Json], None], *, names: Callable[[], KeyNames],
        rating_of: Callable[[str], Json | None], clock: Callable[[], float] = time.time,
        floor: Callable[[], int] | None = None,
    ) -> None:  # fmt: skip
        self.broker, self.publish, self.names, self.rating_of, self.clock = broker, publish, names, rating_of, clock
        self.read_floor = floor
        """Reads the chain's challenge floor (blocking), on each connection: offers below it are not listed."""
        self.list = OfferList()
        self.session: BrokerSession | None = None
        self.message: str | None = f"connecting to the broker at {broker.url}"
        self.on_reconnect: list[Callable[[], None]] = []
        """Run (in a worker thread) after each reconnection: the page's own offers are published again."""
        self.put_back: Callable[[str], int | None] = lambda _offer_id: None
        """How many times this server put an offer of its own back on the board (None: not one of its own)."""
        self.listeners: list[Callable[[str, bytes], None]] = []
        """Told (on the event loop) every message on an offer's topic: the page's own offers are put back when someone
        else takes them down."""
        self._loop: asyncio.AbstractEventLoop | None = None
        self._changed = asyncio.Event()

    async def run(self) -> None:
        """Connect (again while the broker cannot be reached), then drop each offer as it expires, until cancelled."""
        self._loop = asyncio.get_running_loop()
        try:
            while self.session is None:
                connecting = asyncio.ensure_future(asyncio.to_thread(self._connect))
                try:
                    self.session = await asyncio.shield(connecting)
                    self.message = None
                except asyncio.CancelledError:  # the server stops while connecting: the session is closed once made
                    connecting.add_done_callback(_close_when_made)
                    raise
                except BrokerError as error:
                    self.message = error.message
                    self.tell()
                    await asyncio.sleep(RETRY_SECONDS)
            self.tell()
            while True:
                await self._expiries()
        finally:
            if self.session is not None:
                await asyncio.to_thread(self.session.close)

    def _connect(self) -> BrokerSession:
        self._floor()
        session = BrokerSession(
            self.broker, f"xo-web-offers-{secrets.token_hex(16)}", self._received, on_reconnect=self._reconnected,
            persistent=False,
        )  # fmt: skip
        session.connect(TIMEOUT)
        try:
            session.subscribe(subscription(), TIMEOUT)
        except BrokerError:
            session.close()
            raise
        return session

    def _floor(self) -> None:
        """Read the chain's challenge floor (in a worker thread); kept as it was when the chain cannot say."""
        if self.read_floor is None:
            return
        try:
            self.list.floor = self.read_floor()
        except CommandError as error:
            LOG.warning("xo web: cannot read the chain's challenge floor for the offers: %s", error.message)

    async def _expiries(self) -> None:
        """Wait until the next offer expires or the list changes; drop what expired and tell the pages."""
        self._changed.clear()
        soonest = self.list.next_expiry()
        wait = None if soonest is None else max(soonest - self.clock(), 0.0)
        with contextlib.suppress(TimeoutError):  # not wait_for: before 3.12 it can swallow the server's cancel
            async with asyncio.timeout(wait):  # when the list changes at that moment (an offer withdrawn on close)
                await self._changed.wait()
        if self.list.prune(self.clock()):
            self.tell()

    def _received(self, where: str, payload: bytes) -> None:
        """On paho's thread: handed to the event loop, where the list lives."""
        if self._loop is not None:
            self._loop.call_soon_threadsafe(self._apply, where, payload)

    def _apply(self, where: str, payload: bytes) -> None:
        for listener in self.listeners:
            listener(where, payload)
        if self.list.received(where, payload, self.clock()):
            self._changed.set()
            self.tell()

    def _reconnected(self) -> None:
        """On paho's thread, before the retained offers come again: empty the list, then publish ours again."""
        if self._loop is not None:
            self._loop.call_soon_threadsafe(self._restart)

    def _restart(self) -> None:
        self.list.clear()
        self.tell()
        if self.read_floor is not None:
            asyncio.ensure_future(asyncio.to_thread(self._floor)).add_done_callback(_log_failure)
        for hook in self.on_reconnect:
            task = asyncio.ensure_future(asyncio.to_thread(hook))
            task.add_done_callback(_log_failure)

    def open_offers(self) -> list[SignedOffer]:
        """The offers open now."""
        return self.list.open_offers(self.clock())

    def find(self, given: str) -> SignedOffer:
        """The open offer whose id starts with ``given``; ValueError saying why when none or several do."""
        return find(Board(self.open_offers(), 0), given)

    def view(self) -> Json:
        """``GET /api/chips/offers`` and each ``offers`` event: the open offers, the server's clock, and the broker's
        trouble if any (``message``)."""
        now = self.clock()
        return {
            "offers": self.list.view(now, self.names(), self.rating_of, self.put_back), "now": now,
            "refused": self.list.refused, "message": self.message or self._away(),
        }  # fmt: skip

    def _away(self) -> str | None:
        """Why the list may be stale: the session lost the broker (paho reconnects by itself), or None."""
        if self.session is None or self.session.connected:
            return None
        return f"lost the broker at {self.broker.url}; reconnecting"

    def tell(self) -> None:
        """Every page hears the list as it is now."""
        self.publish(self.view())


def _close_when_made(connecting: asyncio.Future[BrokerSession]) -> None:
    if not connecting.cancelled() and connecting.exception() is None:
        connecting.result().close()


def _log_failure(task: asyncio.Future[None]) -> None:
    if not task.cancelled() and (error := task.exception()) is not None:
        LOG.warning("xo web: publishing your offers again failed: %s", getattr(error, "message", None) or error)
