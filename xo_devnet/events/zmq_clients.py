"""The validator's client-event protocol on the component endpoint, as Sawtooth 1.x serves it.

Event clients connect a DEALER to the same ROUTER as the processors and send:

- ``CLIENT_EVENTS_SUBSCRIBE_REQUEST`` (500): answered (501) ``OK``; ``INVALID_FILTER``
  with the reason (an unknown filter type, a pattern that does not compile);
  ``UNKNOWN_BLOCK`` when ``last_known_block_ids`` is not empty and none of them is on
  the chain (``0000000000000000`` stands for "before genesis"). After ``OK`` the
  client gets one ``CLIENT_EVENTS`` (504) ``EventList`` per block, oldest first: every
  block after the newest known one (catch-up, read from storage block by block), then
  every block committed from then on. Without ``last_known_block_ids`` it starts with
  the next block. A second subscribe from the same connection replaces the first.
- ``CLIENT_EVENTS_UNSUBSCRIBE_REQUEST`` (502): ``OK`` (503), and no more events.
- ``CLIENT_EVENTS_GET_REQUEST`` (505): the events of the named blocks, in the order
  named, in one answer (506): ``OK``, ``INVALID_FILTER`` or ``UNKNOWN_BLOCK``.

Where we must differ (docs/ledger.md lists it): a subscribe beyond the subscriber limit
is answered ``STATUS_UNSET`` with the reason (the protocol has no status for it), a
request that does not decode gets ``STATUS_UNSET`` / ``INTERNAL_ERROR``, requests are
bounded in size (``filters``), a get names at most ``MAX_GET_BLOCKS`` blocks
(``INTERNAL_ERROR`` beyond), and every block is sent, even with no event in it, so
a client's view of the chain advances block by block (the validator sends such empty
lists during catch-up, and live whenever any client subscribed to block commits).
Each ``CLIENT_EVENTS`` message gets a fresh correlation id, as the validator's do.
"""

from __future__ import annotations

import asyncio
import functools
import itertools
import logging
import os
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

import zmq
from google.protobuf.message import DecodeError
from google.protobuf.message import Message as ProtoMessage

from xo_core.protobuf.client_event_pb2 import (
    ClientEventsGetRequest,
    ClientEventsGetResponse,
    ClientEventsSubscribeRequest,
    ClientEventsSubscribeResponse,
    ClientEventsUnsubscribeResponse,
)
from xo_core.protobuf.events_pb2 import Event
from xo_core.protobuf.validator_pb2 import Message
from xo_devnet.events.blocks import BlockEvents
from xo_devnet.events.filters import FilterTimeout, InvalidFilter, Subscriptions, compile_subscriptions
from xo_devnet.events.hub import EventHub, Slot, Subscriber, SubscriberGone, TooManySubscribers, UnknownBlock

LOG = logging.getLogger(__name__)

REQUEST_TYPES = frozenset(
    (
        Message.CLIENT_EVENTS_SUBSCRIBE_REQUEST,
        Message.CLIENT_EVENTS_UNSUBSCRIBE_REQUEST,
        Message.CLIENT_EVENTS_GET_REQUEST,
    )
)
MAX_GET_BLOCKS = 100
IN_FLIGHT_FRAMES = 32
"""Event lists per subscriber that ZMQ may hold before it has passed them to the network."""
TRACK_EVERY = 8
"""One event list in this many is sent tracked (a tracked send costs about three plain ones); ZMQ passes a
peer's frames on in order, so a tracked frame passed on means every frame before it was too."""
_POLL_FIRST, _POLL_MAX = 0.002, 0.05

Send = Callable[[bytes, int, bytes, str], bool]
SendTracked = Callable[[bytes, int, bytes, str], "zmq.MessageTracker | None"]


@dataclass(eq=False)
class _Client:
    """A connection's subscription."""

    slot: Slot
    subscriber: Subscriber | None = None


