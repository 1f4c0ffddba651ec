"""Another xo-devnet on the same data dir: where it serves, read from what it wrote there.

Two ledgers never share a data dir (storage holds an exclusive lock on it). A second
start on a running one is most often the Quick start's command 1 typed again, so
instead of a bare refusal it is told where the running ledger serves: once ready, a
devnet with a data dir writes its ready document there too (``serving.json``), and
removes it when it stops. The document counts only while its writer holds the lock,
and only if it is the writer's (its pid is the one the lock file names): one left
behind by a ``kill -9`` is never taken for a running ledger.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from xo_core.text import printable
from xo_devnet.storage import LOCK_NAME

SERVING_NAME = "serving.json"
"""The ready document a running devnet keeps in its data dir (see ``banner.ready_document``)."""

WAIT_SECONDS = 60.0
"""How long a second start waits for a devnet that holds the data dir but is still starting."""

_POLL_SECONDS = 0.2


@dataclass(frozen=True)
class RunningDevnet:
    """The devnet that holds a data dir: its pid and, once it serves, where."""

    data_dir: Path
    pid: int | None
    rest_url: str | None = None
    component_endpoint: str | None = None
    broker_url: str | None = None
    """Its embedded MQTT broker; None when it runs none (``--no-broker``)."""

    @property
    def serving(self) -> bool:
        """Whether the devnet has said where its REST API is, i.e. it is up and serving."""
        return self.rest_url is not None


def serving_path(data_dir: Path) -> Path:
    """The file in ``data_dir`` where a running devnet writes where it serves."""
    return data_dir / SERVING_NAME


def find_running(
    data_dir: Path, wait: float = WAIT_SECONDS, on_wait: Callable[[RunningDevnet], None] | None = None
) -> RunningDevnet | None:
    """The devnet holding ``data_dir``, once it serves (waiting at most ``wait`` s); None if none holds it.

    A holder still starting is waited for (``on_wait`` is told once); if it is not serving
    when the wait is over, it is returned without addresses.
    """
    deadline = time.monotonic() + wait
    told = False
    while True:
        if not is_held(data_dir):
            return None
        running = _read_running(data_dir)
        if running.serving or time.monotonic() >= deadline:
            return running
        if on_wait is not None and not told:
            on_wait(running)
            told = True
        time.sleep(min(_POLL_SECONDS, max(0.0, deadline - time.monotonic())))


def is_held(data_dir: Path) -> bool:
    """Whether a devnet holds the data dir's lock now (asked without creating anything)."""
    try:
        lock_fd = os.open(data_dir / LOCK_NAME, os.O_RDONLY)
    except OSError:
        return False
    try:
        fcntl.flock(lock_fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except OSError:
        return True
    finally:
        os.close(lock_fd)  # closing releases a shared lock taken just now
    return False


def describe(running: RunningDevnet) -> str:
    """What a second start prints: where the running devnet serves, and what to do."""
    who = f"pid {running.pid}" if running.pid is not None else "pid unknown"
    lines = [
        f"xo-devnet is already running on {printable(str(running.data_dir))} ({who}):",
        f"  REST API               {printable(running.rest_url or '')}",
        f"  component endpoint     {printable(running.component_endpoint or '')}",
    ]
    if running.broker_url is not None:
        lines.append(f"  MQTT broker            {printable(running.broker_url)}")
    lines.append("Play against it from another terminal, or stop it with Ctrl-C in its own terminal.")
    return "\n".join(lines)


def _read_running(data_dir: Path) -> RunningDevnet:
    pid = _lock_pid(data_dir)
    try:
        document = json.loads(serving_path(data_dir).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return RunningDevnet(data_dir, pid)
    if not isinstance(document, dict) or pid is None or document.get("pid") != pid:
        return RunningDevnet(data_dir, pid)
    rest_url, endpoint = document.get("rest_url"), document.get("component_endpoint")
    if not isinstance(rest_url, str) or not isinstance(endpoint, str):
        return RunningDevnet(data_dir, pid)
    broker = document.get("broker_url")
    return RunningDevnet(data_dir, pid, rest_url, endpoint, broker if isinstance(broker, str) else None)


def _lock_pid(data_dir: Path) -> int | None:
    """The pid the lock's holder wrote into the lock file when it took it."""
    with contextlib.suppress(OSError, ValueError):
        return int((data_dir / LOCK_NAME).read_text(encoding="ascii").strip())
    return None
