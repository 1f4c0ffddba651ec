"""The ``xo`` command line: the reference Sawtooth client's commands and flags, plus ours.

Existing scripts written for the reference ``xo`` keep working: same
subcommands, same flags (``--disable-client-validation`` is accepted as the old
spelling of ``--no-validate``). Parsing only checks shape; what the values
mean (is the URL reachable, does the key exist) is the commands' business.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
from typing import NoReturn

from xo_core import __version__

DEFAULT_URL = "http://127.0.0.1:8008"
URL_ENV = "XO_URL"
AUTH_USER_ENV = "XO_AUTH_USER"
AUTH_PASSWORD_ENV = "XO_AUTH_PASSWORD"
VERSION = f"xo (xo-sawtooth) {__version__}"


class XoArgumentParser(argparse.ArgumentParser):
    """An argparse parser whose errors are the one-line ``xo: error: ...`` every xo error is."""

    def error(self, message: str) -> NoReturn:
        sys.stderr.write(f"xo: error: {message} (see '{self.prog} --help')\n")
        raise SystemExit(2)


def wait_seconds(text: str) -> float:
    """``--wait`` takes seconds as a non-negative number; bare ``--wait`` means no limit."""
    try:
        seconds = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, got {text!r}") from None
    if not seconds >= 0 or math.isinf(seconds):
        raise argparse.ArgumentTypeError(f"expected a finite number of seconds >= 0, got {text!r}")
    return seconds


def build_parser() -> XoArgumentParser:
    """The whole command line, with flags shared through parent parsers so every command spells them alike."""
    parser = XoArgumentParser(
        prog="xo",
        description="Play tic-tac-toe on a Hyperledger Sawtooth network by sending XO transactions.",
        epilog="Exit codes: 0 done (committed, or submitted when not waiting), 1 rejected or invalid input, "
        "2 usage error, 3 connection or server error, 4 stopped waiting before the batch was decided, "
        "70 internal error (a bug in xo), 130 interrupted.",
    )
    add_verbosity(parser, dest="verbose_before")
    subcommands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=XoArgumentParser)
    subcommands.required = True

    rest = rest_flags()
    move = move_flags()
    output = output_flags()

    create = subcommands.add_parser(
        "create",
        parents=[rest, move],
        help="create a new game",
        description="Send a transaction creating the game NAME; it fails if NAME already exists.",
    )
    create.add_argument("name", metavar="NAME", help="unique name of the new game")

    take = subcommands.add_parser(
        "take",
        parents=[rest, move],
        help="take a space in a game",
        description="Send a transaction placing your mark on SPACE of game NAME.",
    )
    take.add_argument("name", metavar="NAME", help="name of the game")
    take.add_argument(
        "space", metavar="SPACE", help="1-9 (row by row from the top left) or A1-C3 (column letter, row number)"
    )

    delete = subcommands.add_parser(
        "delete",
        parents=[rest, move],
        help="delete a game",
        description="Send a transaction deleting the game NAME.",
    )
    delete.add_argument("name", metavar="NAME", help="name of the game")

    subcommands.add_parser(
        "list",
        parents=[rest, output],
        help="list every game",
        description="Show every XO game in state: players, board and state.",
    )

    show = subcommands.add_parser(
        "show",
        parents=[rest, output],
        help="show one game and its board",
        description="Show the game NAME: its board, whose turn it is and its players.",
    )
    show.add_argument("name", metavar="NAME", help="name of the game")

    keygen = subcommands.add_parser(
        "keygen",
        help="create a key pair",
        description="Write a new secp256k1 key pair as NAME.priv (mode 0600) and NAME.pub, in hex, "
        "like 'sawtooth keygen'.",
    )
    add_verbosity(keygen)
    keygen.add_argument("key_name", nargs="?", metavar="NAME", help="key name (default: your OS user name)")
    keygen.add_argument("--key-dir", help="directory of the key files (default: ~/.sawtooth/keys)")
    keygen.add_argument("--force", action="store_true", help="overwrite existing key files")
    return parser


def add_verbosity(parser: argparse.ArgumentParser, dest: str = "verbose") -> None:
    """-v and -V on both sides of the command name: ``xo -v show`` and ``xo show -v`` both work."""
    parser.add_argument(
        "-v", "--verbose", action="count", default=0, dest=dest, help="show HTTP requests; twice: tracebacks too"
    )
    parser.add_argument("-V", "--version", action="version", version=VERSION, help="print the version and exit")


def rest_flags() -> argparse.ArgumentParser:
    """The reference client's connection and key flags, shared by every command that talks to the REST API."""
    flags = argparse.ArgumentParser(add_help=False)
    add_verbosity(flags)
    flags.add_argument("--url", help=f"URL of the Sawtooth REST API (default: ${URL_ENV} or {DEFAULT_URL})")
    flags.add_argument("--username", help="name of your key: KEY_DIR/USERNAME.priv (default: your OS user name)")
    flags.add_argument("--key-dir", help="directory of your key files (default: ~/.sawtooth/keys)")
    flags.add_argument("--auth-user", help=f"user for HTTP Basic authentication (or ${AUTH_USER_ENV})")
    flags.add_argument(
        "--auth-password",
        help=f"password for HTTP Basic authentication (or ${AUTH_PASSWORD_ENV}; "
        "asked for on the terminal when only the user is given)",
    )
    return flags


def move_flags() -> argparse.ArgumentParser:
    """Flags of the commands that submit a batch."""
    flags = argparse.ArgumentParser(add_help=False)
    flags.add_argument(
        "--wait",
        nargs="?",
        const=math.inf,
        type=wait_seconds,
        metavar="SECONDS",
        help="wait for the batch to commit and report the outcome; without SECONDS, wait as long as it takes",
    )
    flags.add_argument(
        "--no-validate",
        "--disable-client-validation",
        action="store_true",
        dest="no_validate",
        help="submit without first checking the game in state (the validator's reason comes back with --wait)",
    )
    return flags


def output_flags() -> argparse.ArgumentParser:
    """Flags of the commands that print games, so scripts can ask for JSON."""
    flags = argparse.ArgumentParser(add_help=False)
    flags.add_argument("--format", choices=("table", "json"), default="table", help="output format (default: table)")
    flags.add_argument("--json", action="store_const", const="json", dest="format", help="same as --format json")
    return flags


def parse(argv: list[str]) -> argparse.Namespace:
    """Parse ``argv``; usage errors exit with status 2 after one ``xo: error:`` line."""
    args = build_parser().parse_args(argv)
    args.verbose = args.verbose_before + getattr(args, "verbose", 0)
    del args.verbose_before
    return args


def environment_default(value: str | None, variable: str) -> str | None:
    """A flag's value, even an empty one, else the environment variable's when set and not empty.

    An empty variable counts as unset (``XO_URL= xo list`` is a common way to
    clear it), but an empty flag was typed on purpose and is passed on to be judged.
    """
    if value is not None:
        return value
    return os.environ.get(variable) or None
