"""``xo-tp``: the XO transaction processor, run beside a Sawtooth validator (or xo-devnet).

Exit status: 0 after a clean stop (SIGINT/SIGTERM), 1 when the validator refuses the
registration, 2 for bad flags or settings.
"""

import argparse
import logging
import os
import signal
import sys
from pathlib import Path
from typing import NoReturn

from xo_core import __version__
from xo_tp.config import CONNECT_ENV, DEFAULT_CONNECT, DEFAULT_MAX_OCCUPANCY, ConfigError, resolve

PROG = "xo-tp"
READY_FILE_ENV = "XO_TP_READY_FILE"
LOG_FORMAT = "[%(asctime)s.%(msecs)03d %(levelname)-7s %(name)s] %(message)s"
LOG_DATE_FORMAT = "%Y-%m-%d %H:%M:%S"


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line on stderr and exit status 2."""

    def error(self, message: str) -> NoReturn:
        """One line naming the problem and where help is, instead of argparse's usage dump."""
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def build_parser() -> argparse.ArgumentParser:
    """The flags of ``xo-tp``, named as every Sawtooth transaction processor names them (``-C``, ``-v``)."""
    parser = _Parser(
        prog=PROG,
        description="Run the XO (tic-tac-toe) transaction processor for a Sawtooth validator.",
        epilog=(
            f"The validator URL comes from --connect, else ${CONNECT_ENV}, else 'connect' in the config file "
            "($SAWTOOTH_HOME/etc/xo.toml or /etc/sawtooth/xo.toml), else the default."
        ),
    )
    parser.add_argument(
        "-C",
        "--connect",
        metavar="URL",
        help=f"the validator's component endpoint (default {DEFAULT_CONNECT})",
    )
    parser.add_argument(
        "--max-occupancy",
        metavar="N",
        type=_whole_number,
        help=f"transactions processed at once (default {DEFAULT_MAX_OCCUPANCY})",
    )
    parser.add_argument("--config", metavar="FILE", type=Path, help="read settings from this TOML file")
    parser.add_argument(
        "--ready-file",
        metavar="FILE",
        type=Path,
        default=os.environ.get(READY_FILE_ENV) or None,
        help=f"create FILE while registered with the validator, remove it otherwise (also ${READY_FILE_ENV})",
    )
    parser.add_argument(
        "-v",
        "--verbose",
        action="count",
        default=0,
        help="-v: more events; -vv: one line per transaction; -vvv: every message on the wire",
    )
    parser.add_argument("-V", "--version", action="version", version=f"{PROG} {__version__}")
    return parser


def _whole_number(text: str) -> int:
    if not (text.isascii() and text.isdigit()):
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number")
    return int(text)


def configure_logging(verbosity: int) -> None:
    """Connecting, registering, losing the validator and reconnecting are always logged; each -v adds detail.

    -v: everything xo-tp reports at info level; -vv: one line per transaction;
    -vvv: every message on the wire, and the libraries' debug output.
    """
    logging.basicConfig(
        stream=sys.stderr,
        format=LOG_FORMAT,
        datefmt=LOG_DATE_FORMAT,
        level=logging.DEBUG if verbosity >= 3 else logging.WARNING,
    )
    detail = logging.DEBUG if verbosity >= 2 else logging.INFO if verbosity == 1 else logging.WARNING
    logging.getLogger("xo_tp").setLevel(detail)
    logging.getLogger("xo_tp.processor.core").setLevel(min(detail, logging.INFO))
    logging.getLogger("xo_tp.processor.wire").setLevel(logging.DEBUG if verbosity >= 3 else logging.INFO)


def _exit_before_serving(signum: int, _frame: object) -> None:
    """A stop signal that arrives before the processor runs (e.g. during imports): nothing to undo."""
    raise SystemExit(0)


def main(argv: list[str] | None = None) -> int:
    """Run ``xo-tp`` until stopped and return its exit status; settings are checked before anything starts."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        settings = resolve(
            connect_flag=args.connect, max_occupancy_flag=args.max_occupancy, config_flag=args.config
        )
    except ConfigError as error:
        parser.error(str(error))
    configure_logging(args.verbose)
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, _exit_before_serving)

    from xo_tp.handler import XoTransactionHandler  # noqa: PLC0415 (keeps --help and --version instant)
    from xo_tp.processor import ProcessorFailed, RegistrationRejected, TransactionProcessor  # noqa: PLC0415

    processor = TransactionProcessor(
        settings.connect, max_occupancy=settings.max_occupancy, ready_file=args.ready_file
    )
    processor.add_handler(XoTransactionHandler())
    try:
        processor.start()
    except (RegistrationRejected, ProcessorFailed) as error:
        logging.getLogger("xo_tp").error("%s", error)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
