"""``xo_aries``: the Aries Tic Tac Toe 1.0 protocol as an ACA-Py plugin (``aca-py start --plugin xo_aries``).

Two agents play XO over DIDComm: ``move`` and ``outcome`` messages under both the seed's
identifier and ``https://didcomm.org/tictactoe/1.0``, checked by the XO rules, each game an
ACA-Py record with admin routes (``/tictactoe/...``) and webhooks, optionally anchored on a
Sawtooth ledger. ``docs/aries.md`` describes it all. The modules that need ACA-Py import it;
this one does not, so the pure ones (:mod:`xo_aries.player`) load on any Python.
"""

from __future__ import annotations

from typing import Any


async def setup(context: Any) -> None:
    """ACA-Py's plugin hook: register the protocol's message types and our problem-report (after ACA-Py's own).

    Plugins given with ``--plugin`` are set up after ACA-Py's protocols, so our problem-report
    class replaces ACA-Py's for the general type; routes and events load from ``routes``.
    """
    from acapy_agent.core.protocol_registry import ProtocolRegistry  # noqa: PLC0415 (ACA-Py only where it runs)

    from xo_aries.messages import MESSAGE_TYPES, PROBLEM_REPORT_TYPES  # noqa: PLC0415

    registry = context.inject(ProtocolRegistry)
    registry.register_message_types(MESSAGE_TYPES)
    registry.register_message_types(PROBLEM_REPORT_TYPES)
