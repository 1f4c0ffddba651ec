"""JSON responses written exactly as the Sawtooth REST API writes them.

Sawtooth pretty-prints with two-space indents and sorted keys; matching it byte for
byte lets anything that ever compared or cached Sawtooth answers work unchanged.
"""

from __future__ import annotations

import json
from typing import Any

from aiohttp import web

from xo_devnet.rest.errors import ApiError


def dumps(document: Any) -> str:
    """Serialise as Sawtooth does: two-space indents, sorted keys, no trailing spaces or newline."""
    return json.dumps(document, indent=2, separators=(",", ": "), sort_keys=True)


def json_response(document: Any, status: int = 200) -> web.Response:
    return web.Response(status=status, text=dumps(document), content_type="application/json", charset="utf-8")


def error_response(error: ApiError) -> web.Response:
    return json_response(error.body, status=error.kind.http_status)
