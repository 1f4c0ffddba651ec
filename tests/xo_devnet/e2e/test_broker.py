"""xo-devnet runs its MQTT broker where the ready file says, in a process of its own that it restarts, and stops it
with the ledger."""

from __future__ import annotations

import contextlib
import os
import queue
import signal
import time
from pathlib import Path

import pytest

from client_core.broker import BrokerAddress, BrokerError, BrokerSession, BrokerUnreachable
from tests.mqtt_clients import alice_and_bob
from xo_devnet.spawn import DevnetProcess

SECONDS = 10.0


def children(pid: int) -> list[int]:
    return [int(child) for child in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]


def broker_processes(devnet: DevnetProcess) -> list[int]:
    """xo-devnet's children that run the broker (after a restart, the new one)."""
    assert devnet.process is not None
    found = []
    for child in children(devnet.process.pid):
        try:
            command = Path(f"/proc/{child}/cmdline").read_bytes().split(b"\0")
        except FileNotFoundError:
            continue
        if b"xo_devnet.broker_process" in command:
            found.append(child)
    return found


def running(pid: int) -> bool:
    """Running, not merely a zombie waiting for a parent (in a container, PID 1 may never reap it)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state != "Z"


def test_players_exchange_messages_through_the_broker_the_ready_file_names_until_the_devnet_stops():
    with DevnetProcess(["--ephemeral", "--no-tp"]) as devnet:
        where = BrokerAddress.parse(devnet.broker_url, {})
        assert where.host == "127.0.0.1" and where.port > 0
        with alice_and_bob(where, "devnet", "xo/chips/c1/bob", SECONDS) as (alice, inbox):
            alice.publish("xo/chips/c1/bob", b"a signed state", SECONDS)
            assert inbox.get(timeout=SECONDS) == b"a signed state"
        assert devnet.stop() == 0
    with pytest.raises(BrokerUnreachable, match="Connection refused"):
        BrokerSession(where, "devnet-late", lambda topic, payload: None).connect(SECONDS)


def test_a_broker_process_that_dies_is_restarted_on_the_same_port_and_players_reconnect_to_it():
    with DevnetProcess(["--ephemeral", "--no-tp"]) as devnet:
        where = BrokerAddress.parse(devnet.broker_url, {})
        first = devnet.ready["broker_pid"]
        assert broker_processes(devnet) == [first], "the broker runs in a child of xo-devnet, the one the file names"
        with alice_and_bob(where, "restart", "xo/chips/c9/bob", SECONDS) as (alice, inbox):
            os.kill(first, signal.SIGKILL)
            deadline = time.monotonic() + SECONDS
            while broker_processes(devnet) in ([], [first]) and time.monotonic() < deadline:
                time.sleep(0.02)
            restarted = broker_processes(devnet)
            assert len(restarted) == 1 and restarted[0] != first
            # Both sessions find the new broker on the same port by themselves; bob subscribes again on reconnecting,
            # so alice's state gets through once he has (what went before reached a broker that knew no bob).
            received = None
            while received is None and time.monotonic() < deadline:
                with contextlib.suppress(BrokerError):  # alice's connection may still be the one the kill ended
                    alice.publish("xo/chips/c9/bob", b"after the restart", 1.0)
                with contextlib.suppress(queue.Empty):
                    received = inbox.get(timeout=0.2)
            assert received == b"after the restart"
        assert devnet.stop() == 0
    assert not running(first) and not running(restarted[0]), "xo-devnet's stop leaves no broker process"


def test_the_broker_process_ends_with_xo_devnet_even_when_it_is_killed_outright():
    with DevnetProcess(["--ephemeral", "--no-tp"]) as devnet:
        pid = devnet.ready["broker_pid"]
        assert devnet.process is not None
        devnet.process.kill()
        devnet.process.wait()
        deadline = time.monotonic() + SECONDS
        while running(pid) and time.monotonic() < deadline:
            time.sleep(0.02)
        assert not running(pid), "the broker's process is told (PDEATHSIG) when xo-devnet dies, and stops"
