"""The suite's own promise about the processes its tests start (tests/processes.py): Ctrl-C reaches those a test
stops with it, however the suite was started, and nothing a test started outlives it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.processes import Leftovers, descendants, sigint_at_default


@pytest.fixture
def sigint_ignored() -> Iterator[None]:
    """This process as a script's ``pytest &`` starts it: SIGINT ignored, which its children inherit."""
    before = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, before)


def test_a_process_started_for_ctrl_c_gets_it_even_when_the_suite_ignores_sigint(sigint_ignored) -> None:
    deaf = subprocess.Popen(["sleep", "30"])
    hearing = subprocess.Popen(["sleep", "30"], preexec_fn=sigint_at_default)  # noqa: PLW1509
    try:
        for process in (deaf, hearing):
            process.send_signal(signal.SIGINT)
        assert hearing.wait(5) == -signal.SIGINT
        with pytest.raises(subprocess.TimeoutExpired):
            deaf.wait(0.3)  # the convention the commands keep: an inherited ignored SIGINT stays ignored
    finally:
        deaf.kill()
        deaf.wait(5)


def test_what_a_test_leaves_running_is_killed_children_and_orphaned_grandchildren_alike() -> None:
    leftovers = Leftovers()
    parent = subprocess.Popen(["sh", "-c", "sleep 60 & sleep 60"])
    orphaning = subprocess.run(["sh", "-c", "sleep 60 >/dev/null 2>&1 & echo $!"], capture_output=True, text=True,
                               check=True)  # fmt: skip
    orphan = int(orphaning.stdout)  # its parent exited: re-parented to this process, the suite's subreaper
    deadline = time.monotonic() + 5
    while len(Path(f"/proc/{parent.pid}/task/{parent.pid}/children").read_text().split()) < 2:  # both its sleeps
        assert time.monotonic() < deadline
        time.sleep(0.01)
    assert orphan in {process.pid for process in descendants()}
    stopped = {process.pid for process in leftovers.stop()}
    assert {parent.pid, orphan} <= stopped and len(stopped) == 4
    assert not any(Path(f"/proc/{pid}").exists() for pid in stopped), "killed and reaped"
    parent.wait(5)


INNER_CONFTEST = """
import pytest
from tests.conftest import _no_process_outlives_its_test, pytest_configure  # the suite's own
"""
INNER_TEST = """
import subprocess, sys, time
def test_that_times_out(tmp_path):
    child = subprocess.Popen(["sh", "-c", "sleep 60 & echo $! >> {pids}; sleep 60"])
    with open({pids!r}, "a") as pids:
        pids.write(f"{{child.pid}}\\n")
    time.sleep(30)
"""


def test_a_test_that_times_out_leaves_nothing_running(tmp_path: Path) -> None:
    pids = tmp_path / "pids"
    (tmp_path / "conftest.py").write_text(INNER_CONFTEST)
    (tmp_path / "test_inner.py").write_text(INNER_TEST.format(pids=str(pids)))
    repository = Path(__file__).parents[1]
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--timeout", "2", "--rootdir", str(tmp_path),
         str(tmp_path / "test_inner.py")],
        cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(repository)}, capture_output=True, text=True, timeout=60,
        check=False,
    )  # fmt: skip
    assert done.returncode == 1 and "Timeout" in done.stdout, done.stdout + done.stderr
    started = [int(pid) for pid in pids.read_text().split()]
    assert len(started) == 2, started  # the child and its background sleep
    assert not [pid for pid in started if Path(f"/proc/{pid}").exists()], "left running after the time-out"
