"""What every ``*-tp`` command shares: its flags, settings, logging, signals and exit codes.

A family's command (``xo-tp``, ``rps-tp``, ``chips-tp``) is one call of
:func:`family_command`: a :class:`ProcessorCommand` whose program, settings file,
environment prefix and logger follow from the family's name, with its handlers;
:meth:`ProcessorCommand.main` (:func:`run`) does the rest, so every processor of this
project takes the same flags (``-C``, ``-v``, ``--max-occupancy``, ``--config``,
``--ready-file``, ``--metrics``) and behaves alike under a supervisor. Exit status: 0
after a clean stop (SIGINT/SIGTERM), 1 when the validator refuses the registration, 2
for bad flags or settings.
"""

from __future__ import annotations

import argparse
import logging
import os
import signal
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

from tp_runtime.config import DEFAULT_CONNECT, DEFAULT_MAX_OCCUPANCY, ConfigError, MetricsAddress, resolve
from xo_core import __version__, logs
from xo_core.process_exit import skip_final_collection

if TYPE_CHECKING:
    from tp_runtime.core import TransactionProcessor
    from tp_runtime.handlers import Handler
    from tp_runtime.metrics import MetricsServer
    from tp_runtime.tallies import ProcessorTallies

RUNTIME_LOGGER = "tp_runtime"


@dataclass(frozen=True)
class ProcessorCommand:
    """One family's processor command: everything that differs between ``xo-tp`` and ``rps-tp``."""

    prog: str
    """The command's name, e.g. ``xo-tp``."""
    description: str
    config_name: str
    """Its settings file in Sawtooth's ``etc`` directory, e.g. ``xo.toml``."""
    env_prefix: str
    """Its environment variables' prefix, e.g. ``XO_TP`` for ``XO_TP_CONNECT`` and ``XO_TP_READY_FILE``."""
    logger: str
    """The family package's logger, e.g. ``xo_tp``: ``-vv`` makes it log one line per transaction."""
    handlers: Callable[[], Sequence[Handler]]
    """Builds the handlers; called only once the flags are good, so ``--help`` stays instant."""

    def main(self, argv: list[str] | None = None) -> int:
        """Run the command until stopped and return its exit status: a console script's entry point."""
        return run(self, argv)

    @property
    def connect_env(self) -> str:
        return f"{self.env_prefix}_CONNECT"

    @property
    def ready_file_env(self) -> str:
        return f"{self.env_prefix}_READY_FILE"

    @property
    def metrics_env(self) -> str:
        """The environment variable that sets where the command serves its metrics."""
        return f"{self.env_prefix}_METRICS"


def family_command(family: str, title: str, handlers: Callable[[], Sequence[Handler]]) -> ProcessorCommand:
    """The ``<family>-tp`` command: its program, settings file, variables and logger all follow from ``family``.

    ``family_command("xo", "XO (tic-tac-toe)", handlers)`` is ``xo-tp``, configured by
    ``xo.toml`` and ``XO_TP_*``, logging as ``xo_tp``; ``handlers`` builds the family's
    handlers once the flags are good, so ``--help`` never loads them.
    """
    return ProcessorCommand(
        prog=f"{family}-tp",
        description=f"Run the {title} transaction processor for a Sawtooth validator.",
        config_name=f"{family}.toml",
        env_prefix=f"{family.upper()}_TP",
        logger=f"{family}_tp",
        handlers=handlers,
    )


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line on stderr and exit status 2."""

    def error(self, message: str) -> NoReturn:
        """One line naming the problem and where help is, instead of argparse's usage dump."""
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def build_parser(command: ProcessorCommand) -> argparse.ArgumentParser:
    """The flags of a processor command, named as every Sawtooth transaction processor names them."""
    parser = _Parser(
        prog=command.prog,
        description=command.description,
        epilog=(
            f"The validator URL comes from --connect, else ${command.connect_env}, else 'connect' in the config "
            f"file ($SAWTOOTH_HOME/etc/{command.config_name} or /etc/sawtooth/{command.config_name}), else the "
            "default."
        ),
    )
    parser.add_argument(
        "-C", "--connect", metavar="URL", help=f"the validator's component endpoint (default {DEFAULT_CONNECT})"
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
        default=os.environ.get(command.ready_file_env) or None,
        help=f"create FILE while registered with the validator, remove it otherwise (also ${command.ready_file_env})",
    )
    parser.add_argument(
        "--metrics",
        metavar="HOST:PORT",
        help=f"serve Prometheus metrics at http://HOST:PORT/metrics (also ${command.metrics_env} or 'metrics' in the"
        " config file; default: off)",
    )
    loudness = parser.add_mutually_exclusive_group()
    loudness.add_argument(
        "-v",
        "--verbose",
        action="count",
        default=0,
        help="-v: more events; -vv: one line per transaction; -vvv: every message on the wire",
    )
    loudness.add_argument(
        "-q",
        "--quiet",
        action="store_true",
        help="only warnings and errors, no lifecycle lines (for a supervisor that reports them itself)",
    )
    parser.add_argument("-V", "--version", action="version", version=f"{command.prog} {__version__}")
    return parser


