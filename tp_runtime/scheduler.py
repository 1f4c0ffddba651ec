"""The handler thread: reads the validator's frames and runs every handler, each transaction in a greenlet.

Handlers are synchronous and block in their context calls, so they cannot run on the
event loop. A thread per transaction would do, but handing each reply to a different
thread costs a futex wake-up, a context switch and a fight for the GIL (about 50 us
of CPU per round trip on this class of machine), and a transaction makes four round
trips. Here one thread does all of it: it reads the socket, runs each
TP_PROCESS_REQUEST in a worker greenlet, and when a handler's context call sends a
request the greenlet switches back to this loop, which resumes whichever handler's reply comes in next
(about 1 us per switch). It sleeps only when there is nothing to do, so the hot path
never crosses a thread. Worker greenlets are reused, at most ``max_active`` of them:
on CPython 3.11+ every new greenlet maps fresh memory for its frames and unmaps it when
it dies, two system calls and a TLB flush on every core per transaction.

A handler that blocks outside its context calls (sleeps, slow I/O) holds up the other
handlers, not the event loop: the loop notices (:meth:`HandlerScheduler.stuck_for`)
and answers pings itself meanwhile.
"""

import contextlib
import heapq
import itertools
import logging
import os
import selectors
import threading
import time
from collections import deque
from collections.abc import Callable
from typing import Generic, TypeVar

from greenlet import GreenletExit, greenlet

from tp_runtime.connection import ValidatorConnection

LOGGER = logging.getLogger(__name__)
Job = TypeVar("Job")
Item = TypeVar("Item")
_current = threading.local()


class Waiter:
    """One handler's wait for one reply; resolved once, by the reply, a failure or its deadline."""

    __slots__ = ("_scheduler", "done", "handler", "outcome")

    def __init__(self, scheduler: "HandlerScheduler", handler: greenlet) -> None:
        self._scheduler = scheduler
        self.handler = handler
        self.done = False
        self.outcome: object = None

    def put(self, item: object, /) -> None:
        """Deliver the reply (or an exception to raise in the handler); safe from any thread."""
        self.outcome = item
        self._scheduler.resume(self)


