"""The ``link`` and ``paging.next`` URLs, built the way the Sawtooth REST API builds them.

A link repeats the request's own query with some parameters overridden, ``head``
first, then ``start`` and ``limit``, then the rest sorted, so that a client can
follow it and get the same page again even after new blocks arrive. Behind a proxy
the ``Forwarded`` / ``X-Forwarded-*`` headers say which scheme, host and path
prefix the client really used.
"""

from __future__ import annotations

import re
from urllib.parse import quote

from aiohttp import web

_LEADING_KEYS = ("head", "start", "limit")


def build_url(request: web.Request, path: str | None = None, **changes: str | int | None) -> str:
    """The request's URL with ``changes`` applied to its query; a None change keeps the original value."""
    query = {key: request.query[key] for key in request.query}
    query.update({key: str(value) for key, value in changes.items() if value is not None})
    ordered = [key for key in _LEADING_KEYS if key in query] + sorted(set(query) - set(_LEADING_KEYS))
    parts = [_query_part(key, query[key]) for key in ordered]
    scheme = _forwarded(request, "proto") or request.scheme
    host = _forwarded(request, "host") or request.host
    prefix = _forwarded(request, "path")
    suffix = "?" + "&".join(parts) if parts else ""
    return f"{scheme}://{host}{prefix}{path if path is not None else request.path}{suffix}"


def _query_part(key: str, value: str) -> str:
    name = quote(key, safe="")
    return f"{name}={quote(value, safe=',:')}" if value != "" else name


def _forwarded(request: web.Request, key: str) -> str:
    match = re.search(rf"(?<={key}=)[^\s,;]+", request.headers.get("Forwarded", ""), re.IGNORECASE)
    if match is not None:
        return match.group(0).strip('"')
    return request.headers.get(f"X-Forwarded-{key.title()}", "")
