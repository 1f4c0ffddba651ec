"""Entry point of ``chips``: parse, run one command, turn its outcome into an exit code (:mod:`client_core.runner`).

Commands are imported on demand so that ``chips balance`` never loads what ``chips play`` needs.
"""

from __future__ import annotations

import sys

from chips_cli.arguments import parse
from client_core.runner import run

COMMANDS = {
    "balance": ("chips_cli.accounts", "balance"),
    "faucet": ("chips_cli.accounts", "faucet"),
    "issue": ("chips_cli.accounts", "issue"),
    "transfer": ("chips_cli.accounts", "transfer"),
    "open": ("chips_cli.channels", "open_channel"),
    "join": ("chips_cli.channels", "join"),
    "list": ("chips_cli.channels", "list_channels"),
    "show": ("chips_cli.channels", "show"),
    "conclude": ("chips_cli.channels", "conclude"),
    "challenge": ("chips_cli.channels", "challenge"),
    "finalize": ("chips_cli.channels", "finalize"),
    "play": ("chips_cli.play", "play"),
    "bot": ("chips_cli.play", "bot"),
    "watch": ("chips_cli.play", "watch"),
    "offer": ("chips_cli.offers", "offer"),
    "offers": ("chips_cli.offers", "offers"),
    "accept": ("chips_cli.offers", "accept"),
    "tournament": ("chips_cli.tournament", "tournament"),
    "status": ("client_core.status", "status"),
    "keygen": ("client_core.keygen", "keygen"),
}


def main(argv: list[str] | None = None) -> int:
    """Run ``chips`` and return its exit code instead of exiting, so that tests drive it as a shell would."""
    return run("chips", parse, COMMANDS, argv)


if __name__ == "__main__":
    sys.exit(main())
