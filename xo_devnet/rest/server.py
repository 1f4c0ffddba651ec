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
    runner = web.AppRunner(build_app(ledger), access_log=None, shutdown_timeout=SHUTDOWN_GRACE_SECONDS)
    await runner.setup()
    site = web.TCPSite(runner, host, port)
    try:
        await site.start()
    except BaseException:
        await runner.cleanup()
        raise
    return RestServer(runner, host, runner.addresses[0][1])
