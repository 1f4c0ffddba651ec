"""Running a whole devnet: the ledger, the REST API in front of it, a processor sidecar per family and the MQTT
broker's process beside it.

Startup goes ledger, processors, REST API; shutdown goes the other way: the REST API
stops taking batches, the batches it accepted are given time to be decided, then the
processors unregister from a ledger that is still there, and the ledger closes last.
The processors (``xo-tp``, ``rps-tp``, ``chips-tp``) are all spawned before anything waits for one,
so their start-ups overlap each other's and the REST API's. SIGINT and SIGTERM both
mean "stop cleanly". The user reads only what matters: the banner once ready, then a
line when it stops (naming Ctrl-C or SIGTERM) and one when it has stopped; the rest is
logging, shown with -v.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from chips_tp import family as chips_family
from rps_tp import family as rps_family
from xo_core.keyfiles import KeyFileError, load_signer
from xo_core.signing import Signer
from xo_core.text import counted
from xo_devnet import broker_process
from xo_devnet.already_running import serving_path
from xo_devnet.banner import ProcessorStatus, ReadyInfo, banner, remove_ready_file, write_ready_file
from xo_devnet.families import Family
from xo_devnet.genesis import ISSUER_KEY_NAME, MIN_CHALLENGE_SECONDS, genesis_state
from xo_devnet.key_chips import KeyChips, key_chips
from xo_devnet.ledger import Ledger, LedgerConfig
from xo_devnet.player_keys import PlayerKey, ensure_player_keys
from xo_devnet.processor_metrics import metrics_address
from xo_devnet.rest.listeners import bind_listeners
from xo_devnet.sidecar import Processor, ProcessorSidecar, connectable
from xo_devnet.stop_requests import STOP_SIGNALS, StopRequests
from xo_tp import family as xo_family

if TYPE_CHECKING:
    from xo_devnet.rest.accepted import AcceptedBatches

EXAMPLE_GAMES = 1000
"""How many names (game1, game2, ...) the banner tries for its example before settling for a unique one."""

LOGGER = logging.getLogger(__name__)

XO_TP = Processor("xo-tp", "xo_tp.cli", ((xo_family.FAMILY_NAME, xo_family.FAMILY_VERSION),))
#: rps-tp serves rps 2.0, and takes rps 1.0 only to refuse it with a message (docs/rps-family.md, "Versions").
RPS_TP = Processor(
    "rps-tp", "rps_tp.cli", tuple((rps_family.FAMILY_NAME, version) for version in rps_family.FAMILY_VERSIONS)
)
CHIPS_TP = Processor("chips-tp", "chips_tp.cli", ((chips_family.FAMILY_NAME, chips_family.FAMILY_VERSION),))
PROCESSORS: tuple[Processor, ...] = (XO_TP, RPS_TP, CHIPS_TP)
"""The processors xo-devnet runs beside the ledger, one sidecar each (BlockInfo is built into the ledger)."""

PROCESSOR_FAMILIES: tuple[Family, ...] = tuple(family for processor in PROCESSORS for family in processor.families)
"""The families of the processors xo-devnet runs: accepted always (with --no-tp too, for processors of the
same families that the user connects)."""

REGISTRATION_TIMEOUT_SECONDS = 30.0
"""How long startup waits for the sidecars to register before announcing readiness anyway."""

DRAIN_TIMEOUT_SECONDS = 10.0
"""How long a stop waits for accepted batches to be decided before stopping the processors and the ledger."""

_REGISTRATION_POLL_SECONDS = 0.02


class StartupError(Exception):
    """The devnet cannot start; the message says which part and why (a port in use, say)."""


@dataclass(frozen=True)
class DevnetOptions:
    """Everything the command line decides."""

    data_dir: Path | None
    rest_host: str
    rest_port: int
    component_endpoint: str
    block_interval: float
    max_subscribers: int
    run_processor: bool
    key_dir: Path
    ready_file: Path | None
    verbosity: int
    families: tuple[Family, ...] = ()
    """Families accepted besides ``PROCESSOR_FAMILIES``, for processors the user connects."""
    processor_wait: float = 60.0
    """Seconds a batch may wait for a processor of its family (``LedgerConfig.processor_wait``)."""
    dependency_wait: float = 60.0
    """Seconds a batch may wait for its dependencies to run (``LedgerConfig.dependency_wait``)."""
    broker: tuple[str, int] | None = None
    """Where the embedded MQTT broker listens (port 0: a free one); None runs no broker."""
    min_challenge: int = MIN_CHALLENGE_SECONDS
    """The shortest challenge duration a chips open may fix on a new chain (``chips.min_challenge_seconds``)."""

    @property
    def accepted_families(self) -> frozenset[Family]:
        """What the ledger takes batches of; any other family or version is refused at submission."""
        return frozenset(PROCESSOR_FAMILIES + self.families)


async def run_devnet(options: DevnetOptions, out: TextIO = sys.stdout, requests: StopRequests | None = None) -> None:
    """Run until SIGINT or SIGTERM; startup errors (a port in use, say) propagate before anything is announced.

    A stop asked for during startup (or before it: ``requests`` holds the signals caught before the loop
    ran) starts no processor not started yet and announces nothing, neither banner nor ready file, since
    what it would announce is about to go; then the devnet stops as it would once ready.
    """
    stop = asyncio.Event()
    stopped_by = requests.names if requests is not None else []

    def request_stop(name: str) -> None:
        stopped_by.append(name)
        stop.set()

    loop = asyncio.get_running_loop()
    for signal_number, name in STOP_SIGNALS.items():
        loop.add_signal_handler(signal_number, request_stop, name)
    if stopped_by:
        stop.set()
    async with contextlib.AsyncExitStack() as running:
        keys = ensure_player_keys(options.key_dir)
        issuer = ensure_player_keys(options.key_dir, (ISSUER_KEY_NAME,))[0]
        ledger = await _start_ledger(options, _genesis(issuer, keys, options.min_challenge))
        running.push_async_callback(ledger.stop)
        where = f"{options.rest_host}:{options.rest_port}"
        try:
            listeners = bind_listeners(options.rest_host, options.rest_port)
        except OSError as error:
            raise StartupError(f"cannot serve the REST API on {where}: {error}") from error
        for listener in listeners:
            running.callback(listener.close)
        broker = await _start_broker(options.broker, options.verbosity, running)
        sidecars: list[tuple[Processor, ProcessorSidecar]] = []
        running.push_async_callback(_stop_sidecars, sidecars)
        if options.run_processor and not stop.is_set():
            await _start_sidecars(connectable(ledger.component_endpoint), options.verbosity - 1, sidecars)
        # The REST API's imports (aiohttp) take longer than a processor takes to start: made only now, they
        # overlap the processors' start-up instead of delaying it. Its address is bound already (above), so
        # a port in use was reported before any processor started.
        from xo_devnet.rest.server import start_rest_server  # noqa: PLC0415

        try:
            rest = await start_rest_server(ledger, options.rest_host, options.rest_port, listeners=listeners,
                                           issuer=_issuer_signer(options.key_dir, issuer))  # fmt: skip
        except OSError as error:
            raise StartupError(f"cannot serve the REST API on {where}: {error}") from error
        running.push_async_callback(_drain, ledger, rest.accepted, options.data_dir is not None, out)
        running.push_async_callback(rest.stop)
        registered = await _wait_for_registration(ledger, [processor for processor, _ in sidecars], stop)
        if not stop.is_set():  # a stop during startup: what is about to go is not announced
            endpoint = connectable(ledger.component_endpoint)
            info = ReadyInfo(
                rest_url=rest.url,
                component_endpoint=ledger.component_endpoint,
                broker_url=broker[0] if broker is not None else None,
                broker_pid=broker[1].pid if broker is not None else None,
                data_dir=options.data_dir,
                processors=tuple(
                    ProcessorStatus(
                        processor.name,
                        sidecar.pid,
                        processor.families,
                        processor in registered,
                        metrics_address(processor.name, endpoint),
                    )
                    for processor, sidecar in sidecars
                ),
                families=tuple(sorted(options.accepted_families)),
                key_dir=options.key_dir,
                keys=(*keys, issuer),
                example_game=unused_game_name(ledger),
                chips=_chips(ledger, [*keys, issuer], options.accepted_families),
            )
            print(banner(info), file=out, flush=True)
            for ready_file in _ready_files(options):
                write_ready_file(ready_file, info)
                running.callback(remove_ready_file, ready_file)
            await stop.wait()
        print(f"{stopped_by[0]}: stopping xo-devnet", file=out, flush=True)
    kept = "nothing was kept (ephemeral)" if options.data_dir is None else f"the chain is kept in {options.data_dir}"
    print(f"xo-devnet stopped; {kept}", file=out, flush=True)


def _issuer_signer(key_dir: Path, issuer: PlayerKey) -> Signer | None:
    """The issuer key the faucet signs with, or None when it cannot be read (the faucet then says so)."""
    if issuer.public_key is None:
        return None
    try:
        return load_signer(key_dir, issuer.name)
    except (KeyFileError, OSError):
        return None


def _ready_files(options: DevnetOptions) -> list[Path]:
    """Where the ready document goes: ``--ready-file``, and the data dir, where a second start looks for it."""
    files = [options.ready_file] if options.ready_file is not None else []
    if options.data_dir is not None:
        files.append(serving_path(options.data_dir))
    return files


def unused_game_name(ledger: Ledger) -> str:
    """``game1``, else ``game2``, ...: the first name with no game on the chain, for the banner's example.

    A restarted devnet keeps its games, and an example that fails ("game 'game1'
    already exists") is a poor first hour.
    """
    head = ledger.chain_head().header_signature
    state_root = ledger.state_root_of(head)
    for number in range(1, EXAMPLE_GAMES + 1):
        name = f"game{number}"
        if state_root is None or ledger.state_get(xo_family.game_address(name), state_root) is None:
            return name
    return f"game-{head[:8]}"


async def _start_broker(
    where: tuple[str, int] | None, verbosity: int, running: contextlib.AsyncExitStack
) -> tuple[str, ProcessorSidecar] | None:
    """Bind the embedded MQTT broker's address and start its process (both stopped by ``running``), without waiting
    for it to serve: clients wait in the listen backlog meanwhile. Its URL and process; None when there is none."""
    if where is None:
        return None
    host, port = where
    try:
        listeners = broker_process.bind(host, port)
    except OSError as error:
        raise StartupError(f"cannot serve the MQTT broker on {host}:{port}: {error} (--no-broker runs none)") from error
    for listener in listeners:
        running.callback(listener.close)
    sidecar = broker_process.broker_sidecar(listeners, verbosity)
    try:
        await sidecar.start()
    except OSError as error:
        raise StartupError(f"cannot start the MQTT broker: {error} (--no-broker runs none)") from error
    running.push_async_callback(sidecar.stop)
    return broker_process.broker_url(host, listeners), sidecar


async def _start_sidecars(endpoint: str, verbosity: int, sidecars: list[tuple[Processor, ProcessorSidecar]]) -> None:
    """Spawn every processor (without waiting for any to register), adding each to ``sidecars`` once it runs."""
    for processor in PROCESSORS:
        sidecar = ProcessorSidecar(processor.command(endpoint, verbosity), processor.name)
        try:
            await sidecar.start()
        except OSError as error:
            raise StartupError(f"cannot start {processor.name}: {error}") from error
        sidecars.append((processor, sidecar))


async def _stop_sidecars(sidecars: list[tuple[Processor, ProcessorSidecar]]) -> None:
    """Stop every sidecar at once: each unregisters and exits on its own time, not after the others."""
    await asyncio.gather(*(sidecar.stop() for _, sidecar in sidecars))


async def _drain(ledger: Ledger, accepted: AcceptedBatches, persistent: bool, out: TextIO) -> None:
    """Let the batches the REST API accepted be decided before the processor and the ledger stop.

    A data-directory ledger would decide them after its next start anyway; deciding them
    now spares their clients the wait, and an ephemeral ledger has no next start.
    """
    pending = accepted.pending()
    if not pending:
        return
    fate = "they run when xo-devnet starts again on this data dir" if persistent else "they are lost"
    if not ledger.processors():
        LOGGER.warning(
            "%s still pending and no processor is connected to decide them; %s",
            _accepted(len(pending), "is", "are"),
            fate,
        )
        return
    print(f"waiting up to {DRAIN_TIMEOUT_SECONDS:.0f} s for {_accepted(len(pending))} to be decided", file=out,
          flush=True)
    statuses = await ledger.drain(pending, DRAIN_TIMEOUT_SECONDS)
    undecided = sum(1 for status in statuses if status.status == "PENDING")
    if undecided:
        LOGGER.warning("%s still pending when xo-devnet stopped; %s", _accepted(undecided, "was", "were"), fate)


def _accepted(count: int, *verbs: str) -> str:
    """``1 accepted batch is``, ``2 accepted batches are``: the count, noun and verb agreeing."""
    verb = "" if not verbs else " " + (verbs[0] if count == 1 else verbs[1])
    return counted(count, "accepted batch", "accepted batches") + verb


def _chips(ledger: Ledger, keys: list[PlayerKey], families: frozenset[Family]) -> dict[str, KeyChips]:
    """What each key holds on the chain's head, for the banner; nothing where the ledger takes no chips."""
    if chips_family.FAMILY_NAME not in {name for name, _ in families}:
        return {}
    root = ledger.state_root_of(ledger.chain_head().header_signature)
    if root is None:
        return {}
    public_keys = [key.public_key for key in keys if key.public_key is not None]
    return key_chips(lambda address: ledger.state_get(address, root), public_keys)


def _genesis(issuer: PlayerKey, players: list[PlayerKey], min_challenge: int) -> dict[str, bytes]:
    """A new chain's genesis state: the issuer key may issue chips; each player has 1,000; chips challenges last
    at least ``min_challenge`` seconds.

    An issuer key that cannot be read or written leaves chips without an issuer (a warning says why).
    """
    if issuer.public_key is None:
        LOGGER.warning("no chips issuer on a new chain: %s", issuer.problem)
    known = [player.public_key for player in players if player.public_key is not None]
    return genesis_state(issuer.public_key, known, min_challenge)


async def _start_ledger(options: DevnetOptions, genesis: dict[str, bytes]) -> Ledger:
    if options.data_dir is not None:
        try:
            options.data_dir.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise StartupError(f"cannot create the data dir {options.data_dir}: {error}") from error
    config = LedgerConfig(
        data_dir=options.data_dir,
        component_endpoint=options.component_endpoint,
        block_interval=options.block_interval,
        families=options.accepted_families,
        max_subscribers=options.max_subscribers,
        processor_wait=options.processor_wait,
        dependency_wait=options.dependency_wait,
        genesis_state=genesis,
    )
    try:
        return await Ledger.start(config)
    except Exception as error:
        raise StartupError(
            f"cannot start the ledger (component endpoint {options.component_endpoint}, "
            f"data dir {options.data_dir or 'in memory'}): {error}"
        ) from error


async def _wait_for_registration(ledger: Ledger, processors: list[Processor], stop: asyncio.Event) -> set[Processor]:
    """The processors whose every family registered before the timeout (or before a stop request)."""
    deadline = time.monotonic() + REGISTRATION_TIMEOUT_SECONDS
    registered: set[Processor] = set()
    while True:
        served = set(ledger.processors())
        registered = {processor for processor in processors if served.issuperset(processor.families)}
        if len(registered) == len(processors) or stop.is_set() or time.monotonic() >= deadline:
            break
        await asyncio.sleep(_REGISTRATION_POLL_SECONDS)
    late = [processor.name for processor in processors if processor not in registered]
    if late and not stop.is_set():
        LOGGER.warning("not registered within %.0f s: %s; batches of their families stay PENDING until they are",
                       REGISTRATION_TIMEOUT_SECONDS, ", ".join(late))
    return registered
