"""GET /status and GET /peers: a devnet is one node, so it has no peers and no peering endpoint.

/status adds ``processors``, the transaction families registered right now, so a
script can tell that the devnet is able to execute its transactions, and ``failure``:
why the ledger cannot produce blocks now (null while it can).
"""

from __future__ import annotations

from aiohttp import web

from xo_devnet.rest.keys import LEDGER
from xo_devnet.rest.responses import json_response
from xo_devnet.rest.urls import build_url


async def get_status(request: web.Request) -> web.Response:
    ledger = request.app[LEDGER]
    processors = [{"family": family, "version": version} for family, version in ledger.processors()]
    data = {"endpoint": "", "peers": [], "processors": processors, "failure": ledger.failure}
    return json_response({"data": data, "link": build_url(request)})


async def get_peers(request: web.Request) -> web.Response:
    return json_response({"data": [], "link": build_url(request)})
