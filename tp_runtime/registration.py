"""Registering with the validator and unregistering: the requests, the waits, what the answers mean.

The event loop's session decides *when*; this module knows *how*: one
TP_REGISTER_REQUEST per family version, all answered OK or the processor cannot
serve, and one TP_UNREGISTER_REQUEST whose answer is only waited for briefly.
"""

import asyncio
import logging
from collections.abc import Callable, Sequence
from typing import Any

from google.protobuf.message import DecodeError

from tp_runtime.errors import RegistrationRejected
from xo_core.protobuf.processor_pb2 import TpRegisterRequest, TpRegisterResponse, TpUnregisterResponse
from xo_core.protobuf.validator_pb2 import Message

LOGGER = logging.getLogger("tp_runtime.core")  # lifecycle lines, logged as the core's

#: Send one request on the session; the future resolves with its reply (or fails when the session is lost).
Ask = Callable[[int, bytes], "asyncio.Future[Message]"]
RegistrationReply = type[TpRegisterResponse] | type[TpUnregisterResponse]


async def register(
    ask: Ask, requests: Sequence[TpRegisterRequest], url: str, stopping: asyncio.Event, timeout: float
) -> bool:
    """Register every family version; False if this session cannot (no answer in time, lost, stopping).

    Stopping while the answers are on their way, the validator may have registered some
    versions already: the caller then unregisters all the same.
    Raises :class:`RegistrationRejected` when the validator refuses one: retrying cannot help.
    """
    replies = [ask(Message.TP_REGISTER_REQUEST, request.SerializeToString()) for request in requests]
    await _until_done_or_set(replies, stopping, timeout)
    answered = all(reply.done() for reply in replies)
    failed = _settle(replies)
    if not answered:
        if not stopping.is_set():
            LOGGER.warning("the validator at %s did not answer the registration within %.1f s", url, timeout)
        return False
    if failed:
        LOGGER.warning("lost the validator at %s while registering", url)
        return False
    for request, reply in zip(requests, replies, strict=True):
        status = _status(TpRegisterResponse, Message.TP_REGISTER_RESPONSE, reply.result())
        if status != TpRegisterResponse.OK:
            raise RegistrationRejected(
                f"the validator at {url} refused to register family {request.family!r} "
                f"version {request.version!r} ({_status_name(TpRegisterResponse, status)})"
            )
    return True


def _settle(replies: Sequence[asyncio.Future[Message]]) -> bool:
    """Cancel the replies still awaited and read the failures of the others; True if any failed or was cancelled.

    Every failure is read, so none is reported as "never retrieved" when the future is collected.
    """
    failed = False
    for reply in replies:
        if not reply.done():
            reply.cancel()
        elif reply.cancelled() or reply.exception() is not None:
            failed = True
    return failed


async def unregister(ask: Ask, url: str, abandon: asyncio.Event, timeout: float) -> None:
    """Tell the validator to send no more; its answer is logged, waited for at most ``timeout`` s."""
    LOGGER.info("unregistering from the validator")
    reply = ask(Message.TP_UNREGISTER_REQUEST, b"")
    await _until_done_or_set([reply], abandon, timeout)
    if not reply.done():
        reply.cancel()
        LOGGER.warning("the validator did not answer the unregistration in time")
    elif reply.exception() is not None:
        LOGGER.warning("lost the validator at %s while unregistering", url)
    else:
        status = _status(TpUnregisterResponse, Message.TP_UNREGISTER_RESPONSE, reply.result())
        LOGGER.info("unregistered from the validator (%s)", _status_name(TpUnregisterResponse, status))


def _status(response_type: RegistrationReply, reply_type: int, message: Message) -> int:
    """The status of a registration-style reply; a reply of the wrong type or unreadable counts as unset."""
    if message.message_type != reply_type:
        return 0
    try:
        return response_type.FromString(message.content).status
    except DecodeError:
        return 0


def _status_name(response_type: RegistrationReply, status: int) -> str:
    """The status's name for log lines, or its number if it is not one we know."""
    try:
        return response_type.Status.Name(status)
    except ValueError:
        return str(status)


async def _until_done_or_set(futures: Sequence[asyncio.Future[Any]], event: asyncio.Event, timeout: float) -> None:
    """Wait until every one of ``futures`` is done, at most ``timeout`` s and no longer once ``event`` is set.

    Never cancels ``futures``: the caller decides what becomes of those still undone.
    """
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    set_ = asyncio.ensure_future(event.wait())
    try:
        waiting = {future for future in futures if not future.done()}
        while waiting and not set_.done() and (remaining := deadline - loop.time()) > 0:
            done, _ = await asyncio.wait({*waiting, set_}, timeout=remaining, return_when=asyncio.FIRST_COMPLETED)
            waiting -= done
    finally:
        set_.cancel()
