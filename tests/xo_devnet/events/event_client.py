"""A ZMQ event client written for the tests, the way any Sawtooth event client is: a DEALER and the protobufs.

``ask`` sends a request and returns the answer with its correlation id; CLIENT_EVENTS
messages (which carry fresh correlation ids) are queued for ``next_events``. With
``reading=False`` the client never takes anything off its socket after subscribing,
and its socket keeps as little as ZMQ and the kernel allow, like a client that hangs.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
from collections.abc import AsyncIterator, Sequence

import zmq
import zmq.asyncio

from xo_core.protobuf.client_event_pb2 import (
    ClientEventsGetRequest,
    ClientEventsGetResponse,
    ClientEventsSubscribeRequest,
    ClientEventsSubscribeResponse,
    ClientEventsUnsubscribeRequest,
    ClientEventsUnsubscribeResponse,
)
from xo_core.protobuf.events_pb2 import Event, EventFilter, EventList, EventSubscription
from xo_core.protobuf.validator_pb2 import Message

BLOCK_COMMIT = EventSubscription(event_type="sawtooth/block-commit")
STATE_DELTA = EventSubscription(event_type="sawtooth/state-delta")


def subscription(event_type: str, *filters: tuple[str, str, int]) -> EventSubscription:
    return EventSubscription(
        event_type=event_type,
        filters=[EventFilter(key=key, match_string=match, filter_type=kind) for key, match, kind in filters],
    )


def attribute(event: Event, key: str) -> str:
    return next(item.value for item in event.attributes if item.key == key)


class EventClient:
    def __init__(self, endpoint: str, *, reading: bool = True) -> None:
        self._context = zmq.asyncio.Context()
        self._socket = self._context.socket(zmq.DEALER)
        self._socket.setsockopt(zmq.LINGER, 0)
        if not reading:
            self._socket.setsockopt(zmq.RCVHWM, 1)
            self._socket.setsockopt(zmq.RCVBUF, 4096)
        self._socket.connect(endpoint)
        self._ids = (f"client-{number}" for number in itertools.count())
        self.events: asyncio.Queue[EventList] = asyncio.Queue()

    async def ask(self, message_type: int, content: bytes, timeout: float = 10.0) -> Message:
        correlation_id = next(self._ids)
        await self._socket.send(
            Message(message_type=message_type, correlation_id=correlation_id, content=content).SerializeToString()
        )
        async with asyncio.timeout(timeout):
            while True:
                message = Message.FromString(await self._socket.recv())
                if message.correlation_id == correlation_id:
                    return message
                assert message.message_type == Message.CLIENT_EVENTS, message
                self.events.put_nowait(EventList.FromString(message.content))

    async def subscribe(
        self, subscriptions: Sequence[EventSubscription], last_known_block_ids: Sequence[str] = ()
    ) -> ClientEventsSubscribeResponse:
        request = ClientEventsSubscribeRequest(subscriptions=subscriptions, last_known_block_ids=last_known_block_ids)
        answer = await self.ask(Message.CLIENT_EVENTS_SUBSCRIBE_REQUEST, request.SerializeToString())
        assert answer.message_type == Message.CLIENT_EVENTS_SUBSCRIBE_RESPONSE
        return ClientEventsSubscribeResponse.FromString(answer.content)

    async def unsubscribe(self) -> ClientEventsUnsubscribeResponse:
        answer = await self.ask(
            Message.CLIENT_EVENTS_UNSUBSCRIBE_REQUEST, ClientEventsUnsubscribeRequest().SerializeToString()
        )
        assert answer.message_type == Message.CLIENT_EVENTS_UNSUBSCRIBE_RESPONSE
        return ClientEventsUnsubscribeResponse.FromString(answer.content)

    async def get(
        self, block_ids: Sequence[str], subscriptions: Sequence[EventSubscription]
    ) -> ClientEventsGetResponse:
        request = ClientEventsGetRequest(block_ids=block_ids, subscriptions=subscriptions)
        answer = await self.ask(Message.CLIENT_EVENTS_GET_REQUEST, request.SerializeToString())
        assert answer.message_type == Message.CLIENT_EVENTS_GET_RESPONSE
        return ClientEventsGetResponse.FromString(answer.content)

    async def next_events(self, timeout: float = 10.0) -> EventList:
        """The next EventList (one per block)."""
        if not self.events.empty():
            return self.events.get_nowait()
        async with asyncio.timeout(timeout):
            message = Message.FromString(await self._socket.recv())
        assert message.message_type == Message.CLIENT_EVENTS, message
        return EventList.FromString(message.content)

    async def nothing_within(self, seconds: float) -> bool:
        """Whether no message arrives for ``seconds``."""
        if not self.events.empty():
            return False
        return not await self._socket.poll(seconds * 1000)

    def close(self) -> None:
        self._socket.close(linger=0)
        self._context.term()


@contextlib.asynccontextmanager
async def event_client(endpoint: str, **options: bool) -> AsyncIterator[EventClient]:
    client = EventClient(endpoint, **options)
    try:
        yield client
    finally:
        client.close()
