"""The HTTP server behind a processor's ``/metrics``: prometheus-client's WSGI app, served until closed, at once.

prometheus-client's own ``start_http_server`` runs socketserver's ``serve_forever``, which looks for a
shutdown request only every half second: every processor started with ``--metrics`` took up to that much
longer to stop (xo-devnet's processors too). Here the serving thread waits on the listening socket and on a
wake-up socket together, so a close ends it as soon as the request being accepted, if any, is handed on.
What is served is the library's app, unchanged.
"""

from __future__ import annotations

import selectors
import socket
import threading
from socketserver import ThreadingMixIn
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer

from prometheus_client import CollectorRegistry, make_wsgi_app


class _QuietHandler(WSGIRequestHandler):
    """Logs no line per scrape: Prometheus scrapes every few seconds, and the processor's log is for its work."""

    def log_message(self, format: str, *args: object) -> None:
        """Log nothing."""


class MetricsHTTPServer(ThreadingMixIn, WSGIServer):
    """Answers each scrape on a thread of its own (a slow scraper holds up no other) until :meth:`close`."""

    daemon_threads = True
    timeout = 0  # handle_request() is called only once the socket is readable: it must never wait again

    def __init__(self, host: str, port: int, registry: CollectorRegistry) -> None:
        # IPv6 or IPv4, as the host says (``::1`` cannot be bound by an AF_INET socket)
        self.address_family, _, _, _, bound = socket.getaddrinfo(
            host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
        )[0]
        super().__init__(bound[:2], _QuietHandler)
        self.set_app(make_wsgi_app(registry))
        self._wake_read, self._wake_write = socket.socketpair()
        self._thread = threading.Thread(target=self._serve, name="metrics-http", daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        with selectors.DefaultSelector() as selector:
            selector.register(self, selectors.EVENT_READ)
            selector.register(self._wake_read, selectors.EVENT_READ)
            while True:
                ready = {key.fileobj for key, _ in selector.select()}
                if self._wake_read in ready:
                    return
                self.handle_request()

    def close(self) -> None:
        """Stop accepting, wait for the serving thread and free the port; scrapes being answered finish alone."""
        self._wake_write.send(b"\0")
        self._thread.join()
        self.server_close()
        self._wake_read.close()
        self._wake_write.close()
