"""Rate-limited logging: a condition that repeats is written once per interval, and its repeats as one count.

Whatever a client can make happen over and over (a malformed request, a flood of
connections that runs the process out of file descriptors, a request that hits a bug)
must not be able to flood the log: the first occurrence of a condition is written at
once, with its traceback if it has one; the repeats within the next ``interval`` seconds
are only counted, and one line at the end of the interval says how many there were
(written by a timer when an event loop runs, else with the next occurrence or
``flush``). A condition is named by a key of the caller's choosing, from a small fixed
set (never something a client chooses, so the table stays small).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Hashable
from dataclasses import dataclass

DEFAULT_INTERVAL = 10.0
"""Seconds during which repeats of a condition are counted rather than written."""


@dataclass
class _Window:
    """One condition's current interval: when it ends, and the repeats held back so far."""

    ends: float
    logger: logging.Logger
    level: int = logging.INFO
    message: str = ""
    args: tuple[object, ...] = ()
    held: int = 0
    timer: asyncio.TimerHandle | None = None


class LogLimiter:
    """Writes each condition at most once per interval, plus one line counting the repeats held back."""

    def __init__(self, *, interval: float = DEFAULT_INTERVAL, clock: Callable[[], float] = time.monotonic) -> None:
        self._interval = interval
        self._clock = clock
        self._windows: dict[Hashable, _Window] = {}

    def log(
        self,
        logger: logging.Logger,
        key: Hashable,
        level: int,
        message: str,
        *args: object,
        exc_info: BaseException | None = None,
    ) -> None:
        """Write ``message % args`` to ``logger`` unless condition ``key`` was written less than an interval ago.

        ``exc_info`` (a traceback) goes with the first line of an interval only.
        """
        now = self._clock()
        window = self._windows.get(key)
        if window is not None and now < window.ends:
            window.level, window.message, window.args = level, message, args
            window.held += 1
            if window.held == 1:
                window.timer = _call_later(window.ends - now, self._flush_one, key)
            return
        if window is not None:
            self._write_held(window)
        logger.log(level, message, *args, exc_info=exc_info)
        self._windows[key] = _Window(ends=now + self._interval, logger=logger)

    def flush(self) -> None:
        """Write the count of every condition whose repeats are held back now."""
        for key in list(self._windows):
            self._flush_one(key)

    def _flush_one(self, key: Hashable) -> None:
        window = self._windows.get(key)
        if window is not None:
            self._write_held(window)

    def _write_held(self, window: _Window) -> None:
        if window.timer is not None:
            window.timer.cancel()
            window.timer = None
        if not window.held:
            return
        held, window.held = window.held, 0
        window.logger.log(
            window.level,
            f"{window.message} (%d more like it in the last %g s)",
            *window.args,
            held,
            self._interval,
        )


def _call_later(delay: float, callback: Callable[[Hashable], None], key: Hashable) -> asyncio.TimerHandle | None:
    """A timer on the running event loop, or None outside one (the count then waits for the next line)."""
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        return None
    return loop.call_later(max(delay, 0.0), callback, key)
