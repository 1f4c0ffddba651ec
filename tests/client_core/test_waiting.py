"""Waiting for a batch: decided statuses end the wait, and a person at a terminal sees it running."""

import io
import math
import threading
import time

from client_core import waiting
from client_core.rest import RestClient
from client_core.waiting import Progress, wait_for_batch

BATCH = "c" * 128


class Terminal(io.StringIO):
    def isatty(self):
        return True


def settle_later(fake, status, delay):
    def settle():
        with fake.lock:
            fake.statuses[BATCH] = (status, [])

    timer = threading.Timer(delay, settle)
    timer.start()
    return timer


def settle_when(fake, status, ready):
    """Give the batch ``status`` as soon as ``ready()`` is true (looked at every 10 ms, for 10 s at most)."""

    def settle():
        deadline = time.monotonic() + 10
        while not ready() and time.monotonic() < deadline:
            time.sleep(0.01)
        with fake.lock:
            fake.statuses[BATCH] = (status, [])

    thread = threading.Thread(target=settle, daemon=True)
    thread.start()
    return thread


def test_a_committed_batch_ends_the_wait_at_once(fake):
    fake.statuses[BATCH] = ("COMMITTED", [])
    with RestClient(fake.url) as client:
        assert wait_for_batch(client, BATCH, 30).status == "COMMITTED"
    assert len(fake.gets("/batch_statuses")) == 1


def test_an_invalid_batch_comes_back_with_the_validators_reasons(fake):
    fake.statuses[BATCH] = ("INVALID", [{"id": "t1", "message": "Invalid action: Game already exists."}])
    with RestClient(fake.url) as client:
        outcome = wait_for_batch(client, BATCH, 30)
    assert outcome.status == "INVALID"
    assert outcome.reasons == ["Invalid action: Game already exists."]


def test_the_last_status_is_returned_when_time_runs_out(fake):
    fake.statuses[BATCH] = ("PENDING", [])
    with RestClient(fake.url) as client:
        assert wait_for_batch(client, BATCH, 0.2).status == "PENDING"


def test_a_batch_unknown_for_unknown_seconds_ends_the_wait_before_its_limit(fake, monkeypatch):
    monkeypatch.setattr(waiting, "UNKNOWN_SECONDS", 0.15)
    started = time.monotonic()
    with RestClient(fake.url) as client:
        assert wait_for_batch(client, BATCH, 30).status == "UNKNOWN"
    assert time.monotonic() - started < 10


def test_unknown_then_pending_for_longer_than_unknown_seconds_is_still_waited_for(fake, monkeypatch):
    monkeypatch.setattr(waiting, "UNKNOWN_SECONDS", 1.0)
    monkeypatch.setattr(waiting, "MAX_PAUSE", 0.1)  # asked at least every 0.1 s: the commit is seen soon after
    fake.hold_pending = False
    # UNKNOWN until the second request (the first answer was UNKNOWN), then PENDING for longer than UNKNOWN_SECONDS
    settle_when(fake, "PENDING", lambda: len(fake.gets("/batch_statuses")) >= 2)
    committed = settle_later(fake, "COMMITTED", 1.4)
    started = time.monotonic()
    try:
        with RestClient(fake.url) as client:
            assert wait_for_batch(client, BATCH, 30).status == "COMMITTED"
    finally:
        committed.cancel()
    assert time.monotonic() - started > waiting.UNKNOWN_SECONDS


def test_a_terminal_sees_elapsed_time_and_the_line_is_cleared_at_the_end(fake):
    fake.statuses[BATCH] = ("PENDING", [])
    terminal = Terminal()
    seen = f"\rwaiting for batch {BATCH[:16]}...: PENDING, 1 s"
    settle_when(fake, "COMMITTED", lambda: seen in terminal.getvalue())
    with RestClient(fake.url) as client:
        outcome = wait_for_batch(client, BATCH, math.inf, Progress(BATCH, math.inf, terminal))
    assert outcome.status == "COMMITTED"
    shown = terminal.getvalue()
    assert seen in shown
    assert shown.endswith("\r\033[K")


def test_a_limited_wait_on_a_terminal_shows_the_limit(fake):
    fake.statuses[BATCH] = ("PENDING", [])
    fake.hold_pending = False
    terminal = Terminal()
    settle_when(fake, "COMMITTED", lambda: "of 1.2 s" in terminal.getvalue())  # the line is all this test is for
    with RestClient(fake.url) as client:
        wait_for_batch(client, BATCH, 1.2, Progress(BATCH, 1.2, terminal))
    assert "of 1.2 s" in terminal.getvalue()


def test_off_a_terminal_only_an_unlimited_wait_says_so_once(fake):
    fake.statuses[BATCH] = ("COMMITTED", [])
    quiet, unlimited = io.StringIO(), io.StringIO()
    with RestClient(fake.url) as client:
        wait_for_batch(client, BATCH, 10, Progress(BATCH, 10, quiet))
        wait_for_batch(client, BATCH, math.inf, Progress(BATCH, math.inf, unlimited))
    assert quiet.getvalue() == ""
    assert unlimited.getvalue() == f"waiting for batch {BATCH[:16]}... to commit (Ctrl-C stops waiting)\n"
