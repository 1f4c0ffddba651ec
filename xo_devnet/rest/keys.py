"""Typed keys for what the routes find in the aiohttp application."""

from typing import TYPE_CHECKING

from aiohttp import web
from prometheus_client import CollectorRegistry

from xo_core.log_limits import LogLimiter
from xo_devnet.faucet import Faucet
from xo_devnet.ledger import Ledger
from xo_devnet.rest.accepted import AcceptedBatches
from xo_devnet.rest.submissions import Submissions

if TYPE_CHECKING:
    from xo_devnet.rest.subscriptions import WebsocketSession

LEDGER = web.AppKey("ledger", Ledger)
ACCEPTED = web.AppKey("accepted", AcceptedBatches)
LOG_LIMITER = web.AppKey("log_limiter", LogLimiter)
METRICS = web.AppKey("metrics", CollectorRegistry)
"""The registry /metrics serves: this server's own."""
SUBMISSIONS = web.AppKey("submissions", Submissions)
WEBSOCKETS = web.AppKey("websockets", set["WebsocketSession"])
"""The open /subscriptions websockets, closed when the server shuts down."""
FAUCET = web.AppKey("faucet", Faucet)
"""The devnet's faucet (``POST /xo-devnet/faucet``): its issuer key and the book of its limits."""
