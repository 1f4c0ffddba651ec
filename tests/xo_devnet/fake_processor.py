"""A scriptable transaction processor for engine tests, speaking the real protocol over ZMQ.

Each test gives it a ``handler`` coroutine deciding what to do with a
TP_PROCESS_REQUEST: read and write state through the ledger, answer OK / INVALID /
INTERNAL_ERROR, or (returning None) never answer. Misbehaviour such as ignoring pings
or vanishing mid-request is a switch or a method away.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
from collections.abc import Awaitable, Callable, Sequence

import zmq
import zmq.asyncio

from xo_core.protobuf import network_pb2, processor_pb2, state_context_pb2
from xo_core.protobuf.events_pb2 import Event
from xo_core.protobuf.validator_pb2 import Message

KV_NAMESPACE = "aa"
"""Where the kv test family keeps its state: apart from BlockInfo's ``00b10c`` and every real family's."""

OK = processor_pb2.TpProcessResponse.OK
INVALID = processor_pb2.TpProcessResponse.INVALID_TRANSACTION
INTERNAL = processor_pb2.TpProcessResponse.INTERNAL_ERROR

Response = processor_pb2.TpProcessResponse
Handler = Callable[["FakeProcessor", processor_pb2.TpProcessRequest], Awaitable[Response | None]]


class FakeProcessor:
    def __init__(
        self,
        endpoint: str,
        handler: Handler,
        *,
        family: str = "kv",
        version: str = "1.0",
        max_occupancy: int = 0,
        answer_pings: bool = True,
        raw_header: bool = False,
        namespaces: Sequence[str] = (KV_NAMESPACE,),
    ) -> None:
        self.endpoint = endpoint
        self.handler = handler
        self.family = family
        self.version = version
        self.max_occupancy = max_occupancy
        self.answer_pings = answer_pings
        self.raw_header = raw_header
        self.namespaces = list(namespaces)
        self.requests: list[processor_pb2.TpProcessRequest] = []
        self.pings = 0
        self.busy = 0
        self.most_busy = 0
        self._context = zmq.asyncio.Context()
        self._socket = self._context.socket(zmq.DEALER)
        self._socket.setsockopt(zmq.LINGER, 0)
        self._ids = (f"fake-{n}" for n in itertools.count())
        self._waiting: dict[str, asyncio.Future[Message]] = {}
        self._tasks: set[asyncio.Task[None]] = set()
        self._reader: asyncio.Task[None] | None = None

    async def start(self) -> processor_pb2.TpRegisterResponse:
        self._socket.connect(self.endpoint)
        self._reader = asyncio.create_task(self._read())
        style = processor_pb2.TpRegisterRequest.RAW if self.raw_header else processor_pb2.TpRegisterRequest.EXPANDED
        request = processor_pb2.TpRegisterRequest(
            family=self.family,
            version=self.version,
            namespaces=self.namespaces,
            max_occupancy=self.max_occupancy,
            protocol_version=1,
            request_header_style=style,
        )
        reply = await self.ask(Message.TP_REGISTER_REQUEST, request)
        return processor_pb2.TpRegisterResponse.FromString(reply.content)

    async def unregister(self) -> processor_pb2.TpUnregisterResponse:
        reply = await self.ask(Message.TP_UNREGISTER_REQUEST, processor_pb2.TpUnregisterRequest())
        return processor_pb2.TpUnregisterResponse.FromString(reply.content)

    async def close(self) -> None:
        """Vanish without a word, like a crashed process."""
        for task in [*self._tasks, *([self._reader] if self._reader else [])]:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        self._socket.close(linger=0)
        self._context.term()

    async def ask(self, message_type: int, content: object, timeout: float = 10.0) -> Message:
        correlation_id = next(self._ids)
        future: asyncio.Future[Message] = asyncio.get_running_loop().create_future()
        self._waiting[correlation_id] = future
        message = Message(message_type=message_type, correlation_id=correlation_id, content=content.SerializeToString())
        await self._socket.send(message.SerializeToString())
        try:
            return await asyncio.wait_for(future, timeout)
        finally:
            self._waiting.pop(correlation_id, None)

    async def get(self, context_id: str, addresses: Sequence[str]) -> state_context_pb2.TpStateGetResponse:
        request = state_context_pb2.TpStateGetRequest(context_id=context_id, addresses=addresses)
        reply = await self.ask(Message.TP_STATE_GET_REQUEST, request)
        return state_context_pb2.TpStateGetResponse.FromString(reply.content)

    async def set(self, context_id: str, entries: dict[str, bytes]) -> state_context_pb2.TpStateSetResponse:
        request = state_context_pb2.TpStateSetRequest(
            context_id=context_id,
            entries=[state_context_pb2.TpStateEntry(address=address, data=data) for address, data in entries.items()],
        )
        reply = await self.ask(Message.TP_STATE_SET_REQUEST, request)
        return state_context_pb2.TpStateSetResponse.FromString(reply.content)

    async def delete(self, context_id: str, addresses: Sequence[str]) -> state_context_pb2.TpStateDeleteResponse:
        request = state_context_pb2.TpStateDeleteRequest(context_id=context_id, addresses=addresses)
        reply = await self.ask(Message.TP_STATE_DELETE_REQUEST, request)
        return state_context_pb2.TpStateDeleteResponse.FromString(reply.content)

    async def event(self, context_id: str, event: Event) -> state_context_pb2.TpEventAddResponse:
        request = state_context_pb2.TpEventAddRequest(context_id=context_id, event=event)
        reply = await self.ask(Message.TP_EVENT_ADD_REQUEST, request)
        return state_context_pb2.TpEventAddResponse.FromString(reply.content)

    async def data(self, context_id: str, data: bytes) -> state_context_pb2.TpReceiptAddDataResponse:
        request = state_context_pb2.TpReceiptAddDataRequest(context_id=context_id, data=data)
        reply = await self.ask(Message.TP_RECEIPT_ADD_DATA_REQUEST, request)
        return state_context_pb2.TpReceiptAddDataResponse.FromString(reply.content)

    async def _read(self) -> None:
        while True:
            message = Message.FromString(await self._socket.recv())
            if message.message_type == Message.PING_REQUEST:
                self.pings += 1
                if self.answer_pings:
                    reply = Message(
                        message_type=Message.PING_RESPONSE,
                        correlation_id=message.correlation_id,
                        content=network_pb2.PingResponse().SerializeToString(),
                    )
                    await self._socket.send(reply.SerializeToString())
            elif message.message_type == Message.TP_PROCESS_REQUEST:
                task = asyncio.create_task(self._process(message))
                self._tasks.add(task)
                task.add_done_callback(self._tasks.discard)
            elif message.correlation_id in self._waiting:
                self._waiting[message.correlation_id].set_result(message)

    async def _process(self, message: Message) -> None:
        request = processor_pb2.TpProcessRequest.FromString(message.content)
        self.requests.append(request)
        self.busy += 1
        self.most_busy = max(self.most_busy, self.busy)
        try:
            response = await self.handler(self, request)
        finally:
            self.busy -= 1
        if response is not None:
            reply = Message(
                message_type=Message.TP_PROCESS_RESPONSE,
                correlation_id=message.correlation_id,
                content=response.SerializeToString(),
            )
            await self._socket.send(reply.SerializeToString())


def kv_payload(**operations: object) -> bytes:
    """A payload for ``kv_handler``: {"set": {address: text}, "delete": [address], "add": address, ...}."""
    return json.dumps(operations, sort_keys=True).encode()


async def kv_handler(processor: FakeProcessor, request: processor_pb2.TpProcessRequest) -> Response:
    """A tiny key/value family: set, delete, increment a counter, fail on demand, emit events and data.

    ``event`` names the type of the one event it adds, with ``attributes`` (a list of
    [key, value] pairs; default one pair k=v).
    """
    ops = json.loads(request.payload)
    context = request.context_id
    if "sleep" in ops:
        await asyncio.sleep(ops["sleep"])
    if "invalid" in ops:
        return processor_pb2.TpProcessResponse(status=INVALID, message=ops["invalid"], extended_data=b"\x01\x02")
    if "internal" in ops:
        return processor_pb2.TpProcessResponse(status=INTERNAL, message=ops["internal"])
    if "add" in ops:
        got = await processor.get(context, [ops["add"]])
        if got.status != state_context_pb2.TpStateGetResponse.OK:
            return processor_pb2.TpProcessResponse(status=INVALID, message="read refused")
        current = int(got.entries[0].data or b"0")
        ops.setdefault("set", {})[ops["add"]] = str(current + 1)
    if "require" in ops:
        got = await processor.get(context, [ops["require"]])
        if got.status != state_context_pb2.TpStateGetResponse.OK or not got.entries[0].data:
            return processor_pb2.TpProcessResponse(status=INVALID, message=f"{ops['require']} is not set")
    for address, text in ops.get("set", {}).items():
        written = await processor.set(context, {address: text.encode()})
        if written.status != state_context_pb2.TpStateSetResponse.OK:
            return processor_pb2.TpProcessResponse(status=INVALID, message="write refused")
    if ops.get("delete"):
        deleted = await processor.delete(context, ops["delete"])
        if deleted.status != state_context_pb2.TpStateDeleteResponse.OK:
            return processor_pb2.TpProcessResponse(status=INVALID, message="delete refused")
    if "event" in ops:
        pairs = ops.get("attributes", [["k", "v"]])
        attributes = [Event.Attribute(key=key, value=value) for key, value in pairs]
        await processor.event(context, Event(event_type=ops["event"], attributes=attributes))
    if "data" in ops:
        await processor.data(context, ops["data"].encode())
    return processor_pb2.TpProcessResponse(status=OK)
