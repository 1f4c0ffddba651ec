"""Entry point of ``xo``: parse, run one command, turn its outcome into an exit code (:mod:`client_core.runner`).

Commands are imported on demand so that ``xo show`` never loads what ``xo take``
needs (protobuf, secp256k1).
"""

from __future__ import annotations

import sys

from client_core.runner import run
from xo_cli.arguments import parse

COMMANDS = {
    "create": ("xo_cli.moves", "create"),
    "take": ("xo_cli.moves", "take"),
    "delete": ("xo_cli.moves", "delete"),
    "list": ("xo_cli.queries", "list_games"),
    "show": ("xo_cli.queries", "show"),
    "watch": ("xo_cli.watch", "watch"),
    "history": ("xo_cli.history", "history"),
    "ratings": ("xo_cli.ratings", "ratings"),
    "chain blocks": ("xo_cli.chain", "blocks"),
    "chain transactions": ("xo_cli.chain", "transactions"),
    "chain block": ("xo_cli.chain_item", "block"),
    "chain transaction": ("xo_cli.chain_item", "transaction"),
    "play": ("xo_cli.play", "play"),
    "bot": ("xo_cli.bot", "bot"),
    "status": ("client_core.status", "status"),
    "keygen": ("client_core.keygen", "keygen"),
    "aries check": ("xo_cli.aries_check", "check"),
    "aries replay": ("xo_cli.aries_replay", "replay"),
    "aries agent": ("xo_cli.aries_agent", "agent"),
    "aries connect": ("xo_cli.aries_connect", "connect"),
    "aries play": ("xo_cli.aries_play", "play"),
    "web": ("xo_web.command", "web"),
}


def main(argv: list[str] | None = None) -> int:
    """Run ``xo`` and return its exit code instead of exiting, so that tests drive it as a shell would."""
    return run("xo", parse, COMMANDS, argv)


if __name__ == "__main__":
    sys.exit(main())
