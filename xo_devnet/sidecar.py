"""Processor sidecars: a transaction processor (``xo-tp``, ``rps-tp``) as a child process, restarted if it dies.

xo-devnet's MQTT broker runs in one too (``xo_devnet.broker_process``).

Each runs as a separate process connected over the component endpoint, as it would
beside a real validator, so the devnet exercises the real protocol. Each is supervised
on its own: one that dies is restarted with its own back-off while the others go on.
A sidecar gets its own session, so a Ctrl-C in the terminal reaches only xo-devnet,
which then stops it in order; and on Linux it is told to exit should xo-devnet itself
be killed outright.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import logging
import signal
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass

LOGGER = logging.getLogger(__name__)

RESTART_DELAYS = (0.5, 1.0, 2.0, 4.0, 8.0, 16.0, 30.0)
"""Back-off between restarts; the last delay repeats for as long as the processor keeps dying."""

STABLE_AFTER_SECONDS = 30.0
"""A processor that ran this long before dying is restarted at once, as if for the first time."""

STOP_GRACE_SECONDS = 5.0
"""How long the processor has to unregister and exit after SIGTERM before it is killed."""

_PR_SET_PDEATHSIG = 1


@dataclass(frozen=True)
class Processor:
    """A processor command xo-devnet can run beside the ledger, and the transaction families it serves."""

    name: str
    """The command, e.g. ``xo-tp``."""
    module: str
    """The module that runs it, e.g. ``xo_tp.cli``: started from this very interpreter."""
    families: tuple[tuple[str, str], ...]
    """(family, version) pairs it registers."""

    def command(self, endpoint: str, verbosity: int) -> list[str]:
        """The command line connecting it to ``endpoint``; a negative ``verbosity`` is ``--quiet``.

        Quiet is what xo-devnet runs it with by default: the devnet tells its user that
        the processor registered (the banner) and that it stops, so the processor's own
        lifecycle lines would only say it twice, before the banner and in other words.
        """
        loudness = ["-q"] if verbosity < 0 else ["-" + "v" * verbosity] if verbosity else []
        return [sys.executable, "-m", self.module, "-C", endpoint, *loudness]


def connectable(endpoint: str) -> str:
    """The address to connect to for a bound endpoint: a wildcard host means this machine."""
    for wildcard in ("://*:", "://0.0.0.0:"):
        endpoint = endpoint.replace(wildcard, "://127.0.0.1:")
    return endpoint.replace("://[::]:", "://[::1]:")


class ProcessorSidecar:
    """Keeps one processor process running until ``stop``; ``name`` is what the log calls it, ``pass_fds`` the
    file descriptors each of its runs inherits (the MQTT broker's listening sockets, which xo-devnet keeps)."""

    def __init__(self, command: Sequence[str], name: str = "the processor", pass_fds: Sequence[int] = ()) -> None:
        self._command = list(command)
        self.name = name
        self._pass_fds = tuple(pass_fds)
        self._process: asyncio.subprocess.Process | None = None
        self._supervisor: asyncio.Task[None] | None = None
        self._stopping = False
        self.restarts = 0

    @property
    def pid(self) -> int | None:
        return self._process.pid if self._process is not None else None

    async def start(self) -> None:
        """Spawn the processor and begin watching it; raises OSError if it cannot be spawned at all."""
        await self._spawn()
        self._supervisor = asyncio.create_task(self._supervise(), name=f"{self.name} supervisor")

    async def stop(self) -> None:
        """Stop watching, then SIGTERM the processor (so it unregisters) and SIGKILL it if it lingers."""
        self._stopping = True
        if self._supervisor is not None:
            self._supervisor.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._supervisor
        process = self._process
        if process is None or process.returncode is not None:
            return
        with contextlib.suppress(ProcessLookupError):
            process.terminate()
        try:
            await asyncio.wait_for(process.wait(), STOP_GRACE_SECONDS)
        except TimeoutError:
            LOGGER.warning("%s (pid %d) did not exit within %.0f s of SIGTERM; killing it", self.name, process.pid,
                           STOP_GRACE_SECONDS)
            with contextlib.suppress(ProcessLookupError):
                process.kill()
            await process.wait()

    async def _spawn(self) -> None:
        self._process = await asyncio.create_subprocess_exec(
            *self._command,
            start_new_session=True,
            pass_fds=self._pass_fds,
            preexec_fn=_exit_with_parent if sys.platform == "linux" else None,
        )
        LOGGER.info("started %s (pid %d): %s", self.name, self._process.pid, " ".join(self._command))

    async def _supervise(self) -> None:
        failures = 0
        while True:
            assert self._process is not None
            started = time.monotonic()
            code = await self._process.wait()
            if self._stopping:
                return
            failures = 0 if time.monotonic() - started >= STABLE_AFTER_SECONDS else failures + 1
            delay = 0.0 if failures == 0 else RESTART_DELAYS[min(failures, len(RESTART_DELAYS)) - 1]
            LOGGER.warning(
                "%s (pid %d) exited with code %s; restarting in %.1f s", self.name, self._process.pid, code, delay
            )
            await self._respawn_after(delay)

    async def _respawn_after(self, delay: float) -> None:
        while True:
            await asyncio.sleep(delay)
            try:
                await self._spawn()
            except OSError as error:
                delay = RESTART_DELAYS[-1]
                LOGGER.error("cannot restart %s: %s; trying again in %.0f s", self.name, error, delay)
                continue
            self.restarts += 1
            return


def _exit_with_parent() -> None:
    """In the child before exec: ask Linux to SIGTERM it when xo-devnet dies, however it dies."""
    ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)
