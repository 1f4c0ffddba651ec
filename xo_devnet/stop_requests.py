"""Stop signals (Ctrl-C, SIGTERM) that arrive before xo-devnet's event loop runs, kept until it does.

xo-devnet imports and sets up for a moment before its loop can take a signal; in that
moment a SIGTERM would kill it outright (exit -15, no stop lines) and a Ctrl-C would end
in a traceback. Caught from the start instead, either becomes the same clean stop as one
that comes later: the launcher reads what was caught once its own handlers are in place.
"""

from __future__ import annotations

import contextlib
import signal
from collections.abc import Callable, Iterator
from types import FrameType

STOP_SIGNALS: dict[signal.Signals, str] = {signal.SIGINT: "Ctrl-C", signal.SIGTERM: "SIGTERM"}
"""The signals that mean "stop cleanly", and how the stop line names each."""

Handler = Callable[[int, FrameType | None], object] | int | signal.Handlers | None


class StopRequests:
    """The stop signals received so far, by name, in order of arrival."""

    def __init__(self) -> None:
        self.names: list[str] = []

    def _record(self, signum: int, _frame: FrameType | None) -> None:
        self.names.append(STOP_SIGNALS[signal.Signals(signum)])

    @contextlib.contextmanager
    def caught(self) -> Iterator[StopRequests]:
        """Record the stop signals instead of dying of them while the block runs; the old handlers come back after.

        An event loop's own handlers may replace these inside the block (the launcher's do).
        """
        previous: dict[signal.Signals, Handler] = {signum: signal.getsignal(signum) for signum in STOP_SIGNALS}
        for signum in STOP_SIGNALS:
            signal.signal(signum, self._record)
        try:
            yield self
        finally:
            for signum, handler in previous.items():
                signal.signal(signum, handler)
