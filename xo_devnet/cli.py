"""The ``xo-devnet`` command: a one-node Sawtooth-compatible ledger, its REST API and its processors, in one go.

Exit codes: 0 after Ctrl-C or SIGTERM, and at once when another xo-devnet already runs on
the data directory (it says where that one serves); 1 when the devnet cannot start (a
port in use, an unusable data directory, a declined ``--reset``); 2 for bad flags.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import re
import sys
from collections.abc import Callable
from pathlib import Path

from chips_tp.channel import MAX_DURATION, MIN_DURATION, min_duration
from xo_core import __version__, logs
from xo_core.keyfiles import DEFAULT_KEY_DIR
from xo_core.process_exit import skip_final_collection
from xo_devnet.already_running import WAIT_SECONDS, RunningDevnet, describe, find_running, is_held
from xo_devnet.families import Family, parse_families
from xo_devnet.genesis import MIN_CHALLENGE_SECONDS
from xo_devnet.stop_requests import StopRequests

LOGGER = logging.getLogger("xo_devnet")

DEFAULT_REST_API = "127.0.0.1:8008"
DEFAULT_COMPONENT_ENDPOINT = "tcp://127.0.0.1:4004"
DEFAULT_BROKER = "127.0.0.1:1883"
DEFAULT_BLOCK_INTERVAL = 0.05
DEFAULT_MAX_SUBSCRIBERS = 256
MAX_MAX_SUBSCRIBERS = 10_000

# Each of these stands for its flag when the flag is not given: CI and scripts move the
# ledger off 8008/4004 without changing the command a user types.
REST_API_ENV = "XO_DEVNET_REST_API"
COMPONENT_ENDPOINT_ENV = "XO_DEVNET_COMPONENT_ENDPOINT"
BROKER_ENV = "XO_DEVNET_BROKER"
READY_FILE_ENV = "XO_DEVNET_READY_FILE"
FAMILIES_ENV = "XO_DEVNET_FAMILIES"
PROCESSOR_WAIT_ENV = "XO_DEVNET_PROCESSOR_WAIT"
DEPENDENCY_WAIT_ENV = "XO_DEVNET_DEPENDENCY_WAIT"
DEFAULT_WAIT = 60.0
MAX_WAIT = 86_400.0
MAX_BLOCK_INTERVAL = 60.0

_HOST_PORT = re.compile(r"(?P<host>\[[0-9A-Fa-f:.]+\]|[^\s:\[\]/]+):(?P<port>\d{1,5})")
_TCP_ENDPOINT = re.compile(r"tcp://(?:\[[0-9A-Fa-f:.]+\]|[^\s:\[\]/]+):\d{1,5}")


def default_data_dir() -> Path:
    """``$XDG_DATA_HOME/xo-devnet``, i.e. ``~/.local/share/xo-devnet`` on most systems."""
    base = os.environ.get("XDG_DATA_HOME") or os.path.join("~", ".local", "share")
    return Path(base, "xo-devnet").expanduser()


def rest_address(text: str) -> tuple[str, int]:
    """``HOST:PORT`` (``[::1]:8008`` for IPv6); port 0 picks a free port."""
    match = _HOST_PORT.fullmatch(text.strip())
    if match is None or int(match["port"]) > 65535:
        raise argparse.ArgumentTypeError(f"{text!r} is not HOST:PORT (e.g. 127.0.0.1:8008, port 0 for any free port)")
    return match["host"].strip("[]"), int(match["port"])


def component_endpoint(text: str) -> str:
    match = _TCP_ENDPOINT.fullmatch(text.strip())
    if match is None or int(text.strip().rsplit(":", 1)[1]) > 65535:
        raise argparse.ArgumentTypeError(f"{text!r} is not a ZMQ endpoint like tcp://127.0.0.1:4004")
    return text.strip()


def seconds_up_to(limit: float, what: str) -> Callable[[str], float]:
    """An argparse type for a number of seconds above 0 and at most ``limit``, named ``what`` in its complaint."""

    def seconds(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
        if not 0 < value <= limit:
            raise argparse.ArgumentTypeError(f"{what} must be above 0 and at most {limit:.0f} s")
        return value

    return seconds


block_interval = seconds_up_to(MAX_BLOCK_INTERVAL, "the block interval")
wait_seconds = seconds_up_to(MAX_WAIT, "a wait")
"""How long a batch that cannot run yet may wait: at most a day, as it holds a place in the queue."""


def family_list(text: str) -> tuple[Family, ...]:
    """``FAMILY:VERSION,...``: transaction families to accept besides those of the processors xo-devnet runs."""
    try:
        return parse_families(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def max_subscribers(text: str) -> int:
    try:
        count = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if not 1 <= count <= MAX_MAX_SUBSCRIBERS:
        raise argparse.ArgumentTypeError(f"the subscriber limit must be from 1 to {MAX_MAX_SUBSCRIBERS}")
    return count


def challenge_floor(text: str) -> int:
    """``--min-challenge``: whole seconds, as the chips family reads its setting (1 to 30 days)."""
    try:
        return min_duration(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected a whole number of seconds from {MIN_DURATION} to {MAX_DURATION}, got {text!r}"
        ) from None


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="xo-devnet",
        description="Run a one-node, Sawtooth-compatible ledger with its REST API and the xo-tp, rps-tp and chips-tp"
        " transaction processors, and make three keys (alice and bob, players a new chain credits with 1,000 chips"
        " each, and chips-issuer, which may issue more), so that you can play XO with the xo command at once.",
        epilog="Scripts: --ready-file PATH is written (atomically, JSON with rest_url, component_endpoint, data_dir,"
        " broker_url, pid, ...) once the devnet is ready, and removed when it stops. Environment: "
        f"{REST_API_ENV}, {COMPONENT_ENDPOINT_ENV}, {BROKER_ENV}, {READY_FILE_ENV}, {FAMILIES_ENV},"
        f" {PROCESSOR_WAIT_ENV} and {DEPENDENCY_WAIT_ENV} stand for the flags of the same names. Started again on"
        " a data dir that a running xo-devnet holds, it starts nothing: it prints where that one serves and exits 0.",
    )
    storage = parser.add_mutually_exclusive_group()
    storage.add_argument(
        "--data-dir", type=Path, help=f"where the chain and state are kept (default: {default_data_dir()})"
    )
    storage.add_argument("--ephemeral", action="store_true", help="keep everything in memory; nothing survives a stop")
    parser.add_argument(
        "--reset",
        action="store_true",
        help="start afresh: delete the chain in the data dir first (asks first on a terminal; player keys are kept)",
    )
    parser.add_argument(
        "--rest-api",
        type=rest_address,
        default=os.environ.get(REST_API_ENV) or DEFAULT_REST_API,
        metavar="HOST:PORT",
        help=f"where the REST API listens (default: ${REST_API_ENV} or {DEFAULT_REST_API}; port 0 picks a free one)",
    )
    parser.add_argument(
        "--component-endpoint",
        type=component_endpoint,
        default=os.environ.get(COMPONENT_ENDPOINT_ENV) or DEFAULT_COMPONENT_ENDPOINT,
        metavar="URL",
        help=f"where transaction processors connect (default: ${COMPONENT_ENDPOINT_ENV} or "
        f"{DEFAULT_COMPONENT_ENDPOINT}; port 0 picks a free one)",
    )
    parser.add_argument(
        "--broker",
        type=rest_address,
        default=os.environ.get(BROKER_ENV) or DEFAULT_BROKER,
        metavar="HOST:PORT",
        help="where the embedded MQTT broker (players' off-chain messages) listens"
        f" (default: ${BROKER_ENV} or {DEFAULT_BROKER}; port 0 picks a free one)",
    )
    parser.add_argument(
        "--no-broker",
        action="store_true",
        help="run no MQTT broker, whatever --broker says (players then need one of their own)",
    )
    parser.add_argument(
        "--min-challenge",
        type=challenge_floor,
        default=MIN_CHALLENGE_SECONDS,
        metavar="SECONDS",
        help="the shortest challenge duration a chips channel may have on a new chain (its setting "
        f"chips.min_challenge_seconds; default: {MIN_CHALLENGE_SECONDS}, since nobody else sets this node's clock; a "
        "chain already started keeps its own)",
    )
    parser.add_argument(
        "--block-interval",
        type=block_interval,
        default=DEFAULT_BLOCK_INTERVAL,
        metavar="SECONDS",
        help=f"seconds between blocks while batches are pending (default: {DEFAULT_BLOCK_INTERVAL})",
    )
    parser.add_argument(
        "--max-subscribers",
        type=max_subscribers,
        default=DEFAULT_MAX_SUBSCRIBERS,
        metavar="N",
        help="event subscribers served at once: ZMQ event subscriptions on the component endpoint and"
        f" /subscriptions websockets together; more are refused (default: {DEFAULT_MAX_SUBSCRIBERS})",
    )
    parser.add_argument(
        "--no-tp",
        action="store_true",
        help="start no transaction processor (xo-tp, rps-tp, chips-tp); connect them yourself",
    )
    parser.add_argument(
        "--families",
        type=family_list,
        default=os.environ.get(FAMILIES_ENV) or "",
        metavar="FAMILY:VERSION,...",
        help="also accept batches of these transaction families, for processors you connect yourself"
        f" (default: ${FAMILIES_ENV}, else none; xo 1.0, rps 2.0 (and 1.0, which rps-tp refuses naming 2.0)"
        " and chips 1.0 are always accepted, other families are refused)",
    )
    parser.add_argument(
        "--processor-wait",
        type=wait_seconds,
        default=os.environ.get(PROCESSOR_WAIT_ENV) or DEFAULT_WAIT,
        metavar="SECONDS",
        help="a batch of an accepted family with no processor registered for this long ends INVALID"
        f" (default: ${PROCESSOR_WAIT_ENV}, else {DEFAULT_WAIT:g})",
    )
    parser.add_argument(
        "--dependency-wait",
        type=wait_seconds,
        default=os.environ.get(DEPENDENCY_WAIT_ENV) or DEFAULT_WAIT,
        metavar="SECONDS",
        help="a batch whose dependency has not run for this long ends INVALID"
        f" (default: ${DEPENDENCY_WAIT_ENV}, else {DEFAULT_WAIT:g})",
    )
    parser.add_argument("--key-dir", type=Path, help=f"where the player keys are made (default: {DEFAULT_KEY_DIR})")
    parser.add_argument(
        "--ready-file",
        type=Path,
        default=os.environ.get(READY_FILE_ENV) or None,
        metavar="PATH",
        help=f"write the bound addresses as JSON once ready (default: ${READY_FILE_ENV}, else none)",
    )
    parser.add_argument(
        "-v", "--verbose", action="count", default=0, help="more logging: -v info, -vv debug (the processors too)"
    )
    parser.add_argument("-V", "--version", action="version", version=f"xo-devnet {__version__}")
    return parser


def configure_logging(verbosity: int) -> None:
    """Warnings by default, -v info, -vv debug; written like the processors' lines, which share the terminal."""
    logs.configure(sys.stderr, logging.DEBUG if verbosity >= 2 else logging.INFO if verbosity == 1 else logging.WARNING)
    if verbosity < 2:  # the broker's process quiets its own (xo_devnet.broker_process)
        logging.getLogger("aiohttp").setLevel(logging.WARNING)


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.reset and args.ephemeral:
        parser.error("--reset deletes the chain in a data dir; --ephemeral has none")
    configure_logging(args.verbose)
    data_dir = None if args.ephemeral else (args.data_dir or default_data_dir()).expanduser()
    if args.reset and data_dir is not None:
        from xo_devnet.reset import ResetRefused, ask_on_terminal, reset_chain  # noqa: PLC0415

        try:
            print(reset_chain(data_dir, ask_on_terminal if sys.stdin.isatty() else None), flush=True)
        except ResetRefused as error:
            print(f"xo-devnet: {error}", file=sys.stderr)
            return 1
    with StopRequests().caught() as requests:  # from here on a stop signal is a clean stop, never a death
        from xo_devnet.launcher import DevnetOptions, StartupError, run_devnet  # noqa: PLC0415 (keeps --help instant)

        options = DevnetOptions(
            data_dir=data_dir,
            rest_host=args.rest_api[0],
            rest_port=args.rest_api[1],
            component_endpoint=args.component_endpoint,
            broker=None if args.no_broker else args.broker,
            min_challenge=args.min_challenge,
            block_interval=args.block_interval,
            max_subscribers=args.max_subscribers,
            run_processor=not args.no_tp,
            families=args.families,
            processor_wait=args.processor_wait,
            dependency_wait=args.dependency_wait,
            key_dir=(args.key_dir or DEFAULT_KEY_DIR).expanduser(),
            ready_file=args.ready_file,
            verbosity=args.verbose,
        )
        skip_final_collection()
        try:
            asyncio.run(run_devnet(options, requests=requests))
        except StartupError as error:
            failure = error
        except Exception:
            LOGGER.exception("xo-devnet stopped on an unexpected error")
            return 1
        else:
            return 0
    # Ctrl-C interrupts again from here: waiting for another xo-devnet below is the user's to cut short.
    LOGGER.debug("startup failed", exc_info=failure)
    return _already_running(data_dir) if data_dir is not None and is_held(data_dir) else _failed(failure)


def _already_running(data_dir: Path) -> int:
    """Another xo-devnet holds the data dir: say where it serves and exit 0, or exit 1 if it never gets ready."""

    def waiting(running: RunningDevnet) -> None:
        print(f"xo-devnet: another xo-devnet (pid {running.pid}) is starting on {data_dir}; waiting for it to be"
              f" ready (at most {WAIT_SECONDS:g} s)", file=sys.stderr, flush=True)  # fmt: skip

    running = find_running(data_dir, wait=WAIT_SECONDS, on_wait=waiting)
    if running is None:
        return _failed(f"another xo-devnet held {data_dir}, then stopped: start again")
    if not running.serving:
        return _failed(f"data directory {data_dir} is in use by another xo-devnet (pid {running.pid}), which is not"
                       f" serving yet")  # fmt: skip
    print(describe(running), flush=True)
    return 0


def _failed(error: object) -> int:
    print(f"xo-devnet: {error}", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