class HandlerScheduler(Generic[Job]):
    """Runs ``work(job)`` per job in its own greenlet (at most ``max_active`` at once) on one thread.

    The thread also reads the attached connection and passes each frame to
    ``dispatch(connection, frame)``, which runs on this thread and usually submits
    jobs or resolves waiters right here, without any wake-up.
    """

    def __init__(
        self,
        work: Callable[[Job], None],
        dispatch: Callable[[ValidatorConnection, bytes], None],
        max_active: int,
        on_crash: Callable[[], None],
        name: str = "tp-handlers",
    ) -> None:
        if max_active < 1:
            raise ValueError(f"need room for at least one transaction, got {max_active}")
        self._work = work
        self._dispatch = dispatch
        self._max_active = max_active
        self._on_crash = on_crash
        # deques: appended from any thread, consumed by this one (both atomic in CPython)
        self._jobs: deque[Job] = deque()
        self._resumable: deque[Waiter] = deque()
        self._commands: deque[tuple[str, ValidatorConnection | None]] = deque()
        self._active = 0
        self._idle: list[greenlet] = []
        self._counts_lock = threading.Lock()
        self._submitted = 0
        self._finished = 0
        self._deadlines: list[tuple[float, int, Waiter]] = []
        self._order = itertools.count()
        self._busy_since = 0.0
        self._connection: ValidatorConnection | None = None
        self._hub: greenlet | None = None
        self._ident: int | None = None
        self._wake_read, self._wake_write = os.pipe()
        os.set_blocking(self._wake_read, False)
        os.set_blocking(self._wake_write, False)
        self._selector = selectors.DefaultSelector()
        self._selector.register(self._wake_read, selectors.EVENT_READ)
        self._thread = threading.Thread(target=self._main, name=name, daemon=True)
        self._thread.start()

    # -- any thread ----------------------------------------------------------------------------

    @staticmethod
    def current() -> "HandlerScheduler | None":
        """The scheduler whose handler greenlet is running right now, if any."""
        scheduler: HandlerScheduler | None = getattr(_current, "scheduler", None)
        if scheduler is None or greenlet.getcurrent() is scheduler._hub:
            return None
        return scheduler

    @property
    def in_flight(self) -> int:
        """Jobs submitted and not finished (waiting for a slot, or running)."""
        return self._submitted - self._finished

    def stuck_for(self) -> float:
        """Seconds the current handler has run without yielding (0 when none runs)."""
        started = self._busy_since
        return time.monotonic() - started if started else 0.0

    def submit(self, job: Job) -> None:
        """Queue ``job`` to run as soon as fewer than ``max_active`` jobs run; safe from any thread."""
        with self._counts_lock:
            self._submitted += 1
        self._post(self._jobs, job)

    def resume(self, waiter: Waiter) -> None:
        """Queue a waiter whose outcome is in, to be switched back into."""
        self._post(self._resumable, waiter)

    def attach(self, connection: ValidatorConnection) -> None:
        """Start reading ``connection`` (the one the loop just opened)."""
        self._post(self._commands, ("attach", connection))

    def detach(self, connection: ValidatorConnection) -> None:
        """Stop reading ``connection`` and close it, from this thread, which may be using it."""
        self._post(self._commands, ("detach", connection))

    def stop(self, timeout: float) -> bool:
        """End the thread (closing any attached connection); False if it is stuck in a handler."""
        self._post(self._commands, ("stop", None))
        self._thread.join(timeout)
        if self._thread.is_alive():
            return False
        os.close(self._wake_read)  # only now: a late wake() must never write to a reused descriptor
        os.close(self._wake_write)
        return True

    def _post(self, queue: deque[Item], item: Item) -> None:
        queue.append(item)
        if threading.get_ident() != self._ident:
            self.wake()

    def wake(self) -> None:
        """Make the thread look at its queues and its socket (it may be asleep)."""
        with contextlib.suppress(BlockingIOError):  # the pipe is full of wake-ups already
            os.write(self._wake_write, b"\0")

    # -- handler greenlets ------------------------------------------------------------------------

    def wait(self, waiter: Waiter, timeout: float) -> object:
        """Suspend the calling handler until ``waiter`` is resolved; raises ``TimeoutError`` after ``timeout`` s."""
        assert self._hub is not None
        heapq.heappush(self._deadlines, (time.monotonic() + timeout, next(self._order), waiter))
        return self._hub.switch()

    # -- the thread --------------------------------------------------------------------------------

    def _main(self) -> None:
        self._hub = greenlet.getcurrent()
        self._ident = threading.get_ident()
        _current.scheduler = self
        try:
            while self._obey_commands():
                self._run_ready()
                read = self._read()
                expired = self._expire()
                if read or expired or self._resumable or (self._jobs and self._active < self._max_active):
                    continue
                self._sleep()
        except BaseException:  # a bug here, not in a handler: without this thread the processor is dead
            LOGGER.critical("the handler thread failed", exc_info=True)
            self._on_crash()
        finally:
            self._idle.clear()  # idle workers end here, on their own thread, rather than whenever they are collected
            if self._connection is not None:
                self._connection.close()
            self._selector.close()

    def _obey_commands(self) -> bool:
        while self._commands:
            command, connection = self._commands.popleft()
            if command == "stop":
                return False
            if command == "attach":
                assert connection is not None
                self._connection = connection
                connection.set_reader(self.wake)
                self._selector.register(connection.fd, selectors.EVENT_READ)
            elif connection is self._connection:
                assert connection is not None
                self._selector.unregister(connection.fd)
                self._connection = None
                connection.close()
        return True

    def _run_ready(self) -> None:
        resumable = self._resumable
        for _ in range(len(resumable)):
            waiter = resumable.popleft()
            if waiter.done:
                continue  # it timed out already: this reply came too late
            waiter.done = True
            self._switch(waiter.handler, waiter.outcome)
        jobs = self._jobs
        while jobs and self._active < self._max_active:
            self._active += 1
            worker = self._idle.pop() if self._idle else greenlet(self._serve)
            self._switch(worker, jobs.popleft())

    def _switch(self, handler: greenlet, value: object) -> None:
        self._busy_since = time.monotonic()
        try:
            if isinstance(value, BaseException):
                handler.throw(value)
            else:
                handler.switch(value)
        finally:
            self._busy_since = 0.0

    def _serve(self, job: Job) -> None:
        """A worker greenlet's life: run the job it is given, then wait idle for the next one."""
        assert self._hub is not None
        worker = greenlet.getcurrent()
        with contextlib.suppress(GreenletExit):  # abandoned (running or idle) as the thread ends
            while True:
                self._run(job)
                self._idle.append(worker)
                job = self._hub.switch()

    def _run(self, job: Job) -> None:
        try:
            self._work(job)
        except GreenletExit:
            raise
        except BaseException:  # the scheduler outlives any job
            LOGGER.exception("job failed")
        finally:
            self._active -= 1
            with self._counts_lock:
                self._finished += 1

    def _read(self) -> bool:
        connection = self._connection
        if connection is None:
            return False
        frames = connection.receive()
        for frame in frames:
            self._dispatch(connection, frame)
        return bool(frames)

    def _expire(self) -> bool:
        now = time.monotonic()
        deadlines = self._deadlines
        expired = False
        while deadlines and (deadlines[0][2].done or deadlines[0][0] <= now):
            waiter = heapq.heappop(deadlines)[2]
            if not waiter.done:
                waiter.done = True
                expired = True
                self._switch(waiter.handler, TimeoutError())
        return expired

    def _sleep(self) -> None:
        timeout = max(self._deadlines[0][0] - time.monotonic(), 0.0) if self._deadlines else None
        for key, _ in self._selector.select(timeout):
            if key.fd == self._wake_read:
                with contextlib.suppress(BlockingIOError):
                    while os.read(self._wake_read, 4096):
                        pass
