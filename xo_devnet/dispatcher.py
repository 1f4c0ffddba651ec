"""The validator side of the transaction processor protocol.

Knows the connected processors (what each registered, how much work it takes at
once), sends them transactions, keeps each attempt's context open exactly while the
attempt runs (``context_requests`` answers what processors ask within it), and
watches their liveness with pings. It makes no policy decisions about a failed
attempt: it reports it (``ProcessorFailed``) and the executor decides whether to retry.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import os
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import ClassVar

from xo_core.log_limits import LogLimiter
from xo_core.protobuf import network_pb2, processor_pb2
from xo_core.protobuf.transaction_pb2 import Transaction, TransactionHeader
from xo_core.protobuf.validator_pb2 import Message
from xo_devnet.context import TxnContext
from xo_devnet.context_requests import answer_context_request

LOG = logging.getLogger(__name__)

DEFAULT_MAX_OCCUPANCY = 10
PROTOCOL_VERSION = 1
_MAX_REMEMBERED_DROPPED = 64

Sender = Callable[[bytes, int, bytes, str], bool]
FamilyKey = tuple[str, str]


class NoProcessor(Exception):
    """No processor is registered for the transaction's family and version."""


class ProcessorFailed(Exception):
    """One attempt failed without a verdict on the transaction (crash, silence, INTERNAL_ERROR)."""

    def __init__(self, reason: str, *, connection: bytes | None = None, counts: bool = True) -> None:
        super().__init__(reason)
        self.connection = connection
        self.counts = counts
        """False when the processor left politely (unregistered): not the transaction's fault."""


@dataclass(eq=False)
class Registration:
    connection: bytes
    family: str
    version: str
    capacity: int
    raw_header: bool
    namespaces: tuple[str, ...]
    """Where this family's transactions may write: a processor owns the state under what it registered."""
    in_flight: int = 0


@dataclass(eq=False)
class _Request:
    correlation_id: str
    context_id: str
    connection: bytes
    registration: Registration
    future: asyncio.Future[processor_pb2.TpProcessResponse]
    sent_at: float


@dataclass(eq=False)
class _Connection:
    identity: bytes
    registrations: dict[FamilyKey, Registration] = field(default_factory=dict)
    requests: dict[str, _Request] = field(default_factory=dict)
    last_seen: float = field(default_factory=time.monotonic)
    ping_sent_at: float | None = None


