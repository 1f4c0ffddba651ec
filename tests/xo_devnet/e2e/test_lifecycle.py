"""xo-devnet as a process: clean stops, sidecars that come back on their own, --no-tp, one-line startup errors,
and a banner whose commands work as printed."""

import json
import os
import re
import shlex
import signal
import socket
import subprocess
import sys
import time
import urllib.request

import pytest

from xo_client.transactions import make_xo_transaction
from xo_core.batches import make_batch, make_batch_list
from xo_core.signing import Signer
from xo_devnet.launcher import XO_TP


def gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
        return stat.read().rsplit(")", 1)[1].split()[0] == "Z"


def wait_until(condition, seconds: float = 30.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return condition()


def submit_create(devnet, name: str) -> str:
    signer = Signer.generate()
    batch = make_batch(signer, [make_xo_transaction(signer, name, "create")])
    headers = {"Content-Type": "application/octet-stream"}
    request = urllib.request.Request(f"{devnet.rest_url}/batches", data=make_batch_list([batch]), headers=headers)
    with urllib.request.urlopen(request, timeout=60) as response:
        assert response.status == 202
    return batch.header_signature


@pytest.mark.parametrize("stop_signal", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_a_stop_signal_ends_devnet_and_its_processors_with_exit_code_0(start_devnet, stop_signal):
    devnet = start_devnet("--ephemeral", "-v")
    processors = {processor["command"]: processor["pid"] for processor in devnet.ready["processors"]}
    assert sorted(processors) == ["chips-tp", "rps-tp", "xo-tp"]
    assert all(processor["registered"] for processor in devnet.ready["processors"])
    devnet.process.send_signal(stop_signal)
    assert devnet.process.wait(30) == 0
    assert wait_until(lambda: all(gone(pid) for pid in processors.values()), 10)
    assert not devnet.ready_file.exists()
    assert devnet.log_path.read_text().count("unregistered from the validator") == len(processors)


@pytest.mark.parametrize(("stop_signal", "named"), [(signal.SIGINT, "Ctrl-C"), (signal.SIGTERM, "SIGTERM")])
def test_it_prints_only_the_banner_then_that_it_stops_and_has_stopped(start_devnet, tmp_path, stop_signal, named):
    devnet = start_devnet("--data-dir", str(tmp_path / "chain"))
    devnet.process.send_signal(stop_signal)
    assert devnet.process.wait(30) == 0
    lines = devnet.log_path.read_text().splitlines()
    assert lines[0] == "xo-devnet 1.0.0 is ready"
    assert lines[-3:] == [
        "Stop with Ctrl-C.",
        f"{named}: stopping xo-devnet",
        f"xo-devnet stopped; the chain is kept in {tmp_path / 'chain'}",
    ]
    assert not [line for line in lines if line.startswith("[")], "no log line unless -v"
    if named == "Ctrl-C":
        assert "SIGTERM" not in "\n".join(lines)


def catches(pid: int, signum: int) -> bool:
    """Whether the process has a handler for ``signum`` (its SigCgt mask): the first moment it can take it."""
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as status:
            caught = next(line for line in status if line.startswith("SigCgt:")).split()[1]
    except (FileNotFoundError, StopIteration):
        return False
    return bool(int(caught, 16) >> (signum - 1) & 1)


STARTUP_MOMENTS = {
    "its-handler-is-in": None,
    "ledger-up": "ledger ready:",
    "processors-spawned": "started chips-tp",
    "processor-connected": "connected to the validator",
    "processor-counted-in": "registered xo 1.0 (namespaces",
}
"""Moments of startup, each the first log line that marks it (None: as soon as xo-devnet catches SIGTERM)."""


@pytest.mark.skipif(not os.path.exists("/proc/self/status"), reason="reads a process's signal mask in /proc")
@pytest.mark.parametrize("marker", list(STARTUP_MOMENTS.values()), ids=list(STARTUP_MOMENTS))
def test_a_stop_signal_during_startup_ends_devnet_and_its_processors_cleanly(tmp_path, marker):
    log_path = tmp_path / "devnet.log"
    ready_file = tmp_path / "ready.json"
    command = [sys.executable, "-m", "xo_devnet.cli", "--ephemeral", "-v", "--key-dir", str(tmp_path / "keys"),
               "--rest-api", "127.0.0.1:0", "--component-endpoint", "tcp://127.0.0.1:0", "--broker", "127.0.0.1:0",
               "--ready-file", str(ready_file)]  # fmt: skip
    with log_path.open("wb") as log:
        process = subprocess.Popen(command, stdout=log, stderr=log)
    try:
        if marker is None:
            assert wait_until(lambda: catches(process.pid, signal.SIGTERM) or process.poll() is not None)
        else:
            assert wait_until(lambda: marker in log_path.read_text() or process.poll() is not None)
        process.send_signal(signal.SIGTERM)
        assert process.wait(30) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    text = log_path.read_text()
    assert "SIGTERM: stopping xo-devnet\n" in text
    assert text.endswith("xo-devnet stopped; nothing was kept (ephemeral)\n")
    assert "Traceback" not in text
    assert "never retrieved" not in text
    assert not ready_file.exists()
    if marker is None:
        assert "is ready" not in text, "stopped before it was ready, it announces nothing"
    pids = [int(pid) for pid in re.findall(r"started \S+ \(pid (\d+)\)", text)]
    assert wait_until(lambda: all(gone(pid) for pid in pids), 10)
    counted_in = set(re.findall(r"processor (\w+) registered ", text))
    assert text.count("unregistered from the validator (OK)") == len(counted_in), "every processor counted in left"


def test_a_ready_file_another_devnet_wrote_since_is_left_alone_on_stop(start_devnet):
    devnet = start_devnet()
    theirs = json.dumps(dict(devnet.ready, pid=devnet.process.pid + 1))
    devnet.ready_file.write_text(theirs)
    assert devnet.stop() == 0
    assert devnet.ready_file.read_text() == theirs


def test_the_commands_the_banner_prints_play_on_this_devnet_with_its_keys(start_devnet, tmp_path):
    devnet = start_devnet(key_dir=tmp_path / "devnet keys")
    banner = devnet.log_path.read_text().split("Play in another terminal:\n", 1)[1].split("Stop with", 1)[0]
    commands = [shlex.split(line) for line in banner.splitlines()]
    assert [command[:2] for command in commands] == [["xo", "create"], ["xo", "take"], ["xo", "take"], ["xo", "show"]]
    environment = {key: value for key, value in os.environ.items() if not key.startswith("XO_")}
    environment["HOME"] = str(tmp_path / "empty home")
    for command in commands:
        result = subprocess.run(
            [sys.executable, "-m", "xo_cli.main", *command[1:]],
            capture_output=True, text=True, timeout=120, check=False, env=environment,
        )  # fmt: skip
        assert result.returncode == 0, (command, result.stderr)
    assert "game1" in result.stdout


def test_a_killed_processor_is_restarted_on_its_own_and_batches_still_commit(start_devnet, fetch_json):
    devnet = start_devnet()
    pids = {processor["command"]: processor["pid"] for processor in devnet.ready["processors"]}
    os.kill(pids["xo-tp"], signal.SIGKILL)
    assert wait_until(lambda: f"xo-tp (pid {pids['xo-tp']}) exited" in devnet.log_path.read_text())
    batch_id = submit_create(devnet, "after-restart")
    (status,) = fetch_json(f"{devnet.rest_url}/batch_statuses?id={batch_id}&wait=60")["data"]
    assert status["status"] == "COMMITTED"
    assert not gone(pids["rps-tp"]), "the other sidecar runs on"
    assert "rps-tp (pid" not in devnet.log_path.read_text()


def test_without_the_sidecar_batches_wait_for_a_processor(start_devnet, fetch_json):
    devnet = start_devnet("--ephemeral", "--no-tp")
    assert devnet.ready["processors"] == []
    assert fetch_json(f"{devnet.rest_url}/status")["data"]["processors"] == []
    batch_id = submit_create(devnet, "waits")
    (status,) = fetch_json(f"{devnet.rest_url}/batch_statuses?id={batch_id}&wait=1")["data"]
    assert status["status"] == "PENDING"
    command = XO_TP.command(devnet.component_endpoint, 0)
    processor = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        (status,) = fetch_json(f"{devnet.rest_url}/batch_statuses?id={batch_id}&wait=60")["data"]
        assert status["status"] == "COMMITTED"
    finally:
        processor.terminate()
        processor.wait(30)


def run_devnet(tmp_path, *args: str) -> subprocess.CompletedProcess:
    command = [sys.executable, "-m", "xo_devnet.cli", "--ephemeral", "--key-dir", str(tmp_path / "keys"),
               "--broker", "127.0.0.1:0", *args]  # fmt: skip
    return subprocess.run(command, capture_output=True, text=True, timeout=60, check=False)


@pytest.fixture
def busy_port():
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        yield taken.getsockname()[1]


def test_a_rest_port_in_use_is_a_one_line_error_and_exit_code_1(tmp_path, busy_port):
    result = run_devnet(tmp_path, "--rest-api", f"127.0.0.1:{busy_port}", "--component-endpoint", "tcp://127.0.0.1:0")
    assert result.returncode == 1
    assert result.stderr.startswith(f"xo-devnet: cannot serve the REST API on 127.0.0.1:{busy_port}")
    assert "Traceback" not in result.stderr
    assert result.stdout == ""


def test_a_component_endpoint_in_use_is_a_one_line_error_and_exit_code_1(tmp_path, busy_port):
    result = run_devnet(tmp_path, "--rest-api", "127.0.0.1:0", "--component-endpoint", f"tcp://127.0.0.1:{busy_port}")
    assert result.returncode == 1
    assert "xo-devnet: cannot start the ledger" in result.stderr
    assert "Traceback" not in result.stderr


def test_a_broker_port_in_use_is_a_one_line_error_and_exit_code_1(tmp_path, busy_port):
    result = run_devnet(tmp_path, "--rest-api", "127.0.0.1:0", "--component-endpoint", "tcp://127.0.0.1:0",
                        "--broker", f"127.0.0.1:{busy_port}")  # fmt: skip
    assert result.returncode == 1
    assert result.stderr.startswith(f"xo-devnet: cannot serve the MQTT broker on 127.0.0.1:{busy_port}: ")
    assert result.stderr.rstrip().endswith("(--no-broker runs none)")
    assert "Traceback" not in result.stderr


def test_an_unusable_data_dir_is_a_one_line_error(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    command = [
        sys.executable, "-m", "xo_devnet.cli", "--data-dir", str(blocker / "chain"), "--key-dir", str(tmp_path / "k"),
        "--rest-api", "127.0.0.1:0", "--component-endpoint", "tcp://127.0.0.1:0", "--broker", "127.0.0.1:0",
    ]  # fmt: skip
    result = subprocess.run(command, capture_output=True, text=True, timeout=60, check=False)
    assert result.returncode == 1
    assert "xo-devnet: cannot create the data dir" in result.stderr
    assert "Traceback" not in result.stderr
