"""The MQTT broker's process: it serves the sockets xo-devnet bound and hands it, and stops cleanly on a signal."""

from __future__ import annotations

import signal
import socket
import subprocess
import sys
from collections.abc import Iterator

import pytest

from client_core.broker import BrokerAddress
from tests.mqtt_clients import alice_and_bob
from xo_devnet import broker_process, sidecar
from xo_devnet.broker_process import BACKLOG, bind, broker_sidecar, broker_url

SECONDS = 10.0


@pytest.fixture
def listeners() -> Iterator[list[socket.socket]]:
    bound = bind("127.0.0.1", 0)
    yield bound
    for listener in bound:
        listener.close()


def child(listeners: list[socket.socket], *flags: str) -> subprocess.Popen[str]:
    """The broker's process as xo-devnet runs it, on this test's sockets."""
    fds = [listener.fileno() for listener in listeners]
    command = [sys.executable, "-m", broker_process.MODULE, *(f"--fd={fd}" for fd in fds), *flags]
    return subprocess.Popen(command, pass_fds=fds, stderr=subprocess.PIPE, text=True)


def test_the_sidecar_runs_this_module_on_the_listeners_descriptors_at_xo_devnets_verbosity(listeners):
    fd = listeners[0].fileno()
    runner = broker_sidecar(listeners, 2)
    assert runner.name == "the MQTT broker"
    assert runner._command == [sys.executable, "-m", "xo_devnet.broker_process", f"--fd={fd}", "-vv"]
    assert runner._pass_fds == (fd,)
    assert broker_sidecar(listeners, 0)._command[-1] == f"--fd={fd}"


def test_the_url_names_the_host_as_given_and_the_bound_port_with_an_ipv6_host_in_brackets(listeners):
    port = listeners[0].getsockname()[1]
    assert port > 0
    assert broker_url("127.0.0.1", listeners) == f"mqtt://127.0.0.1:{port}"
    assert broker_url("localhost", listeners) == f"mqtt://localhost:{port}"
    assert broker_url("::1", listeners) == f"mqtt://[::1]:{port}"


def test_a_port_in_use_cannot_be_bound_and_a_free_one_queues_a_thousand_connections(listeners):
    with pytest.raises(OSError, match="in use"):
        bind("127.0.0.1", listeners[0].getsockname()[1])
    assert BACKLOG >= 1000


@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGINT])
def test_the_process_serves_the_inherited_socket_and_exits_0_on_a_signal_within_the_grace(listeners, stop):
    process = child(listeners)
    where = BrokerAddress.parse(broker_url("127.0.0.1", listeners), {})
    try:
        with alice_and_bob(where, "child", "xo/chips/c1/bob", SECONDS) as (alice, inbox):  # waits in the backlog
            alice.publish("xo/chips/c1/bob", b"through the child", SECONDS)
            assert inbox.get(timeout=SECONDS) == b"through the child"
            process.send_signal(stop)  # with both players still connected
            assert process.wait(sidecar.STOP_GRACE_SECONDS) == 0
    finally:
        process.kill()
        _, errors = process.communicate()
    assert errors == "", "nothing to say at the default verbosity"


def test_a_process_without_its_socket_says_so_and_exits_1():
    missing = socket.socket()
    fd = missing.detach()
    socket.close(fd)
    done = subprocess.run([sys.executable, "-m", broker_process.MODULE, f"--fd={fd}"], capture_output=True, text=True,
                          timeout=60, check=False)  # fmt: skip
    assert done.returncode == 1
    assert "the MQTT broker has no listening socket: [Errno 9] Bad file descriptor" in done.stderr
