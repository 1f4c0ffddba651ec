"""HTTP connections whose every request ends by one deadline, and that recognise a ZeroMQ endpoint at once.

``http.client``'s timeout bounds each socket operation, not a request: a server that
sends its headers and then one byte every few seconds keeps a request alive for
hours. Here each request gets a :class:`Deadline`, and every socket operation of the
connection (connecting, the TLS handshake, sending, each read) may only use the time
that is left of it, so no server can hold a request past its deadline, however it
paces its bytes.

A Sawtooth validator's component endpoint (port 4004) is one port away from the REST
API (8008) and easy to mistake for it. It speaks ZeroMQ (ZMTP), whose peers greet
first: ten bytes, ``0xFF``, eight more, ``0x7F``, then silence while it waits for a
ZeroMQ greeting that an HTTP client never sends. An HTTP answer starts with
``HTTP/``, so the first byte of an answer tells them apart: a greeting raises
:class:`ZeroMQEndpoint` at once instead of a time-out 30 s later.
"""

from __future__ import annotations

import http.client
import math
import socket
import ssl
import time
from typing import Any

ZMTP_SIGNATURE_LENGTH = 10
ZMTP_FIRST = 0xFF
ZMTP_LAST = 0x7F


class ZeroMQEndpoint(Exception):
    """The server greeted with ZeroMQ's signature: it is a ZeroMQ endpoint, not an HTTP server."""


class Deadline:
    """When the request in progress must be over; shared by a connection and the sockets it opens."""

    def __init__(self) -> None:
        self.seconds = math.inf
        self._at = math.inf
        self.received = 0

    def start(self, seconds: float) -> None:
        """A new request begins, with ``seconds`` for everything: connecting, sending and the whole answer."""
        self.seconds = seconds
        self._at = time.monotonic() + seconds
        self.received = 0

    def remaining(self) -> float:
        """The time left, for one socket operation; ``TimeoutError`` once it has run out."""
        left = self._at - time.monotonic()
        if left <= 0:
            raise TimeoutError(f"the request's {self.seconds:g} s ran out")
        return left


class _DeadlineSocketMixin:
    """Socket operations bounded by what is left of the request's deadline (see the module's docstring)."""

    deadline: Deadline | None = None
    _greeted = False

    def sendall(self, data: Any, *args: Any) -> None:
        self._arm()
        super().sendall(data, *args)  # type: ignore[misc]

    def recv(self, *args: Any) -> bytes:
        self._arm()
        data: bytes = super().recv(*args)  # type: ignore[misc]
        self._count(len(data))
        return data

    def recv_into(self, buffer: Any, *args: Any) -> int:
        self._arm()
        count: int = super().recv_into(buffer, *args)  # type: ignore[misc]
        if count and not self._greeted:
            self._greeted = True
            if buffer[0] == ZMTP_FIRST:
                self._refuse_non_http(bytes(buffer[:count]))
        self._count(count)
        return count

    def _arm(self) -> None:
        if self.deadline is not None:
            self.settimeout(self.deadline.remaining())  # type: ignore[attr-defined]

    def _count(self, count: int) -> None:
        if self.deadline is not None:
            self.deadline.received += count

    def _refuse_non_http(self, start: bytes) -> None:
        """The answer's first byte is 0xFF, which no HTTP answer starts with: is it ZeroMQ's greeting?"""
        data = start
        while len(data) < ZMTP_SIGNATURE_LENGTH:
            self._arm()
            more: bytes = super().recv(ZMTP_SIGNATURE_LENGTH - len(data))  # type: ignore[misc]
            if not more:
                break
            data += more
        if len(data) >= ZMTP_SIGNATURE_LENGTH and data[ZMTP_SIGNATURE_LENGTH - 1] == ZMTP_LAST:
            raise ZeroMQEndpoint("the server greeted with ZeroMQ's signature")
        raise http.client.BadStatusLine(repr(data))


class _DeadlineSocket(_DeadlineSocketMixin, socket.socket):
    pass


class _DeadlineSSLSocket(_DeadlineSocketMixin, ssl.SSLSocket):
    pass


class _DeadlineConnectionMixin:
    """Opens its socket within the deadline, as a socket that keeps to it."""

    deadline: Deadline

    def _open(self, address: tuple[str, int], _timeout: object = None, source: Any = None) -> socket.socket:
        plain = socket.create_connection(address, self.deadline.remaining(), source)
        sock = _DeadlineSocket(plain.family, plain.type, plain.proto, fileno=plain.detach())
        sock.settimeout(self.deadline.remaining())
        sock.deadline = self.deadline
        return sock

    def connect(self) -> None:
        super().connect()  # type: ignore[misc]
        self.sock.deadline = self.deadline  # type: ignore[attr-defined]


class HttpConnection(_DeadlineConnectionMixin, http.client.HTTPConnection):
    """``http.client.HTTPConnection`` whose requests keep to ``deadline``."""

    def __init__(self, host: str, port: int | None, deadline: Deadline) -> None:
        super().__init__(host, port)
        self.deadline = deadline
        self._create_connection = self._open


class HttpsConnection(_DeadlineConnectionMixin, http.client.HTTPSConnection):
    """``http.client.HTTPSConnection`` (certificates checked as usual) whose requests keep to ``deadline``."""

    def __init__(self, host: str, port: int | None, deadline: Deadline) -> None:
        context = ssl.create_default_context()
        context.sslsocket_class = _DeadlineSSLSocket
        super().__init__(host, port, context=context)
        self.deadline = deadline
        self._create_connection = self._open
