"""The tests' agents get ports two test workers (or two test runs) do not fight over, and retry if they lose one."""

from __future__ import annotations

import socket

import pytest

from tests.xo_aries import agents
from tests.xo_aries.agents import free_port


def test_ports_come_from_this_workers_block_are_free_and_are_never_handed_out_twice(monkeypatch):
    monkeypatch.setenv("PYTEST_XDIST_WORKER", "gw1")
    ports = [free_port() for _ in range(20)]
    assert len(set(ports)) == 20
    assert all(21000 <= port < 22000 for port in ports), "gw1's block, below the ephemeral range"
    for port in ports:
        with socket.socket() as check:
            check.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            check.bind(("127.0.0.1", port))
    monkeypatch.setenv("PYTEST_XDIST_WORKER", "gw0")
    assert 20000 <= free_port() < 21000


def test_an_agent_that_finds_its_port_taken_starts_again_on_fresh_ports(tmp_path, monkeypatch):
    pytest.importorskip("acapy_agent", reason="ACA-Py is not installed: pip install -e '.[aries]' (Python 3.12+)")
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        busy = taken.getsockname()[1]
        offered = [busy]  # the first port offered (the admin API's) is someone else's by the time it is used
        fresh = agents.free_port
        monkeypatch.setattr(agents, "free_port", lambda: offered.pop() if offered else fresh())
        with agents.running(lambda: agents.start_agent("late", tmp_path / "late")) as (agent,):
            assert offered == [], "the taken port was offered"
            assert agent.admin.url != f"http://127.0.0.1:{busy}", "and the agent started again elsewhere"
            assert agent.admin.get("/status/ready")["ready"] is True
