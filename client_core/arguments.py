"""The flags every client command shares (``xo``, ``rps``), spelled as the reference Sawtooth clients spell them.

Each command builds its own parser from these parents, so ``--url``, ``--username``,
``--key-dir``, ``--auth-user``, ``--wait`` and ``--json`` mean the same in every one and
read the same environment variables. Parsing only checks shape; what the values mean
(is the URL reachable, does the key exist) is the commands' business.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
from typing import NoReturn

DEFAULT_URL = "http://127.0.0.1:8008"
URL_ENV = "XO_URL"
AUTH_USER_ENV = "XO_AUTH_USER"
AUTH_PASSWORD_ENV = "XO_AUTH_PASSWORD"


class CommandParser(argparse.ArgumentParser):
    """An argparse parser whose errors are the one-line ``<command>: error: ...`` every client error is."""

    def error(self, message: str) -> NoReturn:
        command = self.prog.split()[0]
        sys.stderr.write(f"{command}: error: {message} (see '{self.prog} --help')\n")
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


def add_verbosity(parser: argparse.ArgumentParser, version: str, dest: str = "verbose") -> None:
    """-v and -V on both sides of the command name: ``xo -v show`` and ``xo show -v`` both work."""
    parser.add_argument(
        "-v", "--verbose", action="count", default=0, dest=dest, help="show HTTP requests; twice: tracebacks too"
    )
    parser.add_argument("-V", "--version", action="version", version=version, help="print the version and exit")


def rest_flags(version: str) -> argparse.ArgumentParser:
    """The reference client's connection and key flags, shared by every command that talks to the REST API."""
    flags = argparse.ArgumentParser(add_help=False)
    add_verbosity(flags, version)
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


def keygen_parser(subcommands: argparse._SubParsersAction, version: str) -> argparse.ArgumentParser:
    """``keygen [NAME] [--key-dir DIR] [--force]``, the same in every client command."""
    keygen = subcommands.add_parser(
        "keygen",
        help="create a key pair",
        description="Write a new secp256k1 key pair as NAME.priv (mode 0600) and NAME.pub, in hex, "
        "like 'sawtooth keygen'.",
    )
    add_verbosity(keygen, version)
    keygen.add_argument("key_name", nargs="?", metavar="NAME", help="key name (default: your OS user name)")
    keygen.add_argument("--key-dir", help="directory of the key files (default: ~/.sawtooth/keys)")
    keygen.add_argument("--force", action="store_true", help="overwrite existing key files")
    return keygen


def environment_default(value: str | None, variable: str) -> str | None:
    """A flag's value, even an empty one, else the environment variable's when set and not empty.

    An empty variable counts as unset (``XO_URL= xo list`` is a common way to
    clear it), but an empty flag was typed on purpose and is passed on to be judged.
    """
    if value is not None:
        return value
    return os.environ.get(variable) or None
