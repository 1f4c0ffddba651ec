"""What the HTTP layer logs about what clients do: client mistakes at INFO, and nothing a client can flood.

Below the routes, aiohttp logs every request it cannot parse (``HTTP/9.9``, a request
line over the limit, a broken header) at ERROR with a traceback, and asyncio logs every
failed ``accept()`` when the process runs out of file descriptors, again at ERROR with a
traceback, hundreds of times a second while a flood of connections lasts. Both are
routed here: a malformed request is the client's mistake, one INFO line without a
traceback; running out of descriptors is the operator's concern, a WARNING; anything
else stays an ERROR with its traceback. All of it goes through the app's
``LogLimiter``, so a repeated condition is one line per interval with a count.
"""

from __future__ import annotations

import asyncio
import errno
import logging
import sys
from collections.abc import Callable
from typing import Any

from aiohttp.http_exceptions import HttpProcessingError

from xo_core.log_limits import LogLimiter

LOGGER = logging.getLogger(__name__)
"""Where client mistakes and running out of descriptors are written (shown with ``xo-devnet -v``)."""
_ACCEPT_FAILED = "socket.accept() out of system resource"
"""asyncio's message when ``accept()`` fails for want of descriptors, buffers or memory."""
_OUT_OF_RESOURCES = {errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM}
_MAX_DETAIL = 200

ExceptionHandler = Callable[[asyncio.AbstractEventLoop, dict[str, Any]], object]


class RequestLogger(logging.LoggerAdapter):
    """The logger aiohttp's request handlers write to (``AppRunner(logger=...)``), sorting what they report."""

    def __init__(self, logger: logging.Logger, limiter: LogLimiter) -> None:
        super().__init__(logger, {})
        self._limiter = limiter

    def exception(self, msg: object, *args: object, exc_info: object = True, **kwargs: object) -> None:
        """aiohttp reports malformed requests and handler faults alike through ``exception``."""
        error = exc_info if isinstance(exc_info, BaseException) else sys.exc_info()[1]
        if isinstance(error, HttpProcessingError):
            # aiohttp says "Error handling request from %s" with the peer's address as the one argument.
            peer = f" from {args[0]}" if args else ""
            detail = " ".join(str(error.message).split())[:_MAX_DETAIL]
            self._limiter.log(
                LOGGER,
                "malformed-request",
                logging.INFO,
                "refused a malformed HTTP request%s: %s %s",
                peer,
                error.code,
                detail,
            )
        else:
            text = str(msg) % args if args else str(msg)
            self._limiter.log(self.logger, ("request-fault", str(msg)), logging.ERROR, "%s", text, exc_info=error)


def install_accept_error_handler(loop: asyncio.AbstractEventLoop, limiter: LogLimiter) -> Callable[[], None]:
    """Route the loop's failed ``accept()`` reports through ``limiter``; returns what restores the previous handler."""
    previous = loop.get_exception_handler()

    def handle(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        error = context.get("exception")
        if (
            context.get("message") == _ACCEPT_FAILED
            and isinstance(error, OSError)
            and error.errno in _OUT_OF_RESOURCES
        ):
            limiter.log(
                LOGGER,
                "accept-failed",
                logging.WARNING,
                "cannot accept new connections: %s (too many open connections or files; new clients wait until"
                " some close)",
                error.strerror or error,
            )
        elif previous is not None:
            previous(loop, context)
        else:
            loop.default_exception_handler(context)

    loop.set_exception_handler(handle)
    return lambda: loop.set_exception_handler(previous)
