"""The log limiter: a condition that repeats is written once per interval, and the rest become one line with a count."""

import asyncio
import logging

import pytest

from xo_core.log_limits import LogLimiter

LOGGER = logging.getLogger("tests.log_limits")


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def records(caplog):
    caplog.set_level(logging.DEBUG, logger=LOGGER.name)
    return lambda: [(record.levelname, record.getMessage()) for record in caplog.records if record.name == LOGGER.name]


def test_the_first_occurrence_is_written_at_once_and_the_repeats_are_counted_into_the_next_line(records):
    clock = Clock()
    limiter = LogLimiter(interval=10.0, clock=clock)
    for number in range(500):
        limiter.log(LOGGER, "bad-request", logging.INFO, "refused request %d", number)
    assert records() == [("INFO", "refused request 0")]
    clock.now += 10.0
    limiter.log(LOGGER, "bad-request", logging.INFO, "refused request %d", 500)
    assert records()[1:] == [
        ("INFO", "refused request 499 (499 more like it in the last 10 s)"),
        ("INFO", "refused request 500"),
    ]


def test_conditions_are_limited_separately(records):
    limiter = LogLimiter(interval=10.0, clock=Clock())
    for _ in range(3):
        limiter.log(LOGGER, "one", logging.INFO, "one")
        limiter.log(LOGGER, "two", logging.WARNING, "two")
    assert records() == [("INFO", "one"), ("WARNING", "two")]


def test_a_traceback_is_written_only_with_the_first_line(caplog):
    caplog.set_level(logging.DEBUG, logger=LOGGER.name)
    clock = Clock()
    limiter = LogLimiter(interval=1.0, clock=clock)
    error = RuntimeError("bug")
    for _ in range(3):
        limiter.log(LOGGER, "fault", logging.ERROR, "fault", exc_info=error)
    clock.now += 1.0
    limiter.flush()
    assert [record.exc_info is not None for record in caplog.records] == [True, False]
    assert caplog.records[1].getMessage() == "fault (2 more like it in the last 1 s)"


def test_on_an_event_loop_the_count_is_written_when_the_interval_ends_even_if_the_condition_stopped(records):
    async def scenario():
        limiter = LogLimiter(interval=0.05)
        for _ in range(20):
            limiter.log(LOGGER, "emfile", logging.WARNING, "cannot accept connections")
        assert len(records()) == 1
        await asyncio.sleep(0.15)

    asyncio.run(asyncio.wait_for(scenario(), 10))
    assert records() == [
        ("WARNING", "cannot accept connections"),
        ("WARNING", "cannot accept connections (19 more like it in the last 0.05 s)"),
    ]


def test_flush_writes_nothing_when_nothing_was_held_back(records):
    limiter = LogLimiter(interval=10.0, clock=Clock())
    limiter.log(LOGGER, "once", logging.INFO, "once")
    limiter.flush()
    assert records() == [("INFO", "once")]
