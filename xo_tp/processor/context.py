"""The ``context`` a handler's ``apply`` gets: the SDK's state, receipt and event calls, over our wire messages.

Method names, arguments, return values and exceptions match
``sawtooth_sdk.processor.context.Context`` so that a handler written for the SDK runs
unchanged; only the transport underneath is ours.
"""

from collections.abc import Iterable, Mapping, Sequence

from sawtooth_sdk.processor.exceptions import AuthorizationException, InternalError

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
from xo_tp.processor.replies import Requester


class Context:
    """State access for one transaction, scoped by the validator's ``context_id``.

    Every call blocks the handler thread until the validator answers, or raises
    ``TimeoutError`` after ``timeout`` seconds (``None``: the processor's default).
    """

    def __init__(self, requester: Requester, context_id: str) -> None:
        self._requester = requester
        self._context_id = context_id

    def get_state(self, addresses: Sequence[str], timeout: float | None = None) -> list[TpStateEntry]:
        """The entries at ``addresses`` that hold data; addresses with no data are left out."""
        request = TpStateGetRequest(context_id=self._context_id, addresses=addresses)
        response = TpStateGetResponse.FromString(
            self._requester.request(
                Message.TP_STATE_GET_REQUEST, request.SerializeToString(), Message.TP_STATE_GET_RESPONSE, timeout
            )
        )
        if response.status == TpStateGetResponse.AUTHORIZATION_ERROR:
            raise AuthorizationException(f"Tried to get unauthorized address: {list(addresses)}")
        return [entry for entry in response.entries if entry.data]

    def set_state(self, entries: Mapping[str, bytes], timeout: float | None = None) -> list[str]:
        """Write ``address -> data``; returns the addresses the validator set."""
        request = TpStateSetRequest(
            context_id=self._context_id,
            entries=[TpStateEntry(address=address, data=data) for address, data in entries.items()],
        )
        response = TpStateSetResponse.FromString(
            self._requester.request(
                Message.TP_STATE_SET_REQUEST, request.SerializeToString(), Message.TP_STATE_SET_RESPONSE, timeout
            )
        )
        if response.status == TpStateSetResponse.AUTHORIZATION_ERROR:
            raise AuthorizationException(f"Tried to set unauthorized address: {list(entries)}")
        return list(response.addresses)

    def delete_state(self, addresses: Sequence[str], timeout: float | None = None) -> list[str]:
        """Unset ``addresses``; returns the addresses the validator deleted."""
        request = TpStateDeleteRequest(context_id=self._context_id, addresses=addresses)
        response = TpStateDeleteResponse.FromString(
            self._requester.request(
                Message.TP_STATE_DELETE_REQUEST,
                request.SerializeToString(),
                Message.TP_STATE_DELETE_RESPONSE,
                timeout,
            )
        )
        if response.status == TpStateDeleteResponse.AUTHORIZATION_ERROR:
            raise AuthorizationException(f"Tried to delete unauthorized address: {list(addresses)}")
        return list(response.addresses)

    def add_receipt_data(self, data: bytes, timeout: float | None = None) -> None:
        """Attach opaque ``data`` to this transaction's receipt."""
        request = TpReceiptAddDataRequest(context_id=self._context_id, data=data)
        response = TpReceiptAddDataResponse.FromString(
            self._requester.request(
                Message.TP_RECEIPT_ADD_DATA_REQUEST,
                request.SerializeToString(),
                Message.TP_RECEIPT_ADD_DATA_RESPONSE,
                timeout,
            )
        )
        if response.status == TpReceiptAddDataResponse.ERROR:
            raise InternalError(f"Failed to add receipt data: {data!r}")

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
        response = TpEventAddResponse.FromString(
            self._requester.request(
                Message.TP_EVENT_ADD_REQUEST, request.SerializeToString(), Message.TP_EVENT_ADD_RESPONSE, timeout
            )
        )
        if response.status == TpEventAddResponse.ERROR:
            raise InternalError(f"Failed to add event: ({event_type}, {pairs}, {data!r})")
