"""Typed keys for what the routes find in the aiohttp application."""

from aiohttp import web

from xo_devnet.ledger import Ledger
from xo_devnet.log_limits import LogLimiter
from xo_devnet.rest.accepted import AcceptedBatches

LEDGER = web.AppKey("ledger", Ledger)
ACCEPTED = web.AppKey("accepted", AcceptedBatches)
LOG_LIMITER = web.AppKey("log_limiter", LogLimiter)
