"""The handler thread: jobs as greenlets that wait for replies without blocking each other."""

import os
import threading
import time
from collections import deque

import pytest
from greenlet import greenlet

from tp_runtime.scheduler import HandlerScheduler, Waiter

DEADLINE = 10.0


class StubConnection:
    """Just enough of a ValidatorConnection: frames handed in by the test, a pipe as its descriptor."""

    def __init__(self) -> None:
        self.fd, self._write = os.pipe()
        self._frames: deque[bytes] = deque()
        self.closed = False

    def set_reader(self, on_input) -> None:
        self.reader = threading.get_ident()

    def arrive(self, frame: bytes) -> None:
        self._frames.append(frame)
        os.write(self._write, b"!")

    def receive(self) -> list[bytes]:
        frames = list(self._frames)
        self._frames.clear()
        if frames:
            os.read(self.fd, 4096)
        return frames

    def close(self) -> None:
        self.closed = True
        os.close(self.fd)
        os.close(self._write)


def wait_until(condition, timeout: float = DEADLINE) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "condition never became true"
        time.sleep(0.005)


class Jobs:
    """Jobs that each wait for one reply, recording the order in which they finish."""

    def __init__(self, max_active: int = 4, timeout: float = DEADLINE, dispatch=None) -> None:
        self.waiters: dict[str, Waiter] = {}
        self.finished: list[tuple[str, object]] = []
        self.crashed = threading.Event()
        self.timeout = timeout
        self.scheduler = HandlerScheduler(
            self.work, dispatch or (lambda connection, frame: None), max_active, self.crashed.set
        )

    def work(self, name: str) -> None:
        if name.startswith("sleep"):
            time.sleep(0.3)
            self.finished.append((name, None))
            return
        assert HandlerScheduler.current() is self.scheduler
        waiter = Waiter(self.scheduler, greenlet.getcurrent())
        self.waiters[name] = waiter
        try:
            self.finished.append((name, self.scheduler.wait(waiter, self.timeout)))
        except TimeoutError:
            self.finished.append((name, "timed out"))


@pytest.fixture
def jobs():
    made: list[Jobs] = []

    def make(**options) -> Jobs:
        made.append(Jobs(**options))
        return made[-1]

    yield make
    for each in made:
        assert each.scheduler.stop(DEADLINE)


def test_jobs_wait_side_by_side_and_resume_in_the_order_their_replies_come(jobs):
    running = jobs()
    running.scheduler.submit("first")
    running.scheduler.submit("second")
    wait_until(lambda: len(running.waiters) == 2)

    running.waiters["second"].put("reply 2")
    running.waiters["first"].put("reply 1")

    wait_until(lambda: len(running.finished) == 2)
    assert running.finished == [("second", "reply 2"), ("first", "reply 1")]
    assert running.scheduler.in_flight == 0


def test_no_more_than_max_active_jobs_run_at_once(jobs):
    running = jobs(max_active=1)
    running.scheduler.submit("first")
    running.scheduler.submit("second")
    wait_until(lambda: "first" in running.waiters)
    time.sleep(0.05)

    assert "second" not in running.waiters
    assert running.scheduler.in_flight == 2
    running.waiters["first"].put("done")
    wait_until(lambda: "second" in running.waiters)


def test_a_wait_times_out_and_a_late_reply_is_ignored(jobs):
    running = jobs(timeout=0.1)
    running.scheduler.submit("slow")
    wait_until(lambda: running.finished)

    running.waiters["slow"].put("too late")
    time.sleep(0.05)

    assert running.finished == [("slow", "timed out")]


def test_an_exception_put_into_a_waiter_is_raised_in_its_job(jobs):
    running = jobs()
    running.scheduler.submit("doomed")
    wait_until(lambda: "doomed" in running.waiters)

    running.waiters["doomed"].put(TimeoutError("from outside"))

    wait_until(lambda: running.finished)
    assert running.finished == [("doomed", "timed out")]


def test_a_job_that_blocks_shows_as_stuck(jobs):
    running = jobs()
    assert running.scheduler.stuck_for() == 0.0

    running.scheduler.submit("sleeper")
    wait_until(lambda: running.scheduler.stuck_for() > 0.1)
    wait_until(lambda: running.finished)

    assert running.scheduler.stuck_for() == 0.0


def test_frames_of_the_attached_connection_are_dispatched_on_the_handler_thread(jobs):
    seen: list[tuple[bytes, int]] = []
    running = jobs(dispatch=lambda connection, frame: seen.append((frame, threading.get_ident())))
    connection = StubConnection()
    running.scheduler.attach(connection)

    connection.arrive(b"one")
    connection.arrive(b"two")
    wait_until(lambda: len(seen) == 2)

    assert [frame for frame, _ in seen] == [b"one", b"two"]
    assert {thread for _, thread in seen} == {connection.reader}
    assert connection.reader != threading.get_ident()
    running.scheduler.detach(connection)
    wait_until(lambda: connection.closed)


def test_a_failure_of_the_thread_itself_is_reported(jobs):
    def broken(connection, frame):
        raise RuntimeError("bug")

    running = jobs(dispatch=broken)
    connection = StubConnection()
    running.scheduler.attach(connection)

    connection.arrive(b"boom")

    assert running.crashed.wait(DEADLINE)


def test_outside_a_job_there_is_no_current_scheduler():
    assert HandlerScheduler.current() is None
