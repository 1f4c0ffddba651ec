"""Errors the local server answers with: the Sawtooth REST API's body, ``{"error": {"code", "title", "message"}}``.

Every refusal the page can meet, from a missing token to a move the rules forbid,
comes back in this one shape, so the page has one way to show it: the ``message``,
a sentence for a person. Codes are this server's own (the Sawtooth REST API's are
about batches and state); docs/web.md lists them.
"""

from __future__ import annotations

import json
from typing import Final

from aiohttp import web

FORBIDDEN: Final = 10
"""403: a request from anything but this server's own page (no token, another origin)."""
MISDIRECTED: Final = 11
"""421: a ``Host`` this server does not answer to (DNS rebinding)."""
BAD_REQUEST: Final = 20
WRONG_CONTENT_TYPE: Final = 21
NOT_FOUND: Final = 22
METHOD_NOT_ALLOWED: Final = 23
TOO_LARGE: Final = 24
REFUSED: Final = 30
"""409: a move the game does not allow (checked before anything was signed or sent)."""
REJECTED: Final = 31
"""409: a move the validator rejected, with its reason."""
UNAVAILABLE: Final = 40
"""502: the REST API could not be reached or answered in a way the server cannot use."""
BUSY: Final = 50
"""503 or 429: too many pages connected, or too many moves in flight."""
INTERNAL: Final = 70


class ApiError(Exception):
    """A request the server answers with an error body; raised by handlers, turned into a response by middleware."""

    def __init__(self, status: int, code: int, title: str, message: str, headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.title = title
        self.message = message
        self.headers = headers or {}

    def response(self) -> web.Response:
        return error_response(self.status, self.code, self.title, self.message, self.headers)


def error_response(
    status: int, code: int, title: str, message: str, headers: dict[str, str] | None = None
) -> web.Response:
    body = json.dumps({"error": {"code": code, "title": title, "message": message}}, indent=2)
    return web.Response(status=status, text=body, content_type="application/json", headers=headers)


def bad_request(message: str) -> ApiError:
    return ApiError(400, BAD_REQUEST, "Bad Request", message)
