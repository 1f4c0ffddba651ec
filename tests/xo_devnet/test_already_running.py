"""A second xo-devnet on a data dir in use says where the running one serves and exits 0, starting nothing."""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from xo_devnet import cli
from xo_devnet.already_running import SERVING_NAME, RunningDevnet, describe, find_running, is_held
from xo_devnet.spawn import DevnetProcess
from xo_devnet.storage import LOCK_NAME

TIMEOUT = 60


@contextlib.contextmanager
def held(data_dir: Path, pid: int) -> Iterator[None]:
    """Hold the data dir's lock as a running devnet does, with ``pid`` written in it."""
    data_dir.mkdir(parents=True, exist_ok=True)
    lock_fd = os.open(data_dir / LOCK_NAME, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(lock_fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        os.write(lock_fd, f"{pid}\n".encode())
        yield
    finally:
        os.close(lock_fd)


def serving(data_dir: Path, pid: int) -> None:
    document = {"rest_url": "http://127.0.0.1:41233", "component_endpoint": "tcp://127.0.0.1:39017", "pid": pid}
    (data_dir / SERVING_NAME).write_text(json.dumps(document), encoding="utf-8")


def second_start(data_dir: Path, key_dir: Path) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "xo_devnet.cli", "--data-dir", str(data_dir), "--key-dir", str(key_dir),
               "--rest-api", "127.0.0.1:0", "--component-endpoint", "tcp://127.0.0.1:0",
               "--broker", "127.0.0.1:0"]  # fmt: skip
    return subprocess.run(command, capture_output=True, text=True, timeout=TIMEOUT, check=False)


def test_a_second_start_on_a_running_devnets_data_dir_names_where_it_serves_and_exits_0(tmp_path):
    data_dir = tmp_path / "chain"
    with DevnetProcess(["--data-dir", str(data_dir)]) as running:
        done = second_start(data_dir, running.key_dir)
        assert (done.returncode, done.stderr) == (0, "")
        assert done.stdout == (
            f"xo-devnet is already running on {data_dir} (pid {running.ready['pid']}):\n"
            f"  REST API               {running.rest_url}\n"
            f"  component endpoint     {running.component_endpoint}\n"
            f"  MQTT broker            {running.broker_url}\n"
            "Play against it from another terminal, or stop it with Ctrl-C in its own terminal.\n"
        )
        assert json.loads((data_dir / SERVING_NAME).read_text())["rest_url"] == running.rest_url
        assert running.process is not None and running.process.poll() is None, "the running devnet is untouched"
        assert running.stop() == 0
    assert not (data_dir / SERVING_NAME).exists(), "a stopped devnet leaves no serving file behind"


def test_no_lock_file_means_nothing_runs_and_nothing_is_created(tmp_path):
    assert find_running(tmp_path, wait=0) is None
    assert list(tmp_path.iterdir()) == []


def test_a_serving_file_without_a_holder_is_left_over_and_ignored(tmp_path):
    serving(tmp_path, pid=4242)
    (tmp_path / LOCK_NAME).write_text("4242\n")
    assert not is_held(tmp_path)
    assert find_running(tmp_path, wait=0) is None


def test_the_holders_serving_file_says_where_it_serves(tmp_path):
    with held(tmp_path, pid=4242):
        serving(tmp_path, pid=4242)
        assert find_running(tmp_path, wait=0) == RunningDevnet(
            tmp_path, 4242, "http://127.0.0.1:41233", "tcp://127.0.0.1:39017"
        )


@pytest.mark.parametrize("content", ["", "{", '{"pid": 4242}', '["not", "a", "document"]'])
def test_a_holder_that_has_not_said_where_it_serves_is_waited_for_then_reported_without_addresses(tmp_path, content):
    waited = []
    with held(tmp_path, pid=4242):
        (tmp_path / SERVING_NAME).write_text(content)
        running = find_running(tmp_path, wait=0.3, on_wait=waited.append)
    assert running == RunningDevnet(tmp_path, 4242)
    assert not running.serving
    assert waited == [running], "told once that it waits"


def test_a_serving_file_left_by_an_earlier_run_is_not_taken_for_the_holders(tmp_path):
    with held(tmp_path, pid=4242):
        serving(tmp_path, pid=1111)  # the pid of a devnet killed with -9 before this one started
        assert not find_running(tmp_path, wait=0).serving


def test_a_devnet_without_a_broker_is_described_without_one(tmp_path):
    with held(tmp_path, pid=4242):
        serving(tmp_path, pid=4242)
        running = find_running(tmp_path, wait=0)
    assert running is not None and running.broker_url is None
    assert "MQTT" not in describe(running)


def test_a_hostile_address_is_printed_escaped():
    shown = describe(RunningDevnet(Path("/data"), 7, "http://h\x1b[31m:1", "tcp://h:2"))
    assert "\x1b" not in shown
    assert "http://h\\x1b[31m:1" in shown


def test_a_holder_that_never_serves_is_still_a_refusal_with_exit_1(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(cli, "WAIT_SECONDS", 0.3)
    data_dir = tmp_path / "chain"
    argv = ["--data-dir", str(data_dir), "--key-dir", str(tmp_path / "keys"), "--no-tp",
            "--rest-api", "127.0.0.1:0", "--component-endpoint", "tcp://127.0.0.1:0",
               "--broker", "127.0.0.1:0"]  # fmt: skip
    with held(data_dir, pid=4242):
        assert cli.main(argv) == 1
    out, err = capsys.readouterr()
    assert out == ""
    assert err.splitlines() == [
        f"xo-devnet: another xo-devnet (pid 4242) is starting on {data_dir}; waiting for it to be ready"
        " (at most 0.3 s)",
        f"xo-devnet: data directory {data_dir} is in use by another xo-devnet (pid 4242), which is not serving yet",
    ]
