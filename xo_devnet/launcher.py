"""Running a whole devnet: the ledger, the REST API in front of it and the xo-tp sidecar beside it.

Startup goes ledger, processor, REST API; shutdown goes the other way: the REST API
stops taking batches, the batches it accepted are given time to be decided, then the
processor unregisters from a ledger that is still there, and the ledger closes last.
SIGINT and SIGTERM both mean "stop cleanly".
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from xo_devnet.banner import ReadyInfo, banner, remove_ready_file, write_ready_file
from xo_devnet.families import Family
from xo_devnet.ledger import Ledger, LedgerConfig
from xo_devnet.player_keys import ensure_player_keys
from xo_devnet.rest.accepted import AcceptedBatches
from xo_devnet.rest.server import start_rest_server
from xo_devnet.sidecar import ProcessorSidecar, connectable, processor_command
from xo_tp.family import FAMILY_NAME, FAMILY_VERSION

LOGGER = logging.getLogger(__name__)

PROCESSOR_FAMILIES: tuple[Family, ...] = ((FAMILY_NAME, FAMILY_VERSION),)
"""The families of the processors xo-devnet runs beside the ledger: accepted always (with --no-tp too,
for a processor of the same family that the user connects)."""

REGISTRATION_TIMEOUT_SECONDS = 30.0
"""How long startup waits for the sidecar to register before announcing readiness anyway."""

DRAIN_TIMEOUT_SECONDS = 10.0
"""How long a stop waits for accepted batches to be decided before stopping the processor and the ledger."""

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

    @property
    def accepted_families(self) -> frozenset[Family]:
        """What the ledger takes batches of; any other family or version is refused at submission."""
        return frozenset(PROCESSOR_FAMILIES + self.families)


async def run_devnet(options: DevnetOptions, out: TextIO = sys.stdout) -> None:
    """Run until SIGINT or SIGTERM; startup errors (a port in use, say) propagate before anything is announced."""
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signal_number in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signal_number, stop.set)
    async with contextlib.AsyncExitStack() as running:
        ledger = await _start_ledger(options)
        running.push_async_callback(ledger.stop)
        sidecar = None
        if options.run_processor:
            endpoint = connectable(ledger.component_endpoint)
            sidecar = ProcessorSidecar(processor_command(endpoint, max(0, options.verbosity - 1)))
            try:
                await sidecar.start()
            except OSError as error:
                raise StartupError(f"cannot start xo-tp: {error}") from error
            running.push_async_callback(sidecar.stop)
        try:
            rest = await start_rest_server(ledger, options.rest_host, options.rest_port)
        except OSError as error:
            where = f"{options.rest_host}:{options.rest_port}"
            raise StartupError(f"cannot serve the REST API on {where}: {error}") from error
        running.push_async_callback(_drain, ledger, rest.accepted, options.data_dir is not None)
        running.push_async_callback(rest.stop)
        keys = ensure_player_keys(options.key_dir)
        registered = sidecar is not None and await _wait_for_registration(ledger, stop)
        info = ReadyInfo(
            rest_url=rest.url,
            component_endpoint=ledger.component_endpoint,
            data_dir=options.data_dir,
            processor_pid=sidecar.pid if sidecar is not None else None,
            processor_registered=registered,
            families=tuple(sorted(options.accepted_families)),
            key_dir=options.key_dir,
            keys=tuple(keys),
        )
        print(banner(info), file=out, flush=True)
        if options.ready_file is not None:
            write_ready_file(options.ready_file, info)
            running.callback(remove_ready_file, options.ready_file)
        await stop.wait()
        LOGGER.info("stopping")


async def _drain(ledger: Ledger, accepted: AcceptedBatches, persistent: bool) -> None:
    """Let the batches the REST API accepted be decided before the processor and the ledger stop.

    A data-directory ledger would decide them after its next start anyway; deciding them
    now spares their clients the wait, and an ephemeral ledger has no next start.
    """
    pending = accepted.pending()
    if not pending:
        return
    fate = "they run when xo-devnet starts again on this data dir" if persistent else "they are lost"
    if not ledger.processors():
        LOGGER.warning("%d accepted batches are still pending and no processor is connected to decide them; %s",
                       len(pending), fate)
        return
    LOGGER.info("waiting up to %.0f s for %d pending batches", DRAIN_TIMEOUT_SECONDS, len(pending))
    statuses = await ledger.wait_for_batches(pending, DRAIN_TIMEOUT_SECONDS)
    undecided = sum(1 for status in statuses if status.status == "PENDING")
    if undecided:
        LOGGER.warning("%d accepted batches were still pending when xo-devnet stopped; %s", undecided, fate)


async def _start_ledger(options: DevnetOptions) -> Ledger:
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
    )
    try:
        return await Ledger.start(config)
    except Exception as error:
        raise StartupError(
            f"cannot start the ledger (component endpoint {options.component_endpoint}, "
            f"data dir {options.data_dir or 'in memory'}): {error}"
        ) from error


async def _wait_for_registration(ledger: Ledger, stop: asyncio.Event) -> bool:
    """Whether the XO processor registered before the timeout (or before a stop request)."""
    deadline = time.monotonic() + REGISTRATION_TIMEOUT_SECONDS
    while time.monotonic() < deadline and not stop.is_set():
        if (FAMILY_NAME, FAMILY_VERSION) in ledger.processors():
            return True
        await asyncio.sleep(_REGISTRATION_POLL_SECONDS)
    if stop.is_set():
        return False
    LOGGER.warning("xo-tp has not registered within %.0f s; batches stay PENDING until it does",
                   REGISTRATION_TIMEOUT_SECONDS)
    return False
