"""One DEALER socket to the validator, shared by the handler thread, which reads it, and the event loop.

ZeroMQ sockets are not thread-safe, so every use of the socket holds one lock. The
catch is ZeroMQ's edge-triggered notification descriptor: any call on the socket may
consume the signal that a message has arrived, so a thread other than the reader
looks at ``EVENTS`` after sending and tells the reader if input is waiting.
"""

import contextlib
import threading
from collections.abc import Callable

import zmq
from zmq.utils.monitor import parse_monitor_message

from tp_runtime.errors import ValidatorConnectionLost

# ZeroMQ retries the TCP connection by itself: quickly at first, then backing off.
RECONNECT_FIRST_MS = 100
RECONNECT_MAX_MS = 2000
KEEPALIVE_IDLE_S = 30
KEEPALIVE_INTERVAL_S = 10
KEEPALIVE_PROBES = 3
MONITORED_EVENTS = zmq.EVENT_HANDSHAKE_SUCCEEDED | zmq.EVENT_DISCONNECTED
# Frames waiting to be sent, per transaction slot: its request or its response, and as much again for a
# validator that hands out more work than it registered for. The spare covers pings and registrations.
SEND_QUEUE_PER_SLOT = 4
SEND_QUEUE_SPARE = 1000
# Enough to drain a burst in one go without starving the reader's other work.
MAX_BATCH = 256
# Plain ints: pyzmq's enum wrappers cost microseconds per call on the hot path.
_EVENTS = int(zmq.EVENTS)
_POLLIN = int(zmq.POLLIN)
_NOBLOCK = int(zmq.NOBLOCK)


def send_queue_limit(max_occupancy: int) -> int:
    """How many frames may wait for the validator before the connection counts as lost.

    A transaction has at most one frame on its way at a time (a request it waits on, or its
    response), so a validator that reads at all never gets near this; one that stops
    reading reaches it, and only then is the session given up.
    """
    return SEND_QUEUE_PER_SLOT * max_occupancy + SEND_QUEUE_SPARE


class ValidatorConnection:
    """A connected (or connecting) DEALER socket plus a monitor that reports its TCP peer coming and going.

    ``fd`` is readable when the socket may have input (then check :meth:`receive`).

    A new connection is made after every loss so that nothing queued for the old
    validator session (a late response, a stale request) reaches the new one.

    ``on_lost`` is called (from the sending thread, outside the lock) when a send finds
    the queue full: a frame was dropped, so the session must end for the validator to
    notice and resend what it has not been answered.
    """

    def __init__(self, context: zmq.Context, url: str, *, send_queue: int, on_lost: Callable[[], None]) -> None:
        self.url = url
        self.closed = False
        self._on_lost = on_lost
        self._reader: int | None = None
        self._on_input: Callable[[], None] | None = None
        self._lock = threading.Lock()
        self._socket = context.socket(zmq.DEALER)
        self._socket.setsockopt(zmq.LINGER, 0)
        self._socket.setsockopt(zmq.SNDHWM, send_queue)
        self._socket.setsockopt(zmq.RECONNECT_IVL, RECONNECT_FIRST_MS)
        self._socket.setsockopt(zmq.RECONNECT_IVL_MAX, RECONNECT_MAX_MS)
        # a validator host that vanishes without closing the TCP connection is noticed within about a minute
        self._socket.setsockopt(zmq.TCP_KEEPALIVE, 1)
        self._socket.setsockopt(zmq.TCP_KEEPALIVE_IDLE, KEEPALIVE_IDLE_S)
        self._socket.setsockopt(zmq.TCP_KEEPALIVE_INTVL, KEEPALIVE_INTERVAL_S)
        self._socket.setsockopt(zmq.TCP_KEEPALIVE_CNT, KEEPALIVE_PROBES)
        self._monitor: zmq.Socket | None = self._socket.get_monitor_socket(MONITORED_EVENTS)
        self.fd: int = self._socket.getsockopt(zmq.FD)
        try:
            self._socket.connect(url)
        except zmq.ZMQError:
            self.close()
            raise

    def set_reader(self, on_input: Callable[[], None]) -> None:
        """Declare the calling thread the reader; ``on_input`` wakes it when another thread's send finds input."""
        self._on_input = on_input
        self._reader = threading.get_ident()

    @property
    def monitor_fd(self) -> int:
        """Readable when the monitor may have events: check :meth:`monitor_events`."""
        assert self._monitor is not None
        return self._monitor.getsockopt(zmq.FD)

    def send(self, frame: bytes) -> None:
        """Queue one frame for the validator, from any thread.

        Raises :class:`ValidatorConnectionLost` once the connection is closed, and when
        ZeroMQ's queue is full: the validator stopped reading, and a frame it will never
        get would leave a transaction unanswered on a session that looks alive. So a
        full queue closes the connection and reports it through ``on_lost``.
        """
        input_waiting = 0
        full = False
        with self._lock:
            if self.closed:
                raise ValidatorConnectionLost(f"connection to {self.url} is closed")
            try:
                self._socket.send(frame, _NOBLOCK)
            except zmq.Again:
                self.closed = full = True
            else:
                if threading.get_ident() != self._reader:
                    input_waiting = self._socket.getsockopt(_EVENTS) & _POLLIN
        if full:
            self._on_lost()
            raise ValidatorConnectionLost(f"the validator at {self.url} stopped reading its messages")
        if input_waiting and self._on_input is not None:
            self._on_input()

    def receive(self) -> list[bytes]:
        """Take the frames that have arrived, at most :data:`MAX_BATCH`."""
        frames: list[bytes] = []
        with self._lock:
            if self.closed:
                return frames
            socket = self._socket
            # receiving until "no more" costs one exception per batch; asking ZeroMQ first costs a call per frame
            with contextlib.suppress(zmq.Again):
                while len(frames) < MAX_BATCH:
                    frames.append(socket.recv(_NOBLOCK))
        return frames

    def monitor_events(self) -> list[int]:
        """Take the monitor's pending events (ZeroMQ event numbers); for the event loop only."""
        events: list[int] = []
        with self._lock:
            monitor = self._monitor
            while monitor is not None and monitor.getsockopt(_EVENTS) & _POLLIN:
                events.append(parse_monitor_message(monitor.recv_multipart(_NOBLOCK))["event"])
        return events

    def stop_monitor(self) -> None:
        """Close the monitor; for the event loop, which alone reads it."""
        with self._lock:
            monitor, self._monitor = self._monitor, None
            if monitor is None:
                return
            if not self._socket.closed:
                self._socket.disable_monitor()
            monitor.close(linger=0)

    def mark_lost(self) -> None:
        """Refuse further sends at once; the reader closes the socket when it lets go of it."""
        with self._lock:
            self.closed = True

    def close(self) -> None:
        """Drop the socket and whatever it still queues; closing twice is harmless."""
        with self._lock:
            self.closed = True
            if self._socket.closed:
                return
            if self._monitor is not None:
                self._socket.disable_monitor()
                self._monitor.close(linger=0)
                self._monitor = None
            self._socket.close(linger=0)
