"""The flags every client command shares (``xo``, ``rps``), spelled as the reference Sawtooth clients spell them.

Each command builds its own parser from these parents, so ``--url``, ``--username``,
``--key-dir``, ``--auth-user``, ``--wait`` and ``--json`` mean the same in every one and
read the same environment variables. The connection and key flags are accepted before
the subcommand too (``xo --url U --username alice create g1``). Parsing only checks
shape; what the values mean (is the URL reachable, does the key exist) is the commands'
business. A usage error points at the help of the subcommand it is about, and an
unknown subcommand gets the closest one suggested.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
from typing import TYPE_CHECKING, Any, NamedTuple, NoReturn

from xo_core.text import printable, quoted

if TYPE_CHECKING:
    from client_core.broker import BrokerAddress

DEFAULT_URL = "http://127.0.0.1:8008"
URL_ENV = "XO_URL"
USERNAME_ENV = "XO_USERNAME"
KEY_DIR_ENV = "XO_KEY_DIR"
AUTH_USER_ENV = "XO_AUTH_USER"
AUTH_PASSWORD_ENV = "XO_AUTH_PASSWORD"
DEFAULT_BROKER = "mqtt://127.0.0.1:1883"
BROKER_ENV = "XO_BROKER"

GLOBAL_FLAGS = ("url", "username", "key_dir", "auth_user", "auth_password")
"""Flags a command line may give before the subcommand as well as after it."""
_GLOBAL_PREFIX = "before_"


class HelpFormatter(argparse.HelpFormatter):
    """Descriptions and epilogs wrapped by paragraph, except indented lines (examples, a board), kept as written."""

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        paragraphs = []
        for paragraph in text.split("\n\n"):
            lines = paragraph.splitlines()
            if any(line.startswith(" ") for line in lines[1:]):
                paragraphs.append("\n".join(indent + line for line in lines))
            else:
                paragraphs.append(super()._fill_text(paragraph, width, indent))
        return "\n\n".join(paragraphs)


class CommandParser(argparse.ArgumentParser):
    """An argparse parser whose errors are the one-line ``<command>: error: ...`` every client error is."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", HelpFormatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        command = self.prog.split()[0]
        shown = printable(message, escape_backslashes=False)
        sys.stderr.write(f"{command}: error: {shown} (see '{self.prog} --help')\n")
        raise SystemExit(2)

    def _check_value(self, action: argparse.Action, value: Any) -> None:
        """An unknown subcommand is named, with the closest known one, instead of argparse's list of choices."""
        if isinstance(action, argparse._SubParsersAction) and value not in action.choices:
            import difflib  # noqa: PLC0415 - only a mistyped command needs it

            known = list(action.choices)
            closest = difflib.get_close_matches(value, known, n=1)
            hint = f"; did you mean '{closest[0]}'?" if closest else f" (commands: {', '.join(known)})"
            raise argparse.ArgumentError(None, f"unknown command {quoted(value, 40)}{hint}")
        super()._check_value(action, value)


def parse_command_line(parser: CommandParser, argv: list[str]) -> argparse.Namespace:
    """Parse ``argv``; an unknown flag is reported by the subcommand it was given to, pointing at its help.

    The connection and key flags given before the subcommand fill those not given after it, and ``-v``
    counts on both sides. ``args.prog`` is the command's name (``xo``, ``rps``), for the lines it prints.
    """
    args, extras = parser.parse_known_args(argv)
    args.prog = parser.prog
    if extras:
        subparsers = next(
            action for action in parser._actions if isinstance(action, argparse._SubParsersAction)
        )
        subparsers.choices[args.command].error(f"unrecognized arguments: {' '.join(extras)}")
    args.verbose = args.before_verbose + getattr(args, "verbose", 0)
    for flag in GLOBAL_FLAGS:
        before = getattr(args, _GLOBAL_PREFIX + flag)
        if getattr(args, flag, None) is None:
            setattr(args, flag, before)
        delattr(args, _GLOBAL_PREFIX + flag)
    del args.before_verbose
    return args


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


def add_global_flags(parser: argparse.ArgumentParser, version: str) -> None:
    """The connection and key flags, and -v/-V, before the subcommand: ``xo --url U --username alice create g1``."""
    add_verbosity(parser, version, dest=_GLOBAL_PREFIX + "verbose")
    _add_connection_flags(parser, _GLOBAL_PREFIX)


def rest_flags(version: str) -> argparse.ArgumentParser:
    """The reference client's connection and key flags, shared by every command that talks to the REST API."""
    flags = argparse.ArgumentParser(add_help=False)
    add_verbosity(flags, version)
    _add_connection_flags(flags, "")
    return flags


def _add_connection_flags(parser: argparse.ArgumentParser, prefix: str) -> None:
    parser.add_argument(
        "--url",
        dest=prefix + "url",
        metavar="URL",
        help=f"URL of the Sawtooth REST API (default: ${URL_ENV} or {DEFAULT_URL})",
    )
    parser.add_argument(
        "--username",
        dest=prefix + "username",
        metavar="NAME",
        help=f"name of your key: KEY_DIR/USERNAME.priv (default: ${USERNAME_ENV} or your OS user name)",
    )
    parser.add_argument(
        "--key-dir",
        dest=prefix + "key_dir",
        metavar="DIR",
        help=f"directory of your key files (default: ${KEY_DIR_ENV} or ~/.sawtooth/keys)",
    )
    parser.add_argument(
        "--auth-user",
        dest=prefix + "auth_user",
        metavar="USER",
        help=f"user for HTTP Basic authentication (or ${AUTH_USER_ENV})",
    )
    parser.add_argument(
        "--auth-password",
        dest=prefix + "auth_password",
        metavar="PASSWORD",
        help=f"password for HTTP Basic authentication (or ${AUTH_PASSWORD_ENV}; "
        "asked for on the terminal when only the user is given)",
    )


