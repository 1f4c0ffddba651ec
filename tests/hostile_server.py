"""A server that misbehaves on purpose, for the client's hardening tests: every way an answer can go wrong.

``FakeSawtooth`` answers like a REST API, well or badly, but always as a well-formed
HTTP server. This one works below HTTP: each behaviour gets the raw connection,
so a test can drip an answer a byte at a time, stall after the headers, close in
the middle of a body, or greet in ZeroMQ as a validator's component endpoint
does. With ``tls=True`` it speaks HTTPS with the certificate in ``tests/tls`` (for
127.0.0.1, valid until 2126; point ``SSL_CERT_FILE`` at it so clients trust it). It
listens on 127.0.0.1 on a free port; every loop is bounded by ``stop`` and by
``LIMIT_SECONDS``, so a client that does not give up cannot hang a test for longer
than that.
"""

from __future__ import annotations

import socket
import ssl
import threading
import time
from collections.abc import Callable
from pathlib import Path
from types import TracebackType

LIMIT_SECONDS = 5.0
"""The longest any behaviour keeps a connection going: past it a stalled client test fails, it does not hang."""
ZMTP_GREETING = b"\xff\x00\x00\x00\x00\x00\x00\x00\x01\x7f"
TLS_DIR = Path(__file__).parent / "tls"
TLS_CERTIFICATE = TLS_DIR / "localhost-cert.pem"

Behaviour = Callable[[socket.socket, threading.Event], None]


class HostileServer:
    """Runs ``behaviour(connection, stop)`` for each connection, in a thread of its own."""

    def __init__(self, behaviour: Behaviour, *, read_request: bool = True, tls: bool = False) -> None:
        self._behaviour = behaviour
        self._read_request = read_request
        self._tls: ssl.SSLContext | None = None
        if tls:
            self._tls = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            self._tls.load_cert_chain(TLS_CERTIFICATE, TLS_DIR / "localhost-key.pem")
        self._listener = socket.create_server(("127.0.0.1", 0))
        self._listener.settimeout(0.05)
        self.port = self._listener.getsockname()[1]
        self.url = f"{'https' if tls else 'http'}://127.0.0.1:{self.port}"
        self.connections = 0
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []
        self._acceptor = threading.Thread(target=self._accept, daemon=True)

    def __enter__(self) -> HostileServer:
        self._acceptor.start()
        return self

    def __exit__(self, *_exc: type[BaseException] | BaseException | TracebackType | None) -> None:
        self._stop.set()
        self._acceptor.join(timeout=LIMIT_SECONDS)
        for thread in self._threads:
            thread.join(timeout=LIMIT_SECONDS)
        self._listener.close()

    def _accept(self) -> None:
        while not self._stop.is_set():
            try:
                connection, _ = self._listener.accept()
            except TimeoutError:
                continue
            self.connections += 1
            thread = threading.Thread(target=self._serve, args=(connection,), daemon=True)
            self._threads.append(thread)
            thread.start()

    def _serve(self, connection: socket.socket) -> None:
        with connection:
            connection.settimeout(LIMIT_SECONDS)
            try:
                if self._tls is not None:
                    connection = self._tls.wrap_socket(connection, server_side=True)
                if self._read_request:
                    read_request(connection)
                self._behaviour(connection, self._stop)
            except OSError:
                pass  # the client gave up and closed: that is what the tests want to see


def read_request(connection: socket.socket) -> bytes:
    """Read up to the end of the request's headers (the client's requests here carry no body that matters)."""
    data = b""
    while b"\r\n\r\n" not in data and len(data) < 65536:
        chunk = connection.recv(4096)
        if not chunk:
            break
        data += chunk
    return data


def answer(body: bytes, status: str = "200 OK", content_type: str = "application/json") -> Behaviour:
    """A complete, well-formed HTTP answer with ``body``: for answers whose content is the problem."""

    def behave(connection: socket.socket, _stop: threading.Event) -> None:
        head = f"HTTP/1.1 {status}\r\nContent-Type: {content_type}\r\nContent-Length: {len(body)}\r\n\r\n"
        connection.sendall(head.encode() + body)
        read_request(connection)  # keep the connection open until the client is done with it

    return behave


def drip(head: bytes, every: float = 0.05) -> Behaviour:
    """Send ``head`` (a status line and headers, or part of them), then one more byte every ``every`` seconds."""

    def behave(connection: socket.socket, stop: threading.Event) -> None:
        connection.sendall(head)
        until = time.monotonic() + LIMIT_SECONDS
        while not stop.is_set() and time.monotonic() < until:
            connection.sendall(b"x")
            time.sleep(every)

    return behave


def close_after(data: bytes) -> Behaviour:
    """Send ``data`` (an answer cut short) and close the connection."""

    def behave(connection: socket.socket, _stop: threading.Event) -> None:
        connection.sendall(data)

    return behave


def greet_like_zeromq(connection: socket.socket, stop: threading.Event) -> None:
    """What a ZeroMQ ROUTER socket (a validator's component endpoint) does: greet, then wait for a greeting back."""
    connection.sendall(ZMTP_GREETING)
    until = time.monotonic() + LIMIT_SECONDS
    connection.settimeout(0.05)
    while not stop.is_set() and time.monotonic() < until:
        try:
            if not connection.recv(4096):
                return
        except TimeoutError:
            continue
