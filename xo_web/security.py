"""Only this server's own page may use it: the run's token, ``Host`` and ``Origin`` checks, and security headers.

The server signs moves with the player's keys, so any web page the player opens
must not be able to make it sign. Three checks, on every request:

- ``Host`` must name this server as the browser reached it: ``localhost`` or an IP
  address, with the port it listens on. A DNS-rebinding page (``evil.example``
  resolving to 127.0.0.1) sends its own name and is answered 421, for every path,
  the page itself included: it can neither read the page nor its token.
- ``Origin``, when a browser sends one, must be this server's own origin. Browsers
  send it with every POST, so a form or ``fetch`` from another site gets 403; a
  cross-site request that is not a navigation (``Sec-Fetch-Site``) gets 403 too.
- A request that changes anything (any method but GET and HEAD) must carry the
  run's token in the :data:`TOKEN_HEADER` header. The token is random
  (:func:`secrets.token_urlsafe`), made afresh each run, and written only into the
  page this server serves; a custom header also cannot be sent cross-origin
  without a CORS preflight, which this server never grants.

Every answer also carries headers that keep the page to itself
(:data:`SECURITY_HEADERS`): a Content-Security-Policy allowing scripts, styles and
connections to this origin only (no inline script, no framing), ``nosniff`` and no
referrer.
"""

from __future__ import annotations

import ipaddress
import secrets
from collections.abc import Awaitable, Callable
from typing import Final
from urllib.parse import urlsplit

from aiohttp import web

from xo_web.errors import FORBIDDEN, MISDIRECTED, ApiError

TOKEN_HEADER: Final = "X-XO-Token"
SAFE_METHODS: Final = frozenset(("GET", "HEAD"))
HTTP_PORT: Final = 80

CONTENT_SECURITY_POLICY: Final = "; ".join(
    (
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self' data:",
        "connect-src 'self'",
        "object-src 'none'",
        "base-uri 'none'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    )
)
SECURITY_HEADERS: Final = {
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
    "Cross-Origin-Opener-Policy": "same-origin",
    "Cross-Origin-Resource-Policy": "same-origin",
}

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def new_token() -> str:
    """A token for this run: 256 random bits, URL-safe text."""
    return secrets.token_urlsafe(32)


def split_host(value: str) -> tuple[str, int] | None:
    """``host[:port]`` (``[v6]:port`` too) as ``(host, port)``, the port 80 when absent; None if malformed."""
    try:
        parts = urlsplit(f"http://{value}")
        port = parts.port
    except ValueError:
        return None
    host = parts.hostname
    if not host or parts.username is not None or parts.password is not None or parts.path or parts.query:
        return None
    return host, HTTP_PORT if port is None else port


def names_this_machine(host: str) -> bool:
    """``localhost`` or an IP address: names no other site can make a browser send for itself.

    A DNS rebinding attack needs a domain name of the attacker's; an IP address or
    ``localhost`` is what a browser sends when it was pointed at this server itself.
    """
    if host.lower() == "localhost":
        return True
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True


class Guard:
    """The checks of the module's docstring for a server listening on ``port`` with this run's ``token``."""

    def __init__(self, port: int, token: str) -> None:
        self.port = port
        self.token = token

    def host_allowed(self, host_header: str | None) -> bool:
        found = split_host(host_header) if host_header else None
        return found is not None and names_this_machine(found[0]) and found[1] == self.port

    def origin_allowed(self, origin: str) -> bool:
        """The page's own origin: ``http://`` and a host :meth:`host_allowed` accepts."""
        scheme, _, rest = origin.partition("://")
        return scheme == "http" and self.host_allowed(rest)

    def token_matches(self, given: str | None) -> bool:
        return given is not None and secrets.compare_digest(given.encode(), self.token.encode())

    @web.middleware
    async def middleware(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        self.check(request)
        return await handler(request)

    def check(self, request: web.Request) -> None:
        """Raise the :class:`ApiError` that refuses ``request``, if it is not from this server's own page."""
        if not self.host_allowed(request.headers.get("Host")):
            raise ApiError(
                421, MISDIRECTED, "Misdirected Request",
                f"this server answers only to localhost or an IP address on port {self.port}, "
                "not to the host name this request names",
            )  # fmt: skip
        origin = request.headers.get("Origin")
        if request.method not in SAFE_METHODS:
            if origin is None or not self.origin_allowed(origin):
                raise ApiError(403, FORBIDDEN, "Forbidden", "only this server's own page may change anything")
            if not self.token_matches(request.headers.get(TOKEN_HEADER)):
                raise ApiError(
                    403, FORBIDDEN, "Forbidden",
                    f"the request lacks this run's token ({TOKEN_HEADER}): reload the page",
                )  # fmt: skip
            return
        if origin is not None and not self.origin_allowed(origin):
            raise ApiError(403, FORBIDDEN, "Forbidden", "another website may not read from this server")
        site = request.headers.get("Sec-Fetch-Site")
        if site in ("cross-site", "same-site") and request.headers.get("Sec-Fetch-Mode") != "navigate":
            raise ApiError(403, FORBIDDEN, "Forbidden", "another website may not read from this server")


async def add_security_headers(_request: web.Request, response: web.StreamResponse) -> None:
    """``on_response_prepare``: every answer, streams and errors included, gets :data:`SECURITY_HEADERS`."""
    for name, value in SECURITY_HEADERS.items():
        response.headers.setdefault(name, value)
