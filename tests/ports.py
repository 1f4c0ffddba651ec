"""Loopback ports a test picks now and listens on (or relies on nobody listening on) later, that nobody takes meanwhile.

A port picked by binding port 0 and closed again is free for anyone: under ``pytest -n 2``
another test's server (which binds port 0 too) or any outgoing connection (whose local port
comes from the same range) may be given it before the test uses it. A port held bound with
SO_REUSEADDR but not listening is neither: Linux gives it to no bind of port 0 and to no
outgoing connection, refuses it to a plain bind, and connecting to it is refused, yet a
server that binds it with SO_REUSEADDR, as ZMQ, asyncio, aiohttp and the ``require_free``
probe of ``xo aries agent`` do, can listen on it at once.
"""

from __future__ import annotations

import contextlib
import socket
from collections.abc import Iterator


@contextlib.contextmanager
def reserved_port(host: str = "127.0.0.1") -> Iterator[int]:
    """A port on ``host`` that nothing listens on and that no other program is given while the block runs."""
    with socket.socket() as holder:
        holder.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        holder.bind((host, 0))
        yield holder.getsockname()[1]
