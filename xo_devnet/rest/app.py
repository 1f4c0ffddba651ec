"""The aiohttp application: every route of the API, and one place where errors become answers.

Routes raise ApiError and nothing else on bad input; the middleware turns it into
Sawtooth's error body. Anything unexpected is logged with its traceback and answered
as error 10, so one bad request never takes the server down; the log line goes through
the app's ``LogLimiter``, so a client repeating such a request cannot flood the log. A client that hangs up
mid-request is not a fault of ours: like a cancelled request, it is logged at debug
level and gets no answer.
"""

from __future__ import annotations

import asyncio
import logging
import re

from aiohttp import web
from aiohttp.typedefs import Handler

from chips_client.faucet import PATH as FAUCET_PATH
from xo_core.log_limits import LogLimiter
from xo_core.signing import Signer
from xo_devnet.faucet import Faucet
from xo_devnet.ledger import Ledger
from xo_devnet.rest import chain, faucet, metrics, node, openapi, state, submit, subscriptions
from xo_devnet.rest.accepted import AcceptedBatches
from xo_devnet.rest.errors import ApiError
from xo_devnet.rest.keys import ACCEPTED, FAUCET, LEDGER, LOG_LIMITER, METRICS, SUBMISSIONS, WEBSOCKETS
from xo_devnet.rest.responses import error_response
from xo_devnet.rest.submissions import Submissions
from xo_devnet.validation import MAX_BODY_BYTES

LOGGER = logging.getLogger(__name__)

ROUTES: tuple[tuple[str, str, Handler], ...] = (
    ("POST", "/batches", submit.post_batches),
    ("GET", "/batches", chain.list_batches),
    ("GET", "/batches/{batch_id}", chain.get_batch),
    ("GET", "/batch_statuses", submit.get_batch_statuses),
    ("POST", "/batch_statuses", submit.post_batch_statuses),
    ("GET", "/blocks", chain.list_blocks),
    ("GET", "/blocks/{block_id}", chain.get_block),
    ("GET", "/transactions", chain.list_transactions),
    ("GET", "/transactions/{transaction_id}", chain.get_transaction),
    ("GET", "/state", state.list_state),
    ("GET", "/state/{address}", state.get_state),
    ("GET", "/receipts", chain.get_receipts),
    ("POST", "/receipts", chain.post_receipts),
    ("GET", "/status", node.get_status),
    ("GET", "/peers", node.get_peers),
    ("GET", "/subscriptions", subscriptions.subscriptions),
    ("GET", "/metrics", metrics.get_metrics),
    ("GET", "/health", metrics.get_health),
    ("GET", "/openapi.yaml", openapi.get_openapi_yaml),
    ("GET", "/openapi.json", openapi.get_openapi_json),
    ("POST", FAUCET_PATH, faucet.post_faucet),
)
"""(method, path as the OpenAPI document writes it, handler) of every route."""


def build_app(ledger: Ledger, issuer: Signer | None = None) -> web.Application:
    """The REST API over ``ledger``; bodies up to 10 MiB reach the routes, larger ones are refused there. The faucet
    issues chips signed by ``issuer`` (None: it has no key to issue with, and says so)."""
    app = web.Application(middlewares=[_api_errors], client_max_size=MAX_BODY_BYTES)
    app[LEDGER] = ledger
    app[FAUCET] = Faucet(issuer)
    app[ACCEPTED] = AcceptedBatches(ledger)
    app[LOG_LIMITER] = LogLimiter()
    app[WEBSOCKETS] = set()
    app[SUBMISSIONS] = submissions = Submissions()
    app[METRICS] = metrics.metrics_registry(ledger, submissions, lambda: len(app[WEBSOCKETS]))
    app.on_shutdown.append(subscriptions.close_all)
    for method, path, handler in ROUTES:
        app.router.add_route(method, _any_segment(path), handler)
    return app


def _any_segment(path: str) -> str:
    """Let ``{name}`` match any one path segment, braces included, so that the route, not the router,
    decides what a malformed id is (400 with an error code rather than a bare 404)."""
    return re.sub(r"\{(\w+)\}", r"{\1:[^/]+}", path)


@web.middleware
async def _api_errors(request: web.Request, handler: Handler) -> web.StreamResponse:
    try:
        return await handler(request)
    except ApiError as error:
        return error_response(error)
    except (web.HTTPException, asyncio.CancelledError):
        raise
    except Exception as error:
        if isinstance(error, ConnectionResetError) and _client_gone(request):
            LOGGER.debug("client hung up during %s %s", request.method, request.path_qs)
            # Nobody will read this: aiohttp finds the connection closed and drops it quietly,
            # where re-raising the reset would make it log an error and try to send a 500.
            return web.Response(status=499, reason="Client Closed Request")
        route = getattr(request.match_info.route.resource, "canonical", request.path)
        request.app[LOG_LIMITER].log(
            LOGGER,
            ("unexpected", request.method, route),
            logging.ERROR,
            "unexpected error answering %s %s",
            request.method,
            request.path_qs,
            exc_info=error,
        )
        return error_response(ApiError(10))


def _client_gone(request: web.Request) -> bool:
    """Whether the connection the request came on is closed: a reset read from it means the client left,
    whereas a reset with the client still there comes from somewhere else and is a real fault."""
    return request.transport is None or request.transport.is_closing()
