"""GET /state (entries under an address prefix, paged) and GET /state/{address}."""

from __future__ import annotations

from aiohttp import web

from xo_devnet.rest.errors import ApiError
from xo_devnet.rest.keys import LEDGER
from xo_devnet.rest.listing import page_state, resolve_head
from xo_devnet.rest.paging import paged_envelope, paging_controls
from xo_devnet.rest.queries import address_prefix, state_address
from xo_devnet.rest.rendering import b64, block_header
from xo_devnet.rest.responses import json_response
from xo_devnet.rest.urls import build_url

# An unknown head is 50 (Head Not Found) on the chain's routes but 70 (Block Not Found) on the state routes: the
# validator answers a state request for an unknown block with "no resource", which Sawtooth's REST API reports so
# (a Sawtooth 1.0.5 network answers both /state?head= and /state/{address}?head= with 70; scripts/real-sawtooth).
UNKNOWN_STATE_HEAD = 70


async def list_state(request: web.Request) -> web.Response:
    ledger = request.app[LEDGER]
    controls = paging_controls(request.query, sort_key="default")
    prefix = address_prefix(request.query.get("address", ""))
    head, _ = resolve_head(ledger, request.query.get("head"), UNKNOWN_STATE_HEAD)
    page = page_state(ledger, prefix, block_header(head.header).state_root_hash, controls)
    data = [{"address": address, "data": b64(value)} for address, value in page.items]
    return json_response(paged_envelope(request, controls, page, data, head.header_signature))


async def get_state(request: web.Request) -> web.Response:
    ledger = request.app[LEDGER]
    address = state_address(request.match_info["address"])
    head, _ = resolve_head(ledger, request.query.get("head"), UNKNOWN_STATE_HEAD)
    value = ledger.state_get(address, block_header(head.header).state_root_hash)
    if value is None:
        raise ApiError(75)
    return json_response(
        {"data": b64(value), "head": head.header_signature, "link": build_url(request, head=head.header_signature)}
    )
