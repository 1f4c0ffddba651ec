"""The ``context`` a handler's ``apply`` gets: the SDK's state, receipt and event calls, over our wire messages.

Method names, arguments, return values and exceptions match
``sawtooth_sdk.processor.context.Context`` so that a handler written for the SDK runs
unchanged; only the transport underneath is ours.
"""

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

from google.protobuf.message import Message as ProtobufMessage
from sawtooth_sdk.processor.exceptions import AuthorizationException, InternalError

from tp_runtime.replies import Requester
from xo_core.protobuf.events_pb2 import Event
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
from xo_core.protobuf.validator_pb2 import Message

Response = TypeVar(
    "Response",
    TpStateGetResponse,
    TpStateSetResponse,
    TpStateDeleteResponse,
    TpReceiptAddDataResponse,
    TpEventAddResponse,
)


@dataclass(frozen=True)
class _Call(Generic[Response]):
    """One kind of context call: its message types, its reply, and how the validator says no."""

    request_type: int
    reply_type: int
    response: type[Response]
    refused_status: int
    refusal: Callable[[str], Exception]
    #: The SDK's message for a refusal; ``{}`` is filled in with what was asked.
    refusal_message: str


_GET = _Call(
    Message.TP_STATE_GET_REQUEST,
    Message.TP_STATE_GET_RESPONSE,
    TpStateGetResponse,
    TpStateGetResponse.AUTHORIZATION_ERROR,
    AuthorizationException,
    "Tried to get unauthorized address: {}",
)
_SET = _Call(
    Message.TP_STATE_SET_REQUEST,
    Message.TP_STATE_SET_RESPONSE,
    TpStateSetResponse,
    TpStateSetResponse.AUTHORIZATION_ERROR,
    AuthorizationException,
    "Tried to set unauthorized address: {}",
)
_DELETE = _Call(
    Message.TP_STATE_DELETE_REQUEST,
    Message.TP_STATE_DELETE_RESPONSE,
    TpStateDeleteResponse,
    TpStateDeleteResponse.AUTHORIZATION_ERROR,
    AuthorizationException,
    "Tried to delete unauthorized address: {}",
)
_RECEIPT = _Call(
    Message.TP_RECEIPT_ADD_DATA_REQUEST,
    Message.TP_RECEIPT_ADD_DATA_RESPONSE,
    TpReceiptAddDataResponse,
    TpReceiptAddDataResponse.ERROR,
    InternalError,
    "Failed to add receipt data: {}",
)
_EVENT = _Call(
    Message.TP_EVENT_ADD_REQUEST,
    Message.TP_EVENT_ADD_RESPONSE,
    TpEventAddResponse,
    TpEventAddResponse.ERROR,
    InternalError,
    "Failed to add event: {}",
)


class Context:
    """State access for one transaction, scoped by the validator's ``context_id``.

    Every call waits for the validator's answer -- suspending the handler's greenlet so
    that other transactions run meanwhile, or blocking a thread of the handler's own --
    and raises ``TimeoutError`` after ``timeout`` seconds (``None``: the processor's default).
    """

    def __init__(self, requester: Requester, context_id: str) -> None:
        self._requester = requester
        self._context_id = context_id

    def get_state(self, addresses: Sequence[str], timeout: float | None = None) -> list[TpStateEntry]:
        """The entries at ``addresses`` that hold data; addresses with no data are left out."""
        request = TpStateGetRequest(context_id=self._context_id, addresses=addresses)
        response = self._call(_GET, request, timeout, lambda: list(addresses))
        return [entry for entry in response.entries if entry.data]

    def set_state(self, entries: Mapping[str, bytes], timeout: float | None = None) -> list[str]:
        """Write ``address -> data``; returns the addresses the validator set."""
        request = TpStateSetRequest(
            context_id=self._context_id,
            entries=[TpStateEntry(address=address, data=data) for address, data in entries.items()],
        )
        return list(self._call(_SET, request, timeout, lambda: list(entries)).addresses)

    def delete_state(self, addresses: Sequence[str], timeout: float | None = None) -> list[str]:
        """Unset ``addresses``; returns the addresses the validator deleted."""
        request = TpStateDeleteRequest(context_id=self._context_id, addresses=addresses)
        return list(self._call(_DELETE, request, timeout, lambda: list(addresses)).addresses)

    def add_receipt_data(self, data: bytes, timeout: float | None = None) -> None:
        """Attach opaque ``data`` to this transaction's receipt."""
        request = TpReceiptAddDataRequest(context_id=self._context_id, data=data)
        self._call(_RECEIPT, request, timeout, lambda: data)

    def add_event(
        self,
        event_type: str,
        attributes: Iterable[tuple[str, str]] | None = None,
        data: bytes | None = None,
        timeout: float | None = None,
    ) -> None:
        """Emit an event that subscribers see once the transaction's block commits."""
        pairs = list(attributes or ())
        event = Event(
            event_type=event_type,
            attributes=[Event.Attribute(key=key, value=value) for key, value in pairs],
            data=data,
        )
        request = TpEventAddRequest(context_id=self._context_id, event=event)
        self._call(_EVENT, request, timeout, lambda: f"({event_type}, {pairs}, {data!r})")

    def _call(
        self, call: _Call[Response], request: ProtobufMessage, timeout: float | None, asked: Callable[[], object]
    ) -> Response:
        """Send ``request``, parse the reply, and raise the SDK's exception if the validator refused it.

        ``asked`` gives what was asked for that exception's message; it is called only on a refusal.
        """
        content = self._requester.request(call.request_type, request.SerializeToString(), call.reply_type, timeout)
        response = call.response.FromString(content)
        if response.status == call.refused_status:
            raise call.refusal(call.refusal_message.format(asked()))
        return response
