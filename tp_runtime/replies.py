"""Pairing the validator's replies with the requests waiting for them.

Whoever reads a frame (the handler thread, or the event loop while a handler blocks
that thread) hands each reply to whoever waits for its correlation id: a handler
greenlet (resumed by the :mod:`scheduler <tp_runtime.scheduler>`), a coroutine
on the loop, or a plain thread.
"""

import asyncio
import contextlib
import queue
from collections.abc import Callable
from typing import Protocol

from greenlet import greenlet
from sawtooth_sdk.processor.exceptions import InternalError

from tp_runtime.connection import ValidatorConnection
from tp_runtime.envelope import envelope, message_type_name
from tp_runtime.errors import ValidatorConnectionLost
from tp_runtime.scheduler import HandlerScheduler, Waiter
from tp_runtime.tallies import ProcessorTallies
from xo_core.protobuf.validator_pb2 import Message


class ReplySink(Protocol):
    """Where a reply (or the error that ends the wait) is delivered."""

    def put(self, item: Message | BaseException, /) -> None:
        """Deliver the reply, or the exception that ends the wait; safe from any thread."""


class LoopSink:
    """Delivers a reply to a coroutine on the event loop, from whichever thread read it."""

    def __init__(self, future: "asyncio.Future[Message]") -> None:
        self._future = future
        self._loop = future.get_loop()

    def put(self, item: Message | BaseException, /) -> None:
        """Settle the future on its own loop; a loop that is gone has nobody waiting any more."""
        with contextlib.suppress(RuntimeError):
            self._loop.call_soon_threadsafe(self._settle, item)

    def _settle(self, item: Message | BaseException) -> None:
        if self._future.done():
            return
        if isinstance(item, BaseException):
            self._future.set_exception(item)
        else:
            self._future.set_result(item)


class PendingReplies:
    """Correlation id -> the sink waiting for that reply.

    Plain dict operations are atomic under the GIL, so any thread may add and the
    loop removes without a lock.
    """

    def __init__(self) -> None:
        self._waiting: dict[str, ReplySink] = {}

    def expect(self, correlation_id: str, sink: ReplySink) -> None:
        """Route the reply to ``correlation_id`` to ``sink``; register before sending, or a fast reply is lost."""
        self._waiting[correlation_id] = sink

    def forget(self, correlation_id: str) -> None:
        """Stop waiting (the wait timed out or ended); a reply arriving later is ignored."""
        self._waiting.pop(correlation_id, None)

    def deliver(self, message: Message) -> bool:
        """Hand ``message`` to whoever waits for it; False when nobody does (a late or unknown reply)."""
        sink = self._waiting.pop(message.correlation_id, None)
        if sink is None:
            return False
        sink.put(message)
        return True

    def fail_all(self, reason: str) -> None:
        """End every wait: the connection the requests went out on is gone.

        Each waiter gets its own exception object, since each raises it in its own stack.
        """
        waiting, self._waiting = self._waiting, {}
        for sink in waiting.values():
            sink.put(ValidatorConnectionLost(reason))


class Requester:
    """Request/reply over one validator connection, for the handler of one transaction."""

    def __init__(
        self,
        connection: ValidatorConnection,
        pending: PendingReplies,
        next_id: Callable[[], str],
        default_timeout: float,
        tallies: ProcessorTallies | None = None,
    ) -> None:
        self._connection = connection
        self._pending = pending
        self._next_id = next_id
        self._default_timeout = default_timeout
        self._tallies = tallies

    def request(self, message_type: int, content: bytes, reply_type: int, timeout: float | None = None) -> bytes:
        """Send one request and return the content of its reply.

        Raises ``TimeoutError`` when no reply comes in time (``None`` means the
        processor's default, never forever), :class:`ValidatorConnectionLost` when the
        connection drops first, and ``InternalError`` for a reply of the wrong type.
        """
        seconds = self._default_timeout if timeout is None else timeout
        if self._tallies is not None:
            self._tallies.call(message_type)
        correlation_id = self._next_id()
        frame = envelope(message_type, correlation_id, content)
        scheduler = HandlerScheduler.current()
        try:
            if scheduler is not None:
                reply = self._suspend(scheduler, correlation_id, frame, seconds)
            else:
                reply = self._block(correlation_id, frame, seconds)
        except TimeoutError:
            name = message_type_name(message_type)
            raise TimeoutError(f"validator did not answer {name} within {seconds} s") from None
        finally:
            self._pending.forget(correlation_id)
        if reply.message_type != reply_type:
            raise InternalError(
                f"validator answered {message_type_name(message_type)} with "
                f"{message_type_name(reply.message_type)} instead of {message_type_name(reply_type)}"
            )
        return reply.content

    def _suspend(self, scheduler: HandlerScheduler, correlation_id: str, frame: bytes, seconds: float) -> Message:
        """The usual path: a handler greenlet yields to the others until its reply comes."""
        waiter = Waiter(scheduler, greenlet.getcurrent())
        self._pending.expect(correlation_id, waiter)
        self._connection.send(frame)
        reply = scheduler.wait(waiter, seconds)
        assert isinstance(reply, Message)
        return reply

    def _block(self, correlation_id: str, frame: bytes, seconds: float) -> Message:
        """For a handler that calls its context from a thread of its own: block that thread."""
        sink: queue.SimpleQueue[Message | BaseException] = queue.SimpleQueue()
        self._pending.expect(correlation_id, sink)
        self._connection.send(frame)
        try:
            reply = sink.get(timeout=seconds)
        except queue.Empty:
            raise TimeoutError from None
        if isinstance(reply, BaseException):
            raise reply
        return reply
