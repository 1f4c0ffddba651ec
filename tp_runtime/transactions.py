"""One TP_PROCESS_REQUEST from frame to response, on a handler thread."""

import logging
import time
from collections.abc import Callable

from google.protobuf.message import DecodeError

from tp_runtime.connection import ValidatorConnection
from tp_runtime.context import Context
from tp_runtime.envelope import envelope
from tp_runtime.errors import ValidatorConnectionLost
from tp_runtime.handlers import Handlers
from tp_runtime.outcome import apply_transaction
from tp_runtime.replies import PendingReplies, Requester
from tp_runtime.tallies import UNKNOWN_VERSION, ProcessorTallies
from xo_core.protobuf.processor_pb2 import TpProcessRequest, TpProcessResponse
from xo_core.protobuf.transaction_pb2 import TransactionHeader
from xo_core.protobuf.validator_pb2 import Message

LOGGER = logging.getLogger(__name__)
WIRE_LOGGER = logging.getLogger("tp_runtime.wire")

ProcessJob = tuple[ValidatorConnection, Message]


class TransactionRunner:
    """Applies transactions with the right handler and answers on the connection they came from.

    Answering on the request's own connection (not "the current one") is what keeps
    a response from reaching a validator session that never asked for it. With
    ``tallies``, every answered transaction and every request made for it is counted.
    """

    def __init__(
        self,
        handlers: Handlers,
        pending: PendingReplies,
        next_id: Callable[[], str],
        request_timeout: float,
        tallies: ProcessorTallies | None = None,
    ) -> None:
        self._handlers = handlers
        self._pending = pending
        self._next_id = next_id
        self._request_timeout = request_timeout
        self._tallies = tallies

    def __call__(self, job: ProcessJob) -> None:
        connection, message = job
        if connection.closed:
            return  # queued before the validator went away; it resends the transaction
        started = time.perf_counter()
        try:
            response, version = self._respond(connection, message)
        except ValidatorConnectionLost:
            LOGGER.info("abandoned a transaction: the validator went away while it ran; it will be resent")
            return
        if self._tallies is not None:
            self._tallies.transaction(version, response.status, time.perf_counter() - started)
        if WIRE_LOGGER.isEnabledFor(logging.DEBUG):
            WIRE_LOGGER.debug(
                "sending TP_PROCESS_RESPONSE %s: %s %s",
                message.correlation_id,
                TpProcessResponse.Status.Name(response.status),
                response.message,
            )
        try:
            connection.send(
                envelope(Message.TP_PROCESS_RESPONSE, message.correlation_id, response.SerializeToString())
            )
        except ValidatorConnectionLost:
            LOGGER.info("could not answer a transaction: the validator went away; it will be resent")

    def _respond(self, connection: ValidatorConnection, message: Message) -> tuple[TpProcessResponse, str]:
        """The response, and the family version it counts under (one this processor serves, or ``unknown``)."""
        try:
            request = TpProcessRequest.FromString(message.content)
            if not request.HasField("header") and request.header_bytes:
                request.header.CopyFrom(TransactionHeader.FromString(request.header_bytes))
        except DecodeError as error:
            LOGGER.error("unreadable TP_PROCESS_REQUEST %s: %s", message.correlation_id, error)
            response = TpProcessResponse(
                status=TpProcessResponse.INTERNAL_ERROR, message=f"unreadable TpProcessRequest: {error}"
            )
            return response, UNKNOWN_VERSION
        header = request.header
        handler = self._handlers.find(header.family_name, header.family_version)
        if handler is None:
            LOGGER.error("no handler for family %r version %r", header.family_name, header.family_version)
            response = TpProcessResponse(
                status=TpProcessResponse.INTERNAL_ERROR,
                message=f"this processor has no handler for family {header.family_name!r} "
                f"version {header.family_version!r}",
            )
            return response, UNKNOWN_VERSION
        requester = Requester(connection, self._pending, self._next_id, self._request_timeout, self._tallies)
        response = apply_transaction(handler, request, Context(requester, request.context_id))
        if LOGGER.isEnabledFor(logging.DEBUG):
            LOGGER.debug(
                "transaction %.16s (%s %s): %s %s",
                request.signature,
                header.family_name,
                header.family_version,
                TpProcessResponse.Status.Name(response.status),
                response.message,
            )
        return response, header.family_version
