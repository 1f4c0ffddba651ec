"""Starting ``xo-devnet`` as a child process and waiting until it is ready: for tests, benchmarks and scripts.

Readiness is the ready file xo-devnet writes (atomically) once its REST API and
component endpoint are bound and its processors have registered; it carries the real
ports, so callers can ask for port 0 and never race another program for a port.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from types import TracebackType
from typing import IO, Any

READY_TIMEOUT_SECONDS = 60.0
STOP_TIMEOUT_SECONDS = 20.0


class DevnetFailed(RuntimeError):
    """xo-devnet exited or stayed silent instead of becoming ready."""


class DevnetProcess:
    """One ``xo-devnet`` child; use as a context manager, or call ``start`` and ``stop``.

    ``extra_args`` go to xo-devnet as they are; by default it runs ephemeral on free
    ports with its keys in a private directory (see ``key_dir``). Its output (the
    banner and the logs of xo-devnet and its processors) goes to ``log_path`` if given, else
    to ``output`` (discarded by default).
    """

    def __init__(
        self,
        extra_args: Sequence[str] = ("--ephemeral",),
        *,
        key_dir: Path | None = None,
        log_path: Path | None = None,
        output: IO[Any] | int | None = subprocess.DEVNULL,
    ) -> None:
        self._workdir = tempfile.TemporaryDirectory(prefix="xo-devnet-")
        self.key_dir = key_dir or Path(self._workdir.name, "keys")
        self.ready_file = Path(self._workdir.name, "ready.json")
        self._args = [
            "--rest-api", "127.0.0.1:0",
            "--component-endpoint", "tcp://127.0.0.1:0",
            "--broker", "127.0.0.1:0",
            "--key-dir", str(self.key_dir),
            "--ready-file", str(self.ready_file),
            *extra_args,
        ]  # fmt: skip
        self.log_path = log_path
        self._output = output
        self._log: IO[bytes] | None = None
        self.process: subprocess.Popen[bytes] | None = None
        self.ready: dict[str, Any] = {}

    @property
    def rest_url(self) -> str:
        return str(self.ready["rest_url"])

    @property
    def component_endpoint(self) -> str:
        return str(self.ready["component_endpoint"])

    @property
    def broker_url(self) -> str:
        """The embedded MQTT broker's URL (``mqtt://127.0.0.1:PORT``), for the players' ``--broker``."""
        return str(self.ready["broker_url"])

    def start(self, timeout: float = READY_TIMEOUT_SECONDS) -> DevnetProcess:
        """Spawn and wait for the ready file; on failure the child is stopped and DevnetFailed raised."""
        self.ready_file.unlink(missing_ok=True)
        if self.log_path is not None and self._log is None:
            self._log = self.log_path.open("ab")
        output = self._log if self._log is not None else self._output
        command = [sys.executable, "-m", "xo_devnet.cli", *self._args]
        self.process = subprocess.Popen(command, stdout=output, stderr=output)
        deadline = time.monotonic() + timeout
        while not self.ready_file.exists():
            if self.process.poll() is not None:
                raise DevnetFailed(f"xo-devnet exited with code {self.process.returncode} before it was ready")
            if time.monotonic() > deadline:
                self.stop()
                raise DevnetFailed(f"xo-devnet was not ready within {timeout:.0f} s")
            time.sleep(0.02)
        self.ready = json.loads(self.ready_file.read_text(encoding="utf-8"))
        return self

    def stop(self, timeout: float = STOP_TIMEOUT_SECONDS) -> int | None:
        """SIGTERM, then SIGKILL after ``timeout``; returns the exit code (None if it never started)."""
        if self.process is None:
            return None
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        return self.process.returncode

    def close(self) -> None:
        self.stop()
        if self._log is not None:
            self._log.close()
        self._workdir.cleanup()

    def __enter__(self) -> DevnetProcess:
        return self.start()

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, traceback: TracebackType | None
    ) -> None:
        self.close()
