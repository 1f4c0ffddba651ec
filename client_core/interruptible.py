"""Blocking waits on the main thread that Ctrl-C and SIGTERM always cut short, whichever thread the signal reached.

Python runs signal handlers on the main thread only, at its next bytecode. A
process-directed signal is usually delivered to the main thread, whose blocked
``queue.get()`` or ``Thread.join()`` it then interrupts; but the kernel may hand it
to any thread that does not block it (a follower's or a broker's thread), and then
the main thread sleeps on, deaf to Ctrl-C, until something else wakes it. Waiting
in slices of :data:`SLICE_SECONDS` bounds that delay, at the cost of a wake-up
the process does not notice.
"""

from __future__ import annotations

import queue
import threading
import time
from typing import TypeVar

SLICE_SECONDS = 0.25
"""The longest the main thread sleeps at once: the most a signal handled by another thread waits to be acted on."""

Item = TypeVar("Item")


def get(source: queue.Queue[Item], timeout: float | None = None) -> Item:
    """``source.get(timeout=timeout)`` (None: as long as it takes): the next item, or :class:`queue.Empty` in time."""
    deadline = None if timeout is None else time.monotonic() + max(timeout, 0.0)
    while True:
        left = SLICE_SECONDS if deadline is None else min(SLICE_SECONDS, max(deadline - time.monotonic(), 0.0))
        try:
            return source.get(timeout=left)
        except queue.Empty:
            if deadline is not None and time.monotonic() >= deadline:
                raise


def join(thread: threading.Thread, timeout: float | None = None) -> None:
    """``thread.join(timeout)`` (None: until it ends)."""
    deadline = None if timeout is None else time.monotonic() + max(timeout, 0.0)
    while thread.is_alive():
        left = SLICE_SECONDS if deadline is None else min(SLICE_SECONDS, deadline - time.monotonic())
        if left <= 0:
            return
        thread.join(left)
