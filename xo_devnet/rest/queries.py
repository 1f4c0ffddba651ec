"""Reading ids, addresses, ``wait``, the declared Content-Type and bodies from requests, with Sawtooth's error
codes when they are malformed.

Every value from a client is checked here, before it reaches the ledger, so the
ledger only ever sees well-formed ids and addresses.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping

from aiohttp import hdrs, web

from xo_devnet.rest.errors import ApiError
from xo_devnet.validation import MAX_BODY_BYTES

MAX_WAIT_SECONDS = 300.0
"""Longest a ``wait`` may hold a request open, the Sawtooth REST API's own request timeout."""

DEFAULT_WAIT_SECONDS = 285.0
"""``wait`` given without a number (``wait``, ``wait=true``) waits this long: 95% of the timeout, as Sawtooth does."""

_RESOURCE_ID = re.compile(r"[0-9a-f]{128}")
_ADDRESS = re.compile(r"[0-9a-f]{70}")
_ADDRESS_PREFIX = re.compile(r"(?:[0-9a-f]{2}){0,35}")


def resource_id(text: str) -> str:
    """A block, batch or transaction id (128 lowercase hex), else error 60."""
    if not _RESOURCE_ID.fullmatch(text):
        raise ApiError(60, text)
    return text


def id_query(query: Mapping[str, str], missing_code: int) -> list[str]:
    """The comma-separated ``id`` query parameter; absent or empty is ``missing_code``."""
    text = query.get("id")
    if not text:
        raise ApiError(missing_code)
    return [resource_id(identifier) for identifier in text.split(",")]


def optional_id_filter(query: Mapping[str, str]) -> list[str] | None:
    """The ``id`` filter of a list route, or None when the request does not filter."""
    text = query.get("id")
    if text is None:
        return None
    return [resource_id(identifier) for identifier in text.split(",")]


def declared_media_type(request: web.Request) -> str:
    """The media type the client's own Content-Type header names: lowercased, parameters dropped, "" if none.

    Read from the raw header because aiohttp's ``content_type`` reports
    application/octet-stream for a missing or empty header, which would let a request
    that declares nothing pass for a BatchList.
    """
    return request.headers.get(hdrs.CONTENT_TYPE, "").split(";", 1)[0].strip().lower()


async def bounded_body(request: web.Request, code: int, detail: str) -> bytes:
    """The whole body, or error ``code`` (with ``detail``) when it is over MAX_BODY_BYTES.

    aiohttp refuses such a body with a plain-text 413 of its own; Sawtooth clients
    expect an error body they can read. A declared length is refused before reading;
    a chunked body is refused once it grows past the limit.
    """
    if request.content_length is not None and request.content_length > MAX_BODY_BYTES:
        raise ApiError(code, detail)
    try:
        return await request.read()
    except web.HTTPRequestEntityTooLarge:
        raise ApiError(code, detail) from None


async def json_id_list(request: web.Request, wrong_type_code: int, bad_body_code: int) -> list[str]:
    """The JSON array of ids a POST body must hold; the content type must say JSON.

    Any body that does not decode to that array is ``bad_body_code``: not JSON, not
    UTF-8, nested too deep for the decoder (RecursionError), or over MAX_BODY_BYTES.
    """
    if declared_media_type(request) != "application/json":
        raise ApiError(wrong_type_code)
    body = await bounded_body(request, bad_body_code, f" This body is larger than the {MAX_BODY_BYTES} bytes allowed.")
    try:
        ids = json.loads(body)
    except (ValueError, UnicodeDecodeError, RecursionError):
        raise ApiError(bad_body_code) from None
    if not ids or not isinstance(ids, list) or not all(isinstance(identifier, str) for identifier in ids):
        raise ApiError(bad_body_code)
    return [resource_id(identifier) for identifier in ids]


def state_address(text: str) -> str:
    """A full state address (70 lowercase hex), else error 62."""
    if not _ADDRESS.fullmatch(text):
        raise ApiError(62)
    return text


def address_prefix(text: str) -> str:
    """A state address prefix: whole bytes of lowercase hex, at most a full address."""
    if not _ADDRESS_PREFIX.fullmatch(text):
        raise ApiError(
            62,
            message="The 'address' query parameter must be a state address prefix: "
            "an even number of lowercase hex characters, at most 70.",
        )
    return text


def wait_seconds(query: Mapping[str, str]) -> float | None:
    """How long ``wait`` asks to block, or None for no waiting; bounded to [0, MAX_WAIT_SECONDS]."""
    text = query.get("wait")
    if text is None or text.lower() == "false":
        return None
    try:
        seconds = float(text)
    except ValueError:
        return DEFAULT_WAIT_SECONDS
    if math.isnan(seconds):
        return DEFAULT_WAIT_SECONDS
    return min(max(seconds, 0.0), MAX_WAIT_SECONDS)
