"""The component endpoint's transport: a ZMQ ROUTER carrying Sawtooth ``Message`` envelopes.

Each processor (or event client) connects a DEALER; the ROUTER names it by its
identity frame. The socket is driven from the asyncio loop through its file
descriptor, draining the ready messages per wake-up (ZMQ's descriptor is
edge-triggered, so after any send a drain is re-armed too), at most ``_DRAIN_BUDGET``
of them or ``_DRAIN_SECONDS`` of handling, whichever comes first, before the loop
serves everything else once: a burst of requests (a few hundred subscribes, say)
never holds up REST requests for its whole length. Sends never block: a
peer that is gone or not reading is reported to the caller instead. Event deliveries
are sent tracked (``send_tracked``): ZMQ tells when it has handed a frame to the
network, which is how a subscriber that stops reading is noticed long before the
socket's own queue to it (``_SEND_HIGH_WATER_MARK`` frames) would fill.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable

import zmq

from xo_core.log_limits import LogLimiter
from xo_core.protobuf.validator_pb2 import Message

LOG = logging.getLogger(__name__)
_DRAIN_BUDGET = 256
_DRAIN_SECONDS = 0.005
_SEND_HIGH_WATER_MARK = 100_000

MessageHandler = Callable[[bytes, Message], None]


class ComponentSocket:
    """A bound ROUTER that hands decoded messages to ``on_message`` on the event loop."""

    def __init__(self, on_message: MessageHandler) -> None:
        self._on_message = on_message
        self._context = zmq.Context()
        self._socket = self._context.socket(zmq.ROUTER)
        self._socket.setsockopt(zmq.LINGER, 0)
        self._socket.setsockopt(zmq.ROUTER_MANDATORY, 1)
        self._socket.setsockopt(zmq.SNDHWM, _SEND_HIGH_WATER_MARK)
        self._socket.setsockopt(zmq.RCVHWM, _SEND_HIGH_WATER_MARK)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._drain_scheduled = False
        self._log_limiter = LogLimiter()
        """Any peer can send garbage over and over: one line per interval, and the count."""
        self.endpoint = ""

    def bind(self, endpoint: str) -> str:
        """Bind and start reading; returns the endpoint actually bound (port 0 resolved)."""
        self._socket.bind(endpoint)
        self.endpoint = self._socket.getsockopt_string(zmq.LAST_ENDPOINT)
        self._loop = asyncio.get_running_loop()
        self._loop.add_reader(self._socket.getsockopt(zmq.FD), self._drain)
        self._schedule_drain()
        return self.endpoint

    def send(self, identity: bytes, message_type: int, content: bytes, correlation_id: str) -> bool:
        """Queue a message to a peer; False if the peer is unknown or not keeping up."""
        data = Message(message_type=message_type, correlation_id=correlation_id, content=content).SerializeToString()
        try:
            self._socket.send_multipart((identity, data), flags=zmq.NOBLOCK)
        except zmq.ZMQError as error:
            LOG.debug("cannot send to processor %s: %s", identity.hex(), error)
            return False
        finally:
            self._schedule_drain()
        return True

    def send_tracked(
        self, identity: bytes, message_type: int, content: bytes, correlation_id: str
    ) -> zmq.MessageTracker | None:
        """Like ``send``, but the tracker says when ZMQ has passed the frame on; None if it cannot be sent."""
        data = Message(message_type=message_type, correlation_id=correlation_id, content=content).SerializeToString()
        try:
            return self._socket.send_multipart(
                (identity, zmq.Frame(data, track=True)), flags=zmq.NOBLOCK, copy=False, track=True
            )
        except zmq.ZMQError as error:
            LOG.debug("cannot send to %s: %s", identity.hex(), error)
            return None
        finally:
            self._schedule_drain()

    def close(self) -> None:
        self._log_limiter.flush()
        if self._loop is not None and not self._socket.closed:
            self._loop.remove_reader(self._socket.getsockopt(zmq.FD))
        self._socket.close(linger=0)
        self._context.term()

    def _schedule_drain(self) -> None:
        if not self._drain_scheduled and self._loop is not None:
            self._drain_scheduled = True
            self._loop.call_soon(self._drain)

    def _drain(self) -> None:
        self._drain_scheduled = False
        if self._socket.closed:
            return
        ends = time.monotonic() + _DRAIN_SECONDS
        for _ in range(_DRAIN_BUDGET):
            if time.monotonic() > ends:
                break
            try:
                frames = self._socket.recv_multipart(flags=zmq.NOBLOCK)
            except zmq.Again:
                return
            except zmq.ZMQError as error:
                LOG.warning("component socket receive failed: %s", error)
                return
            self._deliver(frames)
        self._schedule_drain()

    def _deliver(self, frames: list[bytes]) -> None:
        if len(frames) < 2:
            return
        try:
            message = Message.FromString(frames[-1])
        except Exception:  # protobuf's DecodeError; a peer's garbage must never stop the endpoint
            self._log_limiter.log(LOG, "undecodable", logging.WARNING, "ignoring an undecodable message from %s",
                                  frames[0].hex())
            return
        try:
            self._on_message(frames[0], message)
        except Exception as error:
            self._log_limiter.log(
                LOG, "failed", logging.ERROR, "failed to handle message type %s from %s", message.message_type,
                frames[0].hex(), exc_info=error,
            )  # fmt: skip
