"""Serving the REST API on a TCP address, and learning the port really bound (``:0`` picks a free one)."""

from __future__ import annotations

import asyncio
import logging
import socket
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from aiohttp import web

from xo_core.log_limits import LogLimiter
from xo_core.server_logs import RequestLogger, install_accept_error_handler
from xo_core.signing import Signer
from xo_devnet.ledger import Ledger
from xo_devnet.rest.accepted import AcceptedBatches
from xo_devnet.rest.app import build_app
from xo_devnet.rest.keys import ACCEPTED, LOG_LIMITER

SHUTDOWN_GRACE_SECONDS = 2.0
"""How long open requests (a long ``wait`` on batch statuses) may finish when the server stops."""

MAX_REQUEST_LINE_BYTES = 2 * 1024 * 1024
"""Longest request line served (aiohttp's default is 8190 bytes, about 63 ids).

The 202 of POST /batches links to ``/batch_statuses?id=`` with every batch id of the
BatchList, and clients follow that link. A valid batch takes more than 700 bytes, so
a 10 MiB BatchList holds fewer than 15,000 batches, whose ids fit in 2 MiB. Longer
request lines get aiohttp's own plain-text 400; POST is the way to ask about more ids.
"""


@dataclass
class RestServer:
    """A running REST API; ``url`` carries the bound port."""

    runner: web.AppRunner
    host: str
    port: int
    restore_exception_handler: Callable[[], None]

    @property
    def log_limiter(self) -> LogLimiter:
        """What keeps client-caused log lines (malformed requests, failed accepts, faults) from flooding the log."""
        return self.runner.app[LOG_LIMITER]

    @property
    def accepted(self) -> AcceptedBatches:
        """The batches this server answered 202 for that may still be pending."""
        return self.runner.app[ACCEPTED]

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}"

    async def stop(self) -> None:
        await self.runner.cleanup()
        self.log_limiter.flush()
        self.restore_exception_handler()


async def start_rest_server(
    ledger: Ledger, host: str, port: int, *, listeners: Sequence[socket.socket] = (), issuer: Signer | None = None
) -> RestServer:
    """Bind and start serving; raises OSError if the address cannot be bound.

    ``listeners`` are sockets already bound to ``host`` and ``port`` (see
    ``listeners.bind_listeners``), served as they are instead of binding anew.

    What clients can make the HTTP layer log (malformed requests, failed accepts when
    descriptors run out) goes through the app's ``LogLimiter`` (see ``server_logs``);
    this installs the loop's exception handler for that until ``stop``. ``issuer`` signs the faucet's issues.
    """
    app = build_app(ledger, issuer)
    runner = web.AppRunner(
        app,
        access_log=None,
        shutdown_timeout=SHUTDOWN_GRACE_SECONDS,
        max_line_size=MAX_REQUEST_LINE_BYTES,
        logger=RequestLogger(logging.getLogger("aiohttp.server"), app[LOG_LIMITER]),
    )
    await runner.setup()
    sites = [web.SockSite(runner, listener) for listener in listeners] or [web.TCPSite(runner, host, port)]
    try:
        for site in sites:
            await site.start()
    except BaseException:
        await runner.cleanup()
        raise
    restore = install_accept_error_handler(asyncio.get_running_loop(), app[LOG_LIMITER])
    return RestServer(runner, host, runner.addresses[0][1], restore)
