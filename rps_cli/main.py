"""Entry point of ``rps``: parse, run one command, turn its outcome into an exit code (:mod:`client_core.runner`).

Commands are imported on demand so that ``rps show`` never loads what ``rps throw``
needs (protobuf, secp256k1, the chain follower).
"""

from __future__ import annotations

import sys

from client_core.runner import run
from rps_cli.arguments import parse

COMMANDS = {
    "create": ("rps_cli.moves", "create"),
    "join": ("rps_cli.moves", "join"),
    "setup": ("rps_cli.moves", "setup"),
    "ready": ("rps_cli.moves", "ready"),
    "throw": ("rps_cli.rounds", "throw"),
    "reveal": ("rps_cli.rounds", "reveal"),
    "resign": ("rps_cli.moves", "resign"),
    "claim": ("rps_cli.moves", "claim"),
    "delete": ("rps_cli.moves", "delete"),
    "list": ("rps_cli.queries", "list_games"),
    "show": ("rps_cli.queries", "show"),
    "watch": ("rps_cli.watch", "watch"),
    "status": ("client_core.status", "status"),
    "keygen": ("client_core.keygen", "keygen"),
}


def main(argv: list[str] | None = None) -> int:
    """Run ``rps`` and return its exit code instead of exiting, so that tests drive it as a shell would."""
    return run("rps", parse, COMMANDS, argv)


if __name__ == "__main__":
    sys.exit(main())
