"""A validator's side of the component protocol, small enough to read: a ZMQ ROUTER the tests drive.

It registers a processor, sends it TP_PROCESS_REQUESTs and serves the state,
event and receipt calls each one makes from a plain dict, refusing addresses
outside the transaction's inputs/outputs the way a validator does.
Everything blocks with a deadline, so a broken processor fails a test instead of hanging it.
"""

import hashlib
import os
import time
import uuid
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field

import zmq

from xo_core.protobuf.events_pb2 import Event
from xo_core.protobuf.network_pb2 import PingRequest
from xo_core.protobuf.processor_pb2 import (
    TpProcessRequest,
    TpProcessResponse,
    TpRegisterRequest,
    TpRegisterResponse,
    TpUnregisterResponse,
)
from xo_core.protobuf.state_context_pb2 import (
    TpEventAddRequest,
    TpEventAddResponse,
    TpReceiptAddDataRequest,
    TpReceiptAddDataResponse,
    TpStateDeleteRequest,
    TpStateDeleteResponse,
    TpStateEntry,
    TpStateGetRequest,
    TpStateGetResponse,
    TpStateSetRequest,
    TpStateSetResponse,
)
from xo_core.protobuf.transaction_pb2 import TransactionHeader
from xo_core.protobuf.validator_pb2 import Message
from xo_tp.family import FAMILY_NAME, FAMILY_VERSION, game_address
from xo_tp.payload import encode_payload

DEADLINE = 15.0  # seconds; generous for a loaded machine, still bounded


def signer_key(seed: int) -> str:
    """A compressed-public-key-shaped hex string: the processor does not check signatures."""
    return "02" + hashlib.sha256(str(seed).encode()).hexdigest()


def xo_request(name: str, action: str, space: int | None = None, *, signer: str, payload: bytes | None = None):
    """A TP_PROCESS_REQUEST for one XO move, declaring the game's address as its only input and output."""
    payload = encode_payload(name, action, space) if payload is None else payload
    address = game_address(name)
    return process_request(payload, signer=signer, inputs=[address], outputs=[address])


def process_request(
    payload: bytes,
    *,
    signer: str,
    inputs: list[str],
    outputs: list[str],
    family: str = FAMILY_NAME,
    version: str = FAMILY_VERSION,
) -> TpProcessRequest:
    header = TransactionHeader(
        family_name=family,
        family_version=version,
        inputs=inputs,
        outputs=outputs,
        signer_public_key=signer,
        batcher_public_key=signer,
        nonce=os.urandom(8).hex(),
        payload_sha512=hashlib.sha512(payload).hexdigest(),
    )
    return TpProcessRequest(
        header=header, payload=payload, signature=os.urandom(64).hex(), context_id=uuid.uuid4().hex
    )


@dataclass
class Outcome:
    """What a processor did with one transaction."""

    response: TpProcessResponse
    events: list[Event] = field(default_factory=list)
    receipts: list[bytes] = field(default_factory=list)

    @property
    def status(self) -> str:
        return TpProcessResponse.Status.Name(self.response.status)


