"""The REST API's listening sockets, bound before the HTTP server that serves them is even imported.

``xo-devnet`` binds its REST address first thing, so that a port in use is reported
(one line, exit status 1) before any processor has started, and imports the HTTP server
(aiohttp, the slowest import of the program) only once its processors are starting,
so that the two overlap. The sockets are bound as asyncio's ``create_server`` binds a
host and port: one per address the host resolves to, ``SO_REUSEADDR``, IPv6 sockets
IPv6-only, listening and non-blocking. The MQTT broker's sockets are bound the same way
(``xo_devnet.broker_process``), with a backlog of their own.
"""

from __future__ import annotations

import socket

BACKLOG = 128
"""Connections the kernel queues before the server accepts them (aiohttp's default)."""


def bind_listeners(host: str, port: int, backlog: int = BACKLOG) -> list[socket.socket]:
    """Listening sockets for every address of ``host`` at ``port`` (0: a free port); OSError if one cannot be bound."""
    found = socket.getaddrinfo(host or None, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    listeners: list[socket.socket] = []
    try:
        for family, kind, protocol, _, address in dict.fromkeys(found):
            listener = socket.socket(family, kind, protocol)
            listeners.append(listener)
            listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            if family == socket.AF_INET6:
                listener.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
            listener.bind(address)
            listener.listen(backlog)
            listener.setblocking(False)
    except OSError:
        for listener in listeners:
            listener.close()
        raise
    return listeners