def wait_flags() -> argparse.ArgumentParser:
    """``--wait [SECONDS]``, for the commands that follow a batch to its outcome."""
    flags = argparse.ArgumentParser(add_help=False)
    flags.add_argument(
        "--wait",
        nargs="?",
        const=math.inf,
        type=wait_seconds,
        metavar="SECONDS",
        help="wait for the batch to commit and report the outcome; without SECONDS, wait as long as it takes",
    )
    return flags


def move_flags() -> argparse.ArgumentParser:
    """Flags of the commands that submit a batch."""
    flags = argparse.ArgumentParser(add_help=False, parents=[wait_flags()])
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


def json_flag() -> argparse.ArgumentParser:
    """``--json`` of the commands that submit: the outcome as one JSON object instead of a line."""
    flags = argparse.ArgumentParser(add_help=False)
    flags.add_argument("--json", action="store_const", const="json", dest="format", help="print the outcome as JSON")
    return flags


class CommandLine(NamedTuple):
    """A family command's parser and the pieces every one of its subcommands is built from."""

    parser: CommandParser
    subcommands: argparse._SubParsersAction
    rest: argparse.ArgumentParser
    """``--url``, ``--auth-user``, ... and ``-v``: every command that talks to a REST API."""
    move: argparse.ArgumentParser
    """``--username``, ``--key-dir``, ``--wait``, ``--no-validate``: every command that signs."""
    output: argparse.ArgumentParser
    """``--format`` for the commands that read."""
    json_output: argparse.ArgumentParser
    """``--json`` for the commands that sign."""


def command_line(prog: str, description: str, epilog: str, version: str) -> CommandLine:
    """The parser of a family's command (``xo``, ``rps``, ...) with its global flags, and the shared parent parsers."""
    parser = CommandParser(prog=prog, description=description, epilog=epilog)
    add_global_flags(parser, version)
    subcommands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=CommandParser)
    subcommands.required = True
    return CommandLine(parser, subcommands, rest_flags(version), move_flags(), output_flags(), json_flag())


def broker_flags() -> argparse.ArgumentParser:
    """``--broker URL`` of the commands that exchange messages through an MQTT broker; ``args.broker`` is a
    :class:`client_core.broker.BrokerAddress`, from the flag, else ``$XO_BROKER``, else the local default."""
    flags = argparse.ArgumentParser(add_help=False)
    flags.add_argument(
        "--broker",
        type=broker_address,
        default=os.environ.get(BROKER_ENV) or DEFAULT_BROKER,
        metavar="URL",
        help=f"the MQTT broker players exchange messages through: mqtt://HOST:PORT or mqtts://HOST:PORT "
        f"(default: ${BROKER_ENV} or {DEFAULT_BROKER}; user and password from $XO_BROKER_USERNAME and "
        "$XO_BROKER_PASSWORD)",
    )
    return flags


def broker_address(text: str) -> BrokerAddress:
    """``--broker``'s value as a BrokerAddress; argparse reports a malformed one as a usage error."""
    from client_core.broker import BrokerAddress  # noqa: PLC0415 - only broker commands load paho

    try:
        return BrokerAddress.parse(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def keygen_parser(subcommands: argparse._SubParsersAction, version: str) -> argparse.ArgumentParser:
    """``keygen [NAME] [--key-dir DIR] [--force]``, the same in every client command."""
    keygen = subcommands.add_parser(
        "keygen",
        help="create a key pair",
        description="Write a new secp256k1 key pair as NAME.priv (mode 0600) and NAME.pub, in hex, "
        "like 'sawtooth keygen'.",
    )
    add_verbosity(keygen, version)
    keygen.add_argument(
        "key_name",
        nargs="?",
        metavar="NAME",
        help=f"key name (default: --username, ${USERNAME_ENV}, your OS user name)",
    )
    keygen.add_argument("--key-dir", help=f"directory of the key files (default: ${KEY_DIR_ENV} or ~/.sawtooth/keys)")
    keygen.add_argument("--force", action="store_true", help="overwrite existing key files")
    return keygen


def status_parser(
    subcommands: argparse._SubParsersAction, parents: list[argparse.ArgumentParser]
) -> argparse.ArgumentParser:
    """``status BATCH_ID [--wait [SECONDS]] [--json]``: a batch submitted earlier, looked up later."""
    status = subcommands.add_parser(
        "status",
        parents=parents,
        help="show the status of a batch submitted earlier",
        description="Look up the batch BATCH_ID (as printed when it was submitted): COMMITTED, INVALID (with the "
        "validator's reason), PENDING or UNKNOWN. Exit status: 0 COMMITTED, 1 INVALID, 4 PENDING or UNKNOWN. A "
        "shortened id (its first 6 or more digits, as 'waiting for batch ...' prints them) is found among the "
        "committed batches; a pending or refused batch only by its full id.",
    )
    status.add_argument(
        "batch_id", metavar="BATCH_ID", help="the batch id: 128 hex characters, or its first 6 or more (abcdef12...)"
    )
    return status


def environment_default(value: str | None, variable: str) -> str | None:
    """A flag's value, even an empty one, else the environment variable's when set and not empty.

    An empty variable counts as unset (``XO_URL= xo list`` is a common way to
    clear it), but an empty flag was typed on purpose and is passed on to be judged.
    """
    if value is not None:
        return value
    return os.environ.get(variable) or None