class Dispatcher:
    """Registry of processors, in-flight transactions and their contexts."""

    def __init__(
        self,
        send: Sender,
        *,
        ping_interval: float,
        ping_timeout: float,
        process_timeout: float,
        on_processors_changed: Callable[[], None],
    ) -> None:
        self._send = send
        self._ping_interval = ping_interval
        self._ping_timeout = ping_timeout
        self._process_timeout = process_timeout
        self._on_processors_changed = on_processors_changed
        self._log_limiter = LogLimiter()
        """Any peer of the endpoint can repeat a bad message: one line per interval, and the count."""
        self._connections: dict[bytes, _Connection] = {}
        self._dropped: dict[bytes, list[Registration]] = {}
        self._by_family: dict[FamilyKey, list[Registration]] = {}
        self._waiters: dict[FamilyKey, deque[asyncio.Future[None]]] = {}
        self._contexts: dict[str, TxnContext] = {}
        prefix = os.urandom(4).hex()
        self._ids = (f"{prefix}{number:x}" for number in itertools.count(1))

    # What the ledger asks.

    def served(self, family: str, version: str) -> bool:
        return (family, version) in self._by_family

    def processors(self) -> list[tuple[str, str]]:
        return sorted(self._by_family)

    async def process(
        self, txn: Transaction, header: TransactionHeader, context: TxnContext, avoid: bytes | None = None
    ) -> tuple[processor_pb2.TpProcessResponse, bytes]:
        """Have a processor execute one transaction in ``context``; the answer and who gave it.

        Waits for a free slot (max_occupancy). Raises NoProcessor if none is
        registered for the family, ProcessorFailed if the attempt dies.
        """
        key = (header.family_name, header.family_version)
        registration = await self._acquire(key, avoid)
        connection = self._connections[registration.connection]
        context_id = next(self._ids)
        correlation_id = next(self._ids)
        request = _Request(
            correlation_id,
            context_id,
            registration.connection,
            registration,
            asyncio.get_running_loop().create_future(),
            time.monotonic(),
        )
        connection.requests[correlation_id] = request
        registration.in_flight += 1
        context.restrict_writes(registration.namespaces, registration.family, registration.version)
        self._contexts[context_id] = context
        if registration.raw_header:
            content = processor_pb2.TpProcessRequest(
                header_bytes=txn.header, payload=txn.payload, signature=txn.header_signature, context_id=context_id
            )
        else:
            content = processor_pb2.TpProcessRequest(
                header=header, payload=txn.payload, signature=txn.header_signature, context_id=context_id
            )
        try:
            if not self._send(
                registration.connection, Message.TP_PROCESS_REQUEST, content.SerializeToString(), correlation_id
            ):
                self._drop(connection, "cannot be reached")
            return await request.future, registration.connection
        finally:
            self._contexts.pop(context_id, None)
            self._finish(request)

    async def _acquire(self, key: FamilyKey, avoid: bytes | None) -> Registration:
        while True:
            registrations = self._by_family.get(key)
            if not registrations:
                raise NoProcessor(f"no transaction processor is registered for {key[0]} {key[1]}")
            free = [reg for reg in registrations if reg.in_flight < reg.capacity]
            if free:
                preferred = [reg for reg in free if reg.connection != avoid] or free
                return min(preferred, key=lambda reg: reg.in_flight)
            waiter = asyncio.get_running_loop().create_future()
            self._waiters.setdefault(key, deque()).append(waiter)
            await waiter

    def _finish(self, request: _Request) -> None:
        # A dropped connection took its registrations (and their counts) with it.
        connection = self._connections.get(request.connection)
        if connection is not None and connection.requests.pop(request.correlation_id, None) is request:
            request.registration.in_flight -= 1
        if not request.future.done():
            request.future.cancel()
        self._wake((request.registration.family, request.registration.version))

    def _wake(self, key: FamilyKey) -> None:
        waiters = self._waiters.get(key)
        if not waiters:
            return
        registrations = self._by_family.get(key, [])
        if not registrations:
            while waiters:
                waiter = waiters.popleft()
                if not waiter.done():
                    waiter.set_exception(NoProcessor(f"no transaction processor is registered for {key[0]} {key[1]}"))
            return
        free = sum(max(reg.capacity - reg.in_flight, 0) for reg in registrations)
        while waiters and free > 0:
            waiter = waiters.popleft()
            if not waiter.done():
                waiter.set_result(None)
                free -= 1

    # What the processors say.

    def handle(self, identity: bytes, message: Message) -> None:
        """Route one incoming message (called by the socket, on the loop)."""
        connection = self._connections.get(identity)
        if connection is None and identity in self._dropped and message.message_type != Message.TP_REGISTER_REQUEST:
            connection = self._revive(identity)
        if connection is not None:
            connection.last_seen = time.monotonic()
            connection.ping_sent_at = None
        reply = answer_context_request(self._contexts, message, self._log_limiter)
        if reply is not None:
            self._send(identity, *reply, message.correlation_id)
            return
        handler = self._handlers.get(message.message_type)
        if handler is None:
            self._log_limiter.log(
                LOG, "unknown-type", logging.WARNING, "ignoring message type %s from %s", message.message_type,
                identity.hex(),
            )  # fmt: skip
            return
        handler(self, identity, connection, message)

    def _on_register(self, identity: bytes, connection: _Connection | None, message: Message) -> None:
        request = processor_pb2.TpRegisterRequest.FromString(message.content)
        if not request.family or not request.version:
            self._log_limiter.log(
                LOG, "bad-registration", logging.WARNING, "refusing a registration without family or version from %s",
                identity.hex(),
            )  # fmt: skip
            response = processor_pb2.TpRegisterResponse(status=processor_pb2.TpRegisterResponse.ERROR)
            self._send(identity, Message.TP_REGISTER_RESPONSE, response.SerializeToString(), message.correlation_id)
            return
        if connection is None:
            connection = self._connections[identity] = _Connection(identity)
            self._dropped.pop(identity, None)
        registration = Registration(
            connection=identity,
            family=request.family,
            version=request.version,
            capacity=request.max_occupancy or DEFAULT_MAX_OCCUPANCY,
            raw_header=request.request_header_style == processor_pb2.TpRegisterRequest.RAW,
            namespaces=tuple(request.namespaces),
        )
        self._add(connection, registration)
        LOG.info(
            "processor %s registered %s %s (namespaces %s, max occupancy %d)",
            identity.hex(),
            registration.family,
            registration.version,
            ", ".join(registration.namespaces) or "none: it may write nothing",
            registration.capacity,
        )
        response = processor_pb2.TpRegisterResponse(
            status=processor_pb2.TpRegisterResponse.OK, protocol_version=PROTOCOL_VERSION
        )
        self._send(identity, Message.TP_REGISTER_RESPONSE, response.SerializeToString(), message.correlation_id)
        self._on_processors_changed()

    def _add(self, connection: _Connection, registration: Registration) -> None:
        key = (registration.family, registration.version)
        previous = connection.registrations.get(key)
        if previous is not None:
            registration.in_flight = previous.in_flight
            self._by_family[key].remove(previous)
            for request in connection.requests.values():
                if request.registration is previous:
                    request.registration = registration
        connection.registrations[key] = registration
        self._by_family.setdefault(key, []).append(registration)
        self._wake(key)

    def _on_unregister(self, identity: bytes, connection: _Connection | None, message: Message) -> None:
        response = processor_pb2.TpUnregisterResponse(status=processor_pb2.TpUnregisterResponse.OK)
        self._send(identity, Message.TP_UNREGISTER_RESPONSE, response.SerializeToString(), message.correlation_id)
        if connection is not None:
            LOG.info("processor %s unregistered", identity.hex())
            self._forget(connection, "unregistered", counts=False, remember=False)

    def _on_process_response(self, identity: bytes, connection: _Connection | None, message: Message) -> None:
        request = connection.requests.get(message.correlation_id) if connection is not None else None
        if request is None:
            LOG.debug("ignoring a late or unknown process response from %s", identity.hex())
            return
        self._conclude(request, processor_pb2.TpProcessResponse.FromString(message.content))

    def _on_ping(self, identity: bytes, _: _Connection | None, message: Message) -> None:
        self._send(
            identity, Message.PING_RESPONSE, network_pb2.PingResponse().SerializeToString(), message.correlation_id
        )

    def _on_ping_response(self, identity: bytes, connection: _Connection | None, message: Message) -> None:
        """Liveness is already recorded: any message from a processor proves it is there."""

    _handlers: ClassVar[dict[int, Callable[[Dispatcher, bytes, _Connection | None, Message], None]]] = {
        Message.TP_REGISTER_REQUEST: _on_register,
        Message.TP_UNREGISTER_REQUEST: _on_unregister,
        Message.TP_PROCESS_RESPONSE: _on_process_response,
        Message.PING_REQUEST: _on_ping,
        Message.PING_RESPONSE: _on_ping_response,
    }

    def _conclude(
        self,
        request: _Request,
        response: processor_pb2.TpProcessResponse | None = None,
        failure: ProcessorFailed | None = None,
    ) -> None:
        """End an attempt: its context closes first, so nothing the processor sends afterwards lands in it."""
        self._contexts.pop(request.context_id, None)
        if request.future.done():
            return
        if failure is not None:
            request.future.set_exception(failure)
        else:
            request.future.set_result(response)

    # Liveness.

    async def watch(self) -> None:
        """Ping processors, drop the silent ones, fail requests that are never answered."""
        tick = min(self._ping_interval, self._ping_timeout, self._process_timeout) / 2
        while True:
            await asyncio.sleep(tick)
            self.check_liveness(time.monotonic())

    def check_liveness(self, now: float) -> None:
        for connection in list(self._connections.values()):
            if connection.ping_sent_at is not None and now - connection.ping_sent_at > self._ping_timeout:
                self._drop(connection, f"did not answer a ping within {self._ping_timeout:g} s")
                continue
            if connection.ping_sent_at is None and now - connection.last_seen >= self._ping_interval:
                connection.ping_sent_at = now
                if not self._send(
                    connection.identity,
                    Message.PING_REQUEST,
                    network_pb2.PingRequest().SerializeToString(),
                    next(self._ids),
                ):
                    self._drop(connection, "cannot be reached")
                    continue
            for request in list(connection.requests.values()):
                if now - request.sent_at > self._process_timeout and not request.future.done():
                    self._conclude(
                        request,
                        failure=ProcessorFailed(
                            f"processor gave no answer within {self._process_timeout:g} s",
                            connection=connection.identity,
                        ),
                    )

    def _drop(self, connection: _Connection, reason: str) -> None:
        LOG.warning("dropping processor %s: it %s", connection.identity.hex(), reason)
        self._forget(connection, f"processor {reason}", counts=True, remember=True)

    def _forget(self, connection: _Connection, reason: str, *, counts: bool, remember: bool) -> None:
        self._connections.pop(connection.identity, None)
        if remember and connection.registrations:
            self._dropped[connection.identity] = list(connection.registrations.values())
            while len(self._dropped) > _MAX_REMEMBERED_DROPPED:
                del self._dropped[next(iter(self._dropped))]
        for key, registration in connection.registrations.items():
            self._by_family[key].remove(registration)
            if not self._by_family[key]:
                del self._by_family[key]
            self._wake(key)
        for request in connection.requests.values():
            self._conclude(request, failure=ProcessorFailed(reason, connection=connection.identity, counts=counts))
        self._on_processors_changed()

    def _revive(self, identity: bytes) -> _Connection:
        """A dropped processor spoke again: it never knew it was dropped, so restore what it registered."""
        LOG.info("processor %s is answering again; restoring its registrations", identity.hex())
        connection = self._connections[identity] = _Connection(identity)
        for old in self._dropped.pop(identity):
            old.in_flight = 0
            self._add(connection, old)
        self._on_processors_changed()
        return connection

    def close(self) -> None:
        """Fail everything still waiting (the ledger is stopping)."""
        self._log_limiter.flush()
        for connection in list(self._connections.values()):
            self._forget(connection, "ledger stopping", counts=False, remember=False)
