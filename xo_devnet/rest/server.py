"""Serving the REST API on a TCP address, and learning the port really bound (``:0`` picks a free one)."""

from __future__ import annotations

from dataclasses import dataclass

from aiohttp import web

from xo_devnet.ledger import Ledger
from xo_devnet.rest.accepted import AcceptedBatches
from xo_devnet.rest.app import build_app
from xo_devnet.rest.keys import ACCEPTED

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


async def start_rest_server(ledger: Ledger, host: str, port: int) -> RestServer:
    """Bind and start serving; raises OSError if the address cannot be bound."""
    runner = web.AppRunner(
        build_app(ledger),
        access_log=None,
        shutdown_timeout=SHUTDOWN_GRACE_SECONDS,
        max_line_size=MAX_REQUEST_LINE_BYTES,
    )
    await runner.setup()
    site = web.TCPSite(runner, host, port)
    try:
        await site.start()
    except BaseException:
        await runner.cleanup()
        raise
    return RestServer(runner, host, runner.addresses[0][1])