class ValidatorPeer:
    """The validator end of one component endpoint on 127.0.0.1 (a free port unless ``port`` is given).

    ``stall_after`` makes a peer that, while the test does not read, takes in only that
    many frames and then leaves the rest in the TCP connection (the smallest kernel buffer
    included), as a validator that stopped reading does.
    """

    def __init__(self, port: int | None = None, *, stall_after: int | None = None) -> None:
        self._context = zmq.Context()
        self._socket = self._context.socket(zmq.ROUTER)
        self._socket.setsockopt(zmq.LINGER, 0)
        if stall_after is not None:
            self._socket.setsockopt(zmq.RCVHWM, stall_after)
            self._socket.setsockopt(zmq.RCVBUF, 4096)
        if port is None:
            self.port = self._socket.bind_to_random_port("tcp://127.0.0.1")
        else:
            self._bind_retrying(port)
            self.port = port
        self.url = f"tcp://127.0.0.1:{self.port}"
        self.identity: bytes | None = None
        self.state: dict[str, bytes] = {}
        self._backlog: deque[tuple[bytes, Message]] = deque()

    def _bind_retrying(self, port: int) -> None:
        deadline = time.monotonic() + DEADLINE
        while True:
            try:
                self._socket.bind(f"tcp://127.0.0.1:{port}")
                return
            except zmq.ZMQError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)

    def close(self) -> None:
        self._socket.close(linger=0)
        self._context.term()

    def __enter__(self) -> "ValidatorPeer":
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    # -- wire ---------------------------------------------------------------------------------

    def send(self, message_type: int, content: bytes, correlation_id: str | None = None) -> str:
        assert self.identity is not None, "no processor has registered"
        correlation_id = correlation_id or uuid.uuid4().hex
        frame = Message(message_type=message_type, correlation_id=correlation_id, content=content)
        self._socket.send_multipart([self.identity, frame.SerializeToString()])
        return correlation_id

    def send_raw(self, frame: bytes) -> None:
        """A frame that need not be a valid ``Message`` at all."""
        assert self.identity is not None, "no processor has registered"
        self._socket.send_multipart([self.identity, frame])

    def receive(self, wanted: Callable[[Message], bool], timeout: float = DEADLINE) -> Message:
        """The first message (kept ones first) for which ``wanted`` is true; others stay in the backlog."""
        for index, (identity, message) in enumerate(self._backlog):
            if wanted(message):
                del self._backlog[index]
                self.identity = identity
                return message
        deadline = time.monotonic() + timeout
        while (remaining := deadline - time.monotonic()) > 0:
            if not self._socket.poll(int(remaining * 1000) + 1):
                continue
            identity, frame = self._socket.recv_multipart()
            message = Message.FromString(frame)
            if wanted(message):
                self.identity = identity
                return message
            self._backlog.append((identity, message))
        raise TimeoutError(f"no wanted message within {timeout} s; backlog: {self.backlog_types()}")

    def receive_type(self, message_type: int, timeout: float = DEADLINE) -> Message:
        return self.receive(lambda message: message.message_type == message_type, timeout)

    def backlog_types(self) -> list[str]:
        return [Message.MessageType.Name(message.message_type) for _, message in self._backlog]

    def quiet_for(self, seconds: float) -> list[Message]:
        """Everything the processor sends during ``seconds`` (for checking that it sends nothing)."""
        received = [message for _, message in self._backlog]
        self._backlog.clear()
        deadline = time.monotonic() + seconds
        while (remaining := deadline - time.monotonic()) > 0:
            if self._socket.poll(int(remaining * 1000) + 1):
                received.append(Message.FromString(self._socket.recv_multipart()[1]))
        return received

    # -- protocol -------------------------------------------------------------------------------

    def expect_registration(
        self, status: int = TpRegisterResponse.OK, timeout: float = DEADLINE
    ) -> TpRegisterRequest:
        message = self.receive_type(Message.TP_REGISTER_REQUEST, timeout)
        self.send(
            Message.TP_REGISTER_RESPONSE,
            TpRegisterResponse(status=status, protocol_version=1).SerializeToString(),
            message.correlation_id,
        )
        return TpRegisterRequest.FromString(message.content)

    def expect_unregistration(self, timeout: float = DEADLINE) -> None:
        message = self.receive_type(Message.TP_UNREGISTER_REQUEST, timeout)
        self.send(
            Message.TP_UNREGISTER_RESPONSE,
            TpUnregisterResponse(status=TpUnregisterResponse.OK).SerializeToString(),
            message.correlation_id,
        )

    def ping(self, timeout: float = DEADLINE) -> float:
        """Round-trip seconds of a PING_REQUEST."""
        started = time.monotonic()
        correlation_id = self.send(Message.PING_REQUEST, PingRequest().SerializeToString())
        self.receive(
            lambda message: message.message_type == Message.PING_RESPONSE and message.correlation_id == correlation_id,
            timeout,
        )
        return time.monotonic() - started

    def start_transaction(self, request: TpProcessRequest) -> str:
        """Send a transaction without waiting; finish it with :meth:`serve`."""
        return self.send(Message.TP_PROCESS_REQUEST, request.SerializeToString())

    def process(self, request: TpProcessRequest, timeout: float = DEADLINE) -> Outcome:
        """Send one transaction and serve its calls until the processor answers it."""
        return self.serve(request, self.start_transaction(request), timeout)

    def serve(self, request: TpProcessRequest, correlation_id: str, timeout: float = DEADLINE) -> Outcome:
        """Answer the calls of ``request``'s transaction until the processor answers it."""
        events: list[Event] = []
        receipts: list[bytes] = []
        deadline = time.monotonic() + timeout

        def wanted(message: Message) -> bool:
            if message.message_type == Message.TP_PROCESS_RESPONSE:
                return message.correlation_id == correlation_id
            return call_context(message) == request.context_id

        while True:
            message = self.receive(wanted, max(deadline - time.monotonic(), 0.001))
            if message.message_type == Message.TP_PROCESS_RESPONSE:
                return Outcome(TpProcessResponse.FromString(message.content), events, receipts)
            self.answer_call(request, message, events, receipts)

    def answer_call(
        self, request: TpProcessRequest, message: Message, events: list[Event], receipts: list[bytes]
    ) -> None:
        """Serve one state/event/receipt call of ``request``'s transaction, as a validator would."""
        header = request.header if request.HasField("header") else TransactionHeader.FromString(request.header_bytes)
        inputs, outputs = list(header.inputs), list(header.outputs)
        kind = message.message_type
        if kind == Message.TP_STATE_GET_REQUEST:
            get = TpStateGetRequest.FromString(message.content)
            assert get.context_id == request.context_id
            if not all(_allowed(address, inputs) for address in get.addresses):
                reply = TpStateGetResponse(status=TpStateGetResponse.AUTHORIZATION_ERROR)
            else:
                entries = [TpStateEntry(address=a, data=self.state.get(a, b"")) for a in get.addresses]
                reply = TpStateGetResponse(status=TpStateGetResponse.OK, entries=entries)
            self.send(Message.TP_STATE_GET_RESPONSE, reply.SerializeToString(), message.correlation_id)
        elif kind == Message.TP_STATE_SET_REQUEST:
            put = TpStateSetRequest.FromString(message.content)
            assert put.context_id == request.context_id
            if not all(_allowed(entry.address, outputs) for entry in put.entries):
                reply_set = TpStateSetResponse(status=TpStateSetResponse.AUTHORIZATION_ERROR)
            else:
                self.state.update({entry.address: entry.data for entry in put.entries})
                reply_set = TpStateSetResponse(
                    status=TpStateSetResponse.OK, addresses=[entry.address for entry in put.entries]
                )
            self.send(Message.TP_STATE_SET_RESPONSE, reply_set.SerializeToString(), message.correlation_id)
        elif kind == Message.TP_STATE_DELETE_REQUEST:
            delete = TpStateDeleteRequest.FromString(message.content)
            assert delete.context_id == request.context_id
            if not all(_allowed(address, outputs) for address in delete.addresses):
                reply_delete = TpStateDeleteResponse(status=TpStateDeleteResponse.AUTHORIZATION_ERROR)
            else:
                deleted = [address for address in delete.addresses if self.state.pop(address, None) is not None]
                reply_delete = TpStateDeleteResponse(status=TpStateDeleteResponse.OK, addresses=deleted)
            self.send(Message.TP_STATE_DELETE_RESPONSE, reply_delete.SerializeToString(), message.correlation_id)
        elif kind == Message.TP_EVENT_ADD_REQUEST:
            event = TpEventAddRequest.FromString(message.content)
            assert event.context_id == request.context_id
            events.append(event.event)
            reply_event = TpEventAddResponse(status=TpEventAddResponse.OK)
            self.send(Message.TP_EVENT_ADD_RESPONSE, reply_event.SerializeToString(), message.correlation_id)
        else:
            receipt = TpReceiptAddDataRequest.FromString(message.content)
            assert receipt.context_id == request.context_id
            receipts.append(receipt.data)
            reply_receipt = TpReceiptAddDataResponse(status=TpReceiptAddDataResponse.OK)
            self.send(Message.TP_RECEIPT_ADD_DATA_RESPONSE, reply_receipt.SerializeToString(), message.correlation_id)


_CALL_TYPES = {
    Message.TP_STATE_GET_REQUEST: TpStateGetRequest,
    Message.TP_STATE_SET_REQUEST: TpStateSetRequest,
    Message.TP_STATE_DELETE_REQUEST: TpStateDeleteRequest,
    Message.TP_EVENT_ADD_REQUEST: TpEventAddRequest,
    Message.TP_RECEIPT_ADD_DATA_REQUEST: TpReceiptAddDataRequest,
}


def call_context(message: Message) -> str | None:
    """The context id of a state/event/receipt call; None for any other message."""
    call_type = _CALL_TYPES.get(message.message_type)
    return None if call_type is None else call_type.FromString(message.content).context_id


def _allowed(address: str, declared: list[str]) -> bool:
    """A validator lets a transaction touch an address under any of its declared prefixes."""
    return any(address.startswith(prefix) for prefix in declared)
