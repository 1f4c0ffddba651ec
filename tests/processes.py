"""The processes tests start: Ctrl-C reaches those a test stops with it, and none outlives its test.

Started from a script (``pytest &``, ``nohup pytest``, cron), the suite inherits SIGINT
ignored, and an ignored signal stays ignored across fork and exec: the commands keep that
Unix convention, so a command a test stops with Ctrl-C would never see it. Such a command
is started through :func:`sigint_at_default` (``preexec_fn``), as a shell starts a command
in the foreground.

Every test's processes are stopped when it ends, passed, failed or timed out (pytest-timeout
raises in the test, so teardown runs): :class:`Leftovers` notes the processes below the test
runner when the test starts and kills, with SIGKILL, every one that is there at its end and
was not before, children and grandchildren alike. The runner is made a child subreaper
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


def descendants(root: int | None = None) -> set[Process]:
    """Every process below ``root`` (this one), zombies included."""
    found: set[Process] = set()
    waiting = _children(root or os.getpid())
    while waiting:
        pid = waiting.pop()
        started = _started(pid)
        if started is not None:
            found.add(Process(pid, started))
            waiting += _children(pid)
    return found


class Leftovers:
    """The processes below this one when a test starts; :meth:`stop` kills those that were not, once it ended."""

    def __init__(self) -> None:
        self.before = descendants()

    def stop(self) -> list[Process]:
        """SIGKILL every process below this one that was not there before, then reap the dead among its children."""
        left = [process for process in descendants() if process not in self.before]
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
