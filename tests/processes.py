"""The processes tests start: Ctrl-C reaches those a test stops with it, and none outlives its test.

Started from a script (``pytest &``, ``nohup pytest``, cron), the suite inherits SIGINT
ignored, and an ignored signal stays ignored across fork and exec: the commands keep that
Unix convention, so a command a test stops with Ctrl-C would never see it. Such a command
is started through :func:`sigint_at_default` (``preexec_fn``), as a shell starts a command
in the foreground.

Every test's processes are stopped when it ends, passed, failed or timed out (pytest-timeout
raises in the test, so teardown runs): :class:`Leftovers` notes the test runner's children
when the test starts and kills, with SIGKILL, every child that is there at its end and was
not before, with all its children and grandchildren. The runner is made a child subreaper
(Linux's ``PR_SET_CHILD_SUBREAPER``), so a grandchild whose parent died is re-parented to it
rather than to init, and is still found.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import time
from pathlib import Path
from typing import Final, NamedTuple

PR_SET_CHILD_SUBREAPER: Final = 36
#: How long the end of a test waits for the processes it killed to be gone.
REAP_SECONDS: Final = 2.0


def sigint_at_default() -> None:
    """In the child, before exec: SIGINT at its default action, whatever the test runner inherited."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def become_subreaper() -> bool:
    """Have orphaned descendants re-parented to this process (Linux); whether it could."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


class Process(NamedTuple):
    """A process as /proc names it: its id and its start time (ticks since boot), so a reused id is not mistaken."""

    pid: int
    started: int


def _children(pid: int) -> list[int]:
    found: list[int] = []
    with contextlib.suppress(OSError):
        for task in Path(f"/proc/{pid}/task").iterdir():
            with contextlib.suppress(OSError):
                found += [int(child) for child in (task / "children").read_text().split()]
    return found


def _started(pid: int) -> int | None:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return int(stat[stat.rindex(")") + 2 :].split()[19])


def _processes(pids: list[int]) -> list[Process]:
    return [Process(pid, started) for pid in pids if (started := _started(pid)) is not None]


def descendants(roots: list[Process] | None = None) -> set[Process]:
    """``roots`` (else this process's children) and every process below them, zombies included."""
    found: set[Process] = set()
    waiting = list(roots) if roots is not None else _processes(_children(os.getpid()))
    while waiting:
        process = waiting.pop()
        found.add(process)
        waiting += _processes(_children(process.pid))
    return found


class Leftovers:
    """This process's children when a test starts; :meth:`stop` kills, once it ended, every child that is new and
    all below it. Below a child that was there before (a module's ledger, a session's browser) is that child's
    business: it may start processes of its own during a test (the processors of a ledger, a browser's renderers)."""

    def __init__(self) -> None:
        self.before = set(_processes(_children(os.getpid())))

    def stop(self) -> list[Process]:
        """SIGKILL every process a new child heads (the child too), then reap the dead among this one's children."""
        new = [child for child in _processes(_children(os.getpid())) if child not in self.before]
        left = sorted(descendants(new))
        for process in left:
            if _started(process.pid) == process.started:
                with contextlib.suppress(OSError):
                    os.kill(process.pid, signal.SIGKILL)
        unreaped = [process.pid for process in left]
        deadline = time.monotonic() + REAP_SECONDS
        while unreaped and time.monotonic() < deadline:
            for pid in list(unreaped):
                try:
                    if os.waitpid(pid, os.WNOHANG)[0] != 0:
                        unreaped.remove(pid)
                except ChildProcessError:  # not (yet) this process's child: its parent reaps it, or hands it over
                    if not Path(f"/proc/{pid}").exists():
                        unreaped.remove(pid)
            if unreaped:
                time.sleep(0.01)
        return left
