"""How the validator answers a processor's requests within a transaction's context.

State reads, writes and deletes, events and receipt data all carry a ``context_id``
and get the same treatment: parse, find the context, carry the request out (or refuse
it with AUTHORIZATION_ERROR when an address is outside the transaction's inputs or
outputs), answer. One table row per request type keeps that shape in one place.

A context exists only while its attempt runs; the dispatcher closes it before acting
on the processor's answer. Requests in an unknown context get what a Sawtooth
validator answers (its ``ContextManager`` and ``tp_state_handlers``): state requests OK
without touching anything (reads find no entries, writes and deletes are dropped;
a delete echoes its addresses), events and receipt data ERROR.

A refusal is logged at INFO through the dispatcher's rate limiter, one line per kind of
request and rule per interval: a client can make a processor ask for what it may not have
(a transaction whose inputs leave out the game it names) as often as it submits one.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from google.protobuf.message import Message as ProtoMessage

from xo_core.log_limits import LogLimiter
from xo_core.protobuf import state_context_pb2
from xo_core.protobuf.validator_pb2 import Message
from xo_devnet.context import AuthorizationError, TxnContext

LOG = logging.getLogger(__name__)


def answer_context_request(
    contexts: Mapping[str, TxnContext], message: Message, log_limiter: LogLimiter
) -> tuple[int, bytes] | None:
    """The (message type, content) answering a context request; None if the message is not one."""
    call = _CONTEXT_CALLS.get(message.message_type)
    if call is None:
        return None
    request = call.parse(message.content)
    context = contexts.get(request.context_id)
    if context is None:
        response = call.unknown_context(request)
    else:
        try:
            response = call.apply(context, request)
        except AuthorizationError as error:
            key = ("refused context request", call.name, error.condition)
            log_limiter.log(LOG, key, logging.INFO, "refused a %s request: %s", call.name, error)
            response = call.refused
    return call.response_type, response.SerializeToString()


@dataclass(frozen=True)
class _ContextCall:
    """How to answer one kind of request a processor makes within a transaction's context."""

    name: str
    parse: Callable[[bytes], Any]
    response_type: int
    apply: Callable[[TxnContext, Any], ProtoMessage]
    """The answer once the request is carried out; raises AuthorizationError to refuse it."""
    refused: ProtoMessage
    unknown_context: Callable[[Any], ProtoMessage]
    """The answer when no attempt runs in the context (finished, abandoned, or never existed)."""


def _state_get(context: TxnContext, request: state_context_pb2.TpStateGetRequest) -> ProtoMessage:
    entries = [
        state_context_pb2.TpStateEntry(address=address, data=data) for address, data in context.get(request.addresses)
    ]
    return state_context_pb2.TpStateGetResponse(entries=entries, status=state_context_pb2.TpStateGetResponse.OK)


def _state_set(context: TxnContext, request: state_context_pb2.TpStateSetRequest) -> ProtoMessage:
    written = context.set((entry.address, entry.data) for entry in request.entries)
    return state_context_pb2.TpStateSetResponse(addresses=written, status=state_context_pb2.TpStateSetResponse.OK)


def _state_delete(context: TxnContext, request: state_context_pb2.TpStateDeleteRequest) -> ProtoMessage:
    deleted = context.delete(request.addresses)
    return state_context_pb2.TpStateDeleteResponse(addresses=deleted, status=state_context_pb2.TpStateDeleteResponse.OK)


def _receipt_data(context: TxnContext, request: state_context_pb2.TpReceiptAddDataRequest) -> ProtoMessage:
    context.data.append(request.data)
    return state_context_pb2.TpReceiptAddDataResponse(status=state_context_pb2.TpReceiptAddDataResponse.OK)


def _event(context: TxnContext, request: state_context_pb2.TpEventAddRequest) -> ProtoMessage:
    context.events.append(request.event)
    return state_context_pb2.TpEventAddResponse(status=state_context_pb2.TpEventAddResponse.OK)


_GET, _SET, _DELETE = (
    state_context_pb2.TpStateGetResponse,
    state_context_pb2.TpStateSetResponse,
    state_context_pb2.TpStateDeleteResponse,
)
_DATA, _EVENT = state_context_pb2.TpReceiptAddDataResponse, state_context_pb2.TpEventAddResponse
_CONTEXT_CALLS: dict[int, _ContextCall] = {
    Message.TP_STATE_GET_REQUEST: _ContextCall(
        "state read",
        state_context_pb2.TpStateGetRequest.FromString,
        Message.TP_STATE_GET_RESPONSE,
        _state_get,
        _GET(status=_GET.AUTHORIZATION_ERROR),
        lambda _: _GET(status=_GET.OK),
    ),
    Message.TP_STATE_SET_REQUEST: _ContextCall(
        "state write",
        state_context_pb2.TpStateSetRequest.FromString,
        Message.TP_STATE_SET_RESPONSE,
        _state_set,
        _SET(status=_SET.AUTHORIZATION_ERROR),
        lambda _: _SET(status=_SET.OK),
    ),
    Message.TP_STATE_DELETE_REQUEST: _ContextCall(
        "state delete",
        state_context_pb2.TpStateDeleteRequest.FromString,
        Message.TP_STATE_DELETE_RESPONSE,
        _state_delete,
        _DELETE(status=_DELETE.AUTHORIZATION_ERROR),
        lambda request: _DELETE(addresses=request.addresses, status=_DELETE.OK),
    ),
    Message.TP_RECEIPT_ADD_DATA_REQUEST: _ContextCall(
        "receipt data",
        state_context_pb2.TpReceiptAddDataRequest.FromString,
        Message.TP_RECEIPT_ADD_DATA_RESPONSE,
        _receipt_data,
        _DATA(status=_DATA.ERROR),
        lambda _: _DATA(status=_DATA.ERROR),
    ),
    Message.TP_EVENT_ADD_REQUEST: _ContextCall(
        "event",
        state_context_pb2.TpEventAddRequest.FromString,
        Message.TP_EVENT_ADD_RESPONSE,
        _event,
        _EVENT(status=_EVENT.ERROR),
        lambda _: _EVENT(status=_EVENT.ERROR),
    ),
}
