"""A signal the kernel handed to another thread still cuts the main thread's wait short, within a slice."""

from __future__ import annotations

import queue
import signal
import threading
import time
from collections.abc import Callable, Iterator

import pytest

from client_core import interruptible

BACKSTOP_SECONDS = 6.0
"""When the tests wake a wait that the signal failed to end, so that a regression fails instead of hanging."""
PROMPTLY = 3.0
"""A wait the signal ends must end well before the backstop (one slice, plus a busy machine's delays)."""


class Signalled(Exception):
    """What the test's handler raises, as Python's own raises KeyboardInterrupt for SIGINT."""


def signalled(_signum: int, _frame: object) -> None:
    raise Signalled


@pytest.fixture
def signal_on_another_thread() -> Iterator[threading.Event]:
    """SIGUSR1 raises :class:`Signalled` on the main thread; set the event to deliver one to an idle thread."""
    assert threading.current_thread() is threading.main_thread(), "signal handlers are set on the main thread"
    previous = signal.signal(signal.SIGUSR1, signalled)
    fire, idle = threading.Event(), threading.Event()
    bystander = threading.Thread(target=idle.wait, daemon=True)
    bystander.start()

    def deliver() -> None:
        if fire.wait(10):
            signal.pthread_kill(bystander.ident, signal.SIGUSR1)  # type: ignore[arg-type]

    sender = threading.Thread(target=deliver, daemon=True)
    sender.start()
    try:
        yield fire
    finally:
        fire.set()
        sender.join(5)
        idle.set()
        signal.signal(signal.SIGUSR1, previous)


def test_get_returns_an_item_put_while_it_waits_and_says_empty_when_the_time_is_up():
    items: queue.Queue[str] = queue.Queue()
    threading.Timer(0.3, items.put, ("move",)).start()
    assert interruptible.get(items) == "move"
    started = time.monotonic()
    with pytest.raises(queue.Empty):
        interruptible.get(items, 0.6)
    assert 0.6 <= time.monotonic() - started < 3
    with pytest.raises(queue.Empty):
        interruptible.get(items, 0)


def seconds_to_interrupt(fire: threading.Event, wait: Callable[[], object], unblock: Callable[[], object]) -> float:
    """How long ``wait()`` took to raise :class:`Signalled` once a signal went to another thread; ``unblock``
    ends the wait afterwards (or at the backstop, when the signal failed to)."""
    started = time.monotonic()
    fire.set()
    try:
        with pytest.raises(Signalled):
            wait()
    finally:
        unblock()
    return time.monotonic() - started


def test_a_signal_handled_on_another_thread_ends_an_endless_get(signal_on_another_thread):
    never: queue.Queue[str] = queue.Queue()
    backstop = threading.Timer(BACKSTOP_SECONDS, never.put, ("backstop",))
    backstop.start()
    took = seconds_to_interrupt(signal_on_another_thread, lambda: interruptible.get(never), backstop.cancel)
    assert took < PROMPTLY


def test_a_signal_handled_on_another_thread_ends_an_endless_join(signal_on_another_thread):
    ended = threading.Event()
    worker = threading.Thread(target=ended.wait, args=(BACKSTOP_SECONDS,), daemon=True)
    worker.start()
    took = seconds_to_interrupt(signal_on_another_thread, lambda: interruptible.join(worker), ended.set)
    assert took < PROMPTLY
    interruptible.join(worker, 5)
    assert not worker.is_alive()


def test_join_returns_when_its_time_is_up_with_the_thread_still_running():
    forever = threading.Event()
    worker = threading.Thread(target=forever.wait, daemon=True)
    worker.start()
    started = time.monotonic()
    interruptible.join(worker, 0.4)
    assert worker.is_alive() and 0.4 <= time.monotonic() - started < 3
    forever.set()
