"""Typed keys for what the routes find in the aiohttp application."""

from aiohttp import web

from xo_devnet.ledger import Ledger
from xo_devnet.rest.accepted import AcceptedBatches

LEDGER = web.AppKey("ledger", Ledger)
ACCEPTED = web.AppKey("accepted", AcceptedBatches)
