"""The command line of ``xo web``: the page served on this machine, and where it listens.

Kept apart from :mod:`xo_cli.arguments`, as ``aries`` is, so the command's flags read
as one unit. The server itself is :mod:`xo_web`, loaded only when ``xo web`` runs.
"""

from __future__ import annotations

import argparse
from typing import Final

from client_core.arguments import broker_flags

DEFAULT_PORT: Final = 8080
DEFAULT_BIND: Final = "127.0.0.1"

WEB_EXAMPLES = """\
examples:
  xo web --open                       serve on http://127.0.0.1:8080/ and open it in the browser
  xo web --url http://node:8008       against another REST API
  xo web --port 0                     any free port (the address is printed)"""


def port_number(text: str) -> int:
    """``--port``: 0 (any free port) to 65535."""
    if not text.isascii() or not text.isdigit() or int(text) > 65535:
        raise argparse.ArgumentTypeError(f"expected a port number from 0 to 65535, got {text!r}")
    return int(text)


def add_web_command(subcommands: argparse._SubParsersAction, rest: argparse.ArgumentParser) -> None:
    """``xo web [--port N] [--bind ADDRESS [--allow-remote]] [--open]`` with the connection and key flags."""
    web = subcommands.add_parser(
        "web",
        parents=[rest, broker_flags()],
        help="play in the browser: serve the game's page on this machine",
        description="Serve a web page for playing XO and rock-paper-scissors, live, on this machine: every game as "
        "its moves commit, boards to click, each game's history, rps throws kept secret until both are bound. "
        "The server talks to the REST API for the page and signs moves "
        "with the keys in KEY_DIR (they never reach the browser); --username picks the key the page starts "
        "with. By default it listens on 127.0.0.1 only; it answers only its own page. Ctrl-C stops it.",
        epilog=WEB_EXAMPLES,
    )
    web.add_argument(
        "--port",
        type=port_number,
        default=DEFAULT_PORT,
        metavar="PORT",
        help=f"port to listen on (default: {DEFAULT_PORT}; 0: any free port)",
    )
    web.add_argument(
        "--bind",
        default=DEFAULT_BIND,
        metavar="ADDRESS",
        help=f"IP address to listen on (default: {DEFAULT_BIND}); any other than a loopback address needs "
        "--allow-remote",
    )
    web.add_argument(
        "--allow-remote",
        action="store_true",
        help="allow --bind to a non-loopback address: anyone who can reach it can play with your keys",
    )
    web.add_argument("--open", action="store_true", help="open the page in the web browser")
