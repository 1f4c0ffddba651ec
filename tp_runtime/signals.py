"""SIGINT and SIGTERM as requests to stop, delivered to the event loop."""

import asyncio
import signal
from collections.abc import Callable, Iterator
from contextlib import contextmanager

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


@contextmanager
def stop_signals(loop: asyncio.AbstractEventLoop, on_signal: Callable[[signal.Signals], None]) -> Iterator[None]:
    """Route the stop signals to ``on_signal`` while the block runs.

    Only the main thread may own signal handlers; a processor run in another thread
    (as tests do) simply keeps the default handling and is stopped by calling ``stop()``.
    """
    installed = []
    for signum in STOP_SIGNALS:
        try:
            loop.add_signal_handler(signum, on_signal, signum)
        except (RuntimeError, ValueError):
            continue
        installed.append(signum)
    try:
        yield
    finally:
        for signum in installed:
            loop.remove_signal_handler(signum)