class _InFlight:
    """The frames sent to one subscriber that ZMQ still holds; waiting for room is how not reading is noticed.

    Every ``TRACK_EVERY``-th frame is tracked: the frames ZMQ may still hold are those from
    the oldest tracked one not yet passed on, plus fewer than ``TRACK_EVERY`` after the last.
    """

    def __init__(self, limit: int) -> None:
        self._limit = limit
        self._sent = 0
        self._trackers: deque[tuple[int, zmq.MessageTracker]] = deque()

    def track_next(self) -> bool:
        """Whether the next frame is to be sent tracked."""
        return self._sent % TRACK_EVERY == 0

    def add(self, tracker: zmq.MessageTracker | None) -> None:
        """A frame was sent (with its tracker if it was sent tracked)."""
        if tracker is not None:
            self._trackers.append((self._sent, tracker))
        self._sent += 1

    async def room(self) -> None:
        """Return once fewer than ``limit`` frames may be held (polled: ZMQ does not call back)."""
        delay = _POLL_FIRST
        while True:
            while self._trackers and self._trackers[0][1].done:
                self._trackers.popleft()
            if not self._trackers or self._sent - self._trackers[0][0] < self._limit:
                return
            await asyncio.sleep(delay)
            delay = min(delay * 2, _POLL_MAX)


