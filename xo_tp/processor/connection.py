"""One DEALER socket to the validator, shared by the handler thread, which reads it, and the event loop.

ZeroMQ sockets are not thread-safe, so every use of the socket holds one lock. The
catch is ZeroMQ's edge-triggered notification descriptor: any call on the socket may
consume the signal that a message has arrived, so a thread other than the reader
looks at ``EVENTS`` after sending and tells the reader if input is waiting.
"""

import threading
from collections.abc import Callable

import zmq
from zmq.utils.monitor import parse_monitor_message

from xo_tp.processor.errors import ValidatorConnectionLost

# ZeroMQ retries the TCP connection by itself: quickly at first, then backing off.
RECONNECT_FIRST_MS = 100
RECONNECT_MAX_MS = 2000
KEEPALIVE_IDLE_S = 30
KEEPALIVE_INTERVAL_S = 10
KEEPALIVE_PROBES = 3
MONITORED_EVENTS = zmq.EVENT_HANDSHAKE_SUCCEEDED | zmq.EVENT_DISCONNECTED
# Enough to drain a burst in one go without starving the reader's other work.
MAX_BATCH = 256
# Plain ints: pyzmq's enum wrappers cost microseconds per call on the hot path.
_EVENTS = int(zmq.EVENTS)
_POLLIN = int(zmq.POLLIN)
_NOBLOCK = int(zmq.NOBLOCK)


class ValidatorConnection:
    """A connected (or connecting) DEALER socket plus a monitor that reports its TCP peer coming and going.

    ``fd`` is readable when the socket may have input (then check :meth:`receive`).

    A new connection is made after every loss so that nothing queued for the old
    validator session (a late response, a stale request) reaches the new one.
    """

    def __init__(self, context: zmq.Context, url: str) -> None:
        self.url = url
        self.closed = False
        self._reader: int | None = None
        self._on_input: Callable[[], None] | None = None
        self._lock = threading.Lock()
        self._socket = context.socket(zmq.DEALER)
        self._socket.setsockopt(zmq.LINGER, 0)
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

        Raises :class:`ValidatorConnectionLost` once the connection is closed or when
        ZeroMQ's queue is full (the validator stopped reading: it is as good as gone).
        """
        input_waiting = 0
        with self._lock:
            if self.closed:
                raise ValidatorConnectionLost(f"connection to {self.url} is closed")
            try:
                self._socket.send(frame, _NOBLOCK)
            except zmq.Again:
                raise ValidatorConnectionLost(f"validator at {self.url} is not reading its messages") from None
            if threading.get_ident() != self._reader:
                input_waiting = self._socket.getsockopt(_EVENTS) & _POLLIN
        if input_waiting and self._on_input is not None:
            self._on_input()

    def receive(self) -> list[bytes]:
        """Take the frames that have arrived, at most :data:`MAX_BATCH`."""
        frames: list[bytes] = []
        with self._lock:
            if self.closed:
                return frames
            socket = self._socket
            while len(frames) < MAX_BATCH and socket.getsockopt(_EVENTS) & _POLLIN:
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