def _whole_number(text: str) -> int:
    if not (text.isascii() and text.isdigit()):
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number")
    return int(text)


def configure_logging(family_logger: str, verbosity: int, *, quiet: bool = False) -> None:
    """Connecting, registering, losing the validator and reconnecting are logged unless quiet; each -v adds detail.

    -v: everything the processor reports at info level; -vv: one line per transaction;
    -vvv: every message on the wire, and the libraries' debug output. Quiet: warnings
    and errors only, for a supervisor (xo-devnet) that tells its user the lifecycle itself.
    """
    logs.configure(sys.stderr, logging.DEBUG if verbosity >= 3 else logging.WARNING)
    detail = logging.DEBUG if verbosity >= 2 else logging.INFO if verbosity == 1 else logging.WARNING
    logging.getLogger(family_logger).setLevel(detail)
    logging.getLogger(RUNTIME_LOGGER).setLevel(detail)
    logging.getLogger(f"{RUNTIME_LOGGER}.core").setLevel(detail if quiet else min(detail, logging.INFO))
    logging.getLogger(f"{RUNTIME_LOGGER}.wire").setLevel(logging.DEBUG if verbosity >= 3 else logging.INFO)


def _exit_before_serving(signum: int, _frame: object) -> None:
    """A stop signal that arrives before the processor runs (e.g. during imports): nothing to undo."""
    raise SystemExit(0)


def run(command: ProcessorCommand, argv: list[str] | None = None) -> int:
    """Run the processor until stopped and return its exit status; settings are checked before anything starts."""
    parser = build_parser(command)
    args = parser.parse_args(argv)
    try:
        settings = resolve(
            connect_env=command.connect_env,
            config_name=command.config_name,
            connect_flag=args.connect,
            max_occupancy_flag=args.max_occupancy,
            config_flag=args.config,
            metrics_env=command.metrics_env,
            metrics_flag=args.metrics,
        )
    except ConfigError as error:
        parser.error(str(error))
    configure_logging(command.logger, args.verbose, quiet=args.quiet)
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, _exit_before_serving)

    from tp_runtime.core import TransactionProcessor  # noqa: PLC0415 (keeps --help and --version instant)
    from tp_runtime.errors import ProcessorFailed, RegistrationRejected  # noqa: PLC0415
    from tp_runtime.tallies import ProcessorTallies  # noqa: PLC0415

    tallies = ProcessorTallies() if settings.metrics is not None else None
    processor = TransactionProcessor(
        settings.connect, max_occupancy=settings.max_occupancy, ready_file=args.ready_file, tallies=tallies
    )
    for handler in command.handlers():
        processor.add_handler(handler)
    metrics = _serve_metrics(parser, command, settings.metrics, processor, tallies)
    skip_final_collection()
    try:
        processor.start()
    except (RegistrationRejected, ProcessorFailed) as error:
        logging.getLogger(command.logger).error("%s", error)
        return 1
    finally:
        if metrics is not None:
            metrics.close()
    return 0


def _serve_metrics(
    parser: argparse.ArgumentParser,
    command: ProcessorCommand,
    address: MetricsAddress | None,
    processor: TransactionProcessor,
    tallies: ProcessorTallies | None,
) -> MetricsServer | None:
    """Start the metrics endpoint, if asked for, before connecting: an address in use is a bad setting (status 2)."""
    if address is None or tallies is None:
        return None
    from tp_runtime.metrics import ProcessorCollector, namespace_of, serve_metrics  # noqa: PLC0415

    collector = ProcessorCollector(
        namespace_of(command.prog), tallies, processor.family_versions, lambda: processor.in_flight
    )
    try:
        return serve_metrics(address, collector)
    except OSError as error:
        parser.error(f"--metrics: cannot serve metrics on {address}: {error.strerror or error}")