class EventClients:
    """Answers the client-event requests arriving on the component endpoint and sends their events."""

    def __init__(self, hub: EventHub, send: Send, send_tracked: SendTracked) -> None:
        self._hub = hub
        self._send = send
        self._send_tracked = send_tracked
        self._clients: dict[bytes, _Client] = {}
        self._tasks: set[asyncio.Task[None]] = set()
        prefix = os.urandom(4).hex()
        self._ids = (f"ev{prefix}{number:x}" for number in itertools.count(1))

    def handle(self, identity: bytes, message: Message) -> None:
        """Answer one request of ``REQUEST_TYPES`` (called by the socket, on the loop)."""
        if message.message_type == Message.CLIENT_EVENTS_SUBSCRIBE_REQUEST:
            self._subscribe(identity, message)
        elif message.message_type == Message.CLIENT_EVENTS_UNSUBSCRIBE_REQUEST:
            self._unsubscribe(identity, message)
        else:
            task = asyncio.create_task(self._get(identity, message))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    def _log(self, key: str, level: int, message: str, identity: bytes, *args: object) -> None:
        """Every line a client can cause, once per interval with a count of the rest (the hub's limiter)."""
        self._hub.log_limiter.log(LOG, ("zmq", key), level, message, identity.hex(), *args)

    def _reply(self, identity: bytes, message_type: int, content: ProtoMessage, correlation_id: str) -> None:
        self._send(identity, message_type, content.SerializeToString(), correlation_id)

    def _subscribe(self, identity: bytes, message: Message) -> None:
        answer = functools.partial(self._answer_subscribe, identity, message.correlation_id)
        try:
            request = ClientEventsSubscribeRequest.FromString(message.content)
        except DecodeError:
            answer(ClientEventsSubscribeResponse.STATUS_UNSET, "the request is not a ClientEventsSubscribeRequest")
            return
        try:
            subscriptions = compile_subscriptions(request.subscriptions)
        except InvalidFilter as error:
            self._log("invalid-filter", logging.INFO, "refusing the event subscription of %s: %s", identity, error)
            answer(ClientEventsSubscribeResponse.INVALID_FILTER, str(error))
            return
        try:
            next_num = (
                self._hub.first_block_after(request.last_known_block_ids)
                if request.last_known_block_ids
                else self._hub.head_num + 1
            )
        except UnknownBlock as error:
            answer(ClientEventsSubscribeResponse.UNKNOWN_BLOCK, str(error))
            return
        previous = self._clients.pop(identity, None)
        if previous is not None:
            slot = previous.slot
            self._stop(previous)
        else:
            try:
                slot = self._hub.reserve()
            except TooManySubscribers as error:
                refusal = "refusing the event subscription of %s: %s"
                self._log("subscribers-full", logging.WARNING, refusal, identity, error)
                answer(ClientEventsSubscribeResponse.STATUS_UNSET, str(error))
                return
        answer(ClientEventsSubscribeResponse.OK, "")
        in_flight = _InFlight(IN_FLIGHT_FRAMES)
        client = _Client(slot)
        client.subscriber = self._hub.subscribe(
            f"zmq:{identity.hex()}",
            next_num,
            functools.partial(self._deliver, identity, subscriptions, in_flight),
            functools.partial(self._ended, identity, client),
        )
        self._clients[identity] = client
        self._log("subscribed", logging.INFO, "%s subscribed to events from block %d", identity, next_num)

    def _answer_subscribe(self, identity: bytes, correlation_id: str, status: int, text: str) -> None:
        response = ClientEventsSubscribeResponse(status=status, response_message=text)
        self._reply(identity, Message.CLIENT_EVENTS_SUBSCRIBE_RESPONSE, response, correlation_id)

    async def _deliver(
        self, identity: bytes, subscriptions: Subscriptions, in_flight: _InFlight, block: BlockEvents
    ) -> None:
        content = await self._hub.event_list(block, subscriptions)
        await in_flight.room()
        if in_flight.track_next():
            tracker = self._send_tracked(identity, Message.CLIENT_EVENTS, content, next(self._ids))
            if tracker is None:
                raise SubscriberGone("its connection is gone")
            in_flight.add(tracker)
        else:
            if not self._send(identity, Message.CLIENT_EVENTS, content, next(self._ids)):
                raise SubscriberGone("its connection is gone")
            in_flight.add(None)

    def _ended(self, identity: bytes, client: _Client, _reason: str | None) -> None:
        """The subscriber ended by itself (dropped, or the peer is gone): free its place."""
        if self._clients.get(identity) is client:
            del self._clients[identity]
        client.slot.release()

    def _unsubscribe(self, identity: bytes, message: Message) -> None:
        client = self._clients.pop(identity, None)
        if client is not None:
            self._stop(client)
            client.slot.release()
            self._log("unsubscribed", logging.INFO, "%s unsubscribed from events", identity)
        response = ClientEventsUnsubscribeResponse(status=ClientEventsUnsubscribeResponse.OK)
        self._reply(identity, Message.CLIENT_EVENTS_UNSUBSCRIBE_RESPONSE, response, message.correlation_id)

    def _stop(self, client: _Client) -> None:
        """Stop at once (nothing of the old subscription may follow an answer) and keep the task till it ends."""
        subscriber, client.subscriber = client.subscriber, None  # no cycle left for the garbage collector
        task = subscriber.cancel() if subscriber is not None else None
        if task is not None and not task.done():
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def _get(self, identity: bytes, message: Message) -> None:
        response = await self._events_of_blocks(identity, message.content)
        self._reply(identity, Message.CLIENT_EVENTS_GET_RESPONSE, response, message.correlation_id)

    async def _events_of_blocks(self, identity: bytes, content: bytes) -> ClientEventsGetResponse:
        try:
            request = ClientEventsGetRequest.FromString(content)
        except DecodeError:
            return ClientEventsGetResponse(status=ClientEventsGetResponse.INTERNAL_ERROR)
        if len(request.block_ids) > MAX_GET_BLOCKS:
            self._log(
                "too-many-blocks", logging.INFO, "refusing an events request of %s for %d blocks (at most %d)",
                identity, len(request.block_ids), MAX_GET_BLOCKS,
            )  # fmt: skip
            return ClientEventsGetResponse(status=ClientEventsGetResponse.INTERNAL_ERROR)
        try:
            subscriptions = compile_subscriptions(request.subscriptions)
        except InvalidFilter as error:
            self._log("invalid-filter", logging.INFO, "refusing an events request of %s: %s", identity, error)
            return ClientEventsGetResponse(status=ClientEventsGetResponse.INVALID_FILTER)
        events: list[Event] = []
        for block_id in request.block_ids:
            block = self._hub.block_events_by_id(block_id)
            if block is None:
                return ClientEventsGetResponse(status=ClientEventsGetResponse.UNKNOWN_BLOCK)
            try:
                events.extend(await self._hub.events_for(block, subscriptions))
            except FilterTimeout as error:
                self._log("too-slow", logging.WARNING, "refusing an events request of %s: %s", identity, error)
                return ClientEventsGetResponse(status=ClientEventsGetResponse.INVALID_FILTER)
        return ClientEventsGetResponse(status=ClientEventsGetResponse.OK, events=events)

    async def close(self) -> None:
        """Forget every subscription (the ledger is stopping) and finish the requests in progress."""
        for client in self._clients.values():
            client.slot.release()
        self._clients.clear()
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
