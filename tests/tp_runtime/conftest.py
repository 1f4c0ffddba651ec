"""Fixtures for the processor runtime: a validator peer, the runtime in a thread, a ``*-tp`` command as a subprocess."""

import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.ports import reserved_port
from tests.tp_runtime.validator_peer import DEADLINE, ValidatorPeer
from tp_runtime import TransactionProcessor


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "subprocess: starts a *-tp command as a separate process (about a second each)")


@pytest.fixture
def peer() -> Iterator[ValidatorPeer]:
    """A validator peer on a port held for the whole test: one closed and started again there gets it back."""
    with reserved_port() as port, ValidatorPeer(port) as validator:
        yield validator


@dataclass
class RunningProcessor:
    """A :class:`TransactionProcessor` running in a background thread of the test process."""

    processor: TransactionProcessor
    thread: threading.Thread
    errors: list[BaseException] = field(default_factory=list)

    def stop(self, timeout: float = DEADLINE) -> None:
        self.processor.stop()
        self.thread.join(timeout)
        assert not self.thread.is_alive(), "the processor did not stop"


@pytest.fixture
def run_processor() -> Iterator[Callable[..., RunningProcessor]]:
    """Start processors with handlers of the test's choosing; each is stopped at teardown."""
    started: list[RunningProcessor] = []

    def start(url: str, *handlers: object, **options: object) -> RunningProcessor:
        options.setdefault("unregister_timeout", 0.2)  # teardown need not wait for a peer that never answers
        processor = TransactionProcessor(url, **options)  # type: ignore[arg-type]
        for handler in handlers:
            processor.add_handler(handler)
        running = RunningProcessor(processor, threading.Thread(daemon=True))

        def target() -> None:
            try:
                processor.start()
            except BaseException as error:
                running.errors.append(error)

        running.thread = threading.Thread(target=target, name="test-processor", daemon=True)
        running.thread.start()
        started.append(running)
        return running

    yield start
    for running in started:
        running.processor.stop()
        running.processor.stop()  # asked twice, as a second Ctrl-C: no wait for a peer that never answers
        running.thread.join(DEADLINE)


PROCESSOR_MODULES = {"xo-tp": "xo_tp.cli", "rps-tp": "rps_tp.cli", "chips-tp": "chips_tp.cli"}
"""Every processor command of the project, by name, and the module that runs it."""
_SETTINGS_VARIABLES = tuple(
    f"{name.replace('-', '_').upper()}_{setting}"
    for name in PROCESSOR_MODULES
    for setting in ("CONNECT", "READY_FILE", "METRICS")
)


@dataclass
class TpProcess:
    """A ``*-tp`` command running as a subprocess, its stderr going to a log file."""

    process: subprocess.Popen[bytes]
    log: Path

    def log_text(self) -> str:
        return self.log.read_text(encoding="utf-8", errors="replace")

    def wait_for_log(self, text: str, timeout: float = DEADLINE) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if text in (log := self.log_text()):
                return log
            time.sleep(0.02)
        raise AssertionError(f"{text!r} never appeared in the log:\n{self.log_text()}")

    def wait(self, timeout: float = DEADLINE) -> int:
        return self.process.wait(timeout)


def spawn_tp(
    directory: Path, *args: str, env: dict[str, str] | None = None, command: str = "xo-tp", number: int = 0
) -> TpProcess:
    """``xo-tp`` (or ``command``) with the given arguments, its SAWTOOTH_HOME and log in ``directory``.

    It never reads the machine's /etc/sawtooth, nor the processor settings of the environment running the tests.
    """
    home = directory / "sawtooth-home"
    (home / "etc").mkdir(parents=True, exist_ok=True)
    environment = {key: value for key, value in os.environ.items() if key not in _SETTINGS_VARIABLES}
    environment["SAWTOOTH_HOME"] = str(home)
    environment.update(env or {})
    log = directory / f"{command}-{number}.log"
    with log.open("wb") as stderr:
        process = subprocess.Popen(
            [sys.executable, "-m", PROCESSOR_MODULES[command], *args],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=stderr,
            env=environment,
        )
    return TpProcess(process, log)


def kill_tp(tp: TpProcess) -> None:
    if tp.process.poll() is None:
        tp.process.kill()
        tp.process.wait(DEADLINE)


@pytest.fixture
def start_tp(tmp_path: Path) -> Iterator[Callable[..., TpProcess]]:
    """Start ``xo-tp`` (or ``command``) with the given arguments (see :func:`spawn_tp`); each is killed at teardown."""
    processes: list[TpProcess] = []

    def start(*args: str, env: dict[str, str] | None = None, command: str = "xo-tp") -> TpProcess:
        processes.append(spawn_tp(tmp_path, *args, env=env, command=command, number=len(processes)))
        return processes[-1]

    yield start
    for tp in processes:
        kill_tp(tp)
