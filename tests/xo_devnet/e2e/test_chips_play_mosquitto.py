"""A chips match on ``xo-devnet`` through Debian's ``mosquitto`` instead of xo-devnet's own broker: the players'
transport works with a broker run apart, as on the internet (docs/messaging.md), not only with the embedded one.

Without mosquitto this skips saying why; under CI=true it fails (``.ci/run`` installs mosquitto).
"""

from __future__ import annotations

import signal
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from chips_tp.channel import channel_id
from chips_tp.family import channel_address
from chips_tp.state import decode_channel
from tests.mosquitto import running_mosquitto
from tests.xo_devnet.e2e.test_chips_play import MATCH_SECONDS, Net, Output, finished, open_and_join
from xo_devnet.spawn import DevnetProcess


@pytest.fixture(scope="module")
def net(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Net]:
    workdir = tmp_path_factory.mktemp("chips-mosquitto")
    with running_mosquitto(workdir) as mosquitto, DevnetProcess(
        ["--ephemeral", "--no-broker"], log_path=workdir / "devnet.log"
    ) as devnet:
        assert devnet.ready["broker_url"] is None
        yield Net(devnet, f"mqtt://127.0.0.1:{mosquitto.port}")


def test_a_best_of_three_through_mosquitto_costs_three_transactions_and_pays_the_final_state(net: Net) -> None:
    issued = net.total_chips()
    fixed = open_and_join(net, "through-mosquitto", "xo")
    alice, bob = net.bot("alice", "through-mosquitto"), net.bot("bob", "through-mosquitto", "--level", "random")
    finished(alice), finished(bob)
    ident = channel_id(fixed)
    final = net.final_state("alice", ident, "xo")
    assert final.final and final == net.final_state("bob", ident, "xo")
    record = decode_channel("", net.state(channel_address(ident))[channel_address(ident)])
    assert record.status == "closed" and record.payout == final.balances
    assert net.transactions_touching(channel_address(ident)) == ["open", "join", "conclude"]
    assert net.total_chips() == issued


def test_bots_started_before_the_broker_wait_for_it_and_play_on_through_its_crash(
    net: Net, tmp_path: Path, closed_port: int
) -> None:
    issued = net.total_chips()
    fixed = open_and_join(net, "broker-away", "xo")
    ident = channel_id(fixed)
    port = closed_port  # until mosquitto listens there; nobody else is given it meanwhile
    away = Net(net.devnet, f"mqtt://127.0.0.1:{port}")
    unreachable = f"cannot reach the broker at {away.broker}: Connection refused; retrying"
    alice, bob = away.bot("alice", "broker-away"), away.bot("bob", "broker-away", "--level", "random")
    outputs = [Output(alice), Output(bob)]
    try:
        for output in outputs:  # no broker to reach: each says so and waits, as it would for a challenge
            assert output.wait_for(unreachable, MATCH_SECONDS), "\n".join(output.lines)
        with running_mosquitto(tmp_path, port=port) as broker:
            deadline = time.monotonic() + MATCH_SECONDS
            while net.store_turn("alice", ident) < 2 and time.monotonic() < deadline and alice.poll() is None:
                time.sleep(0.01)
            for process in (alice, bob):  # held still, so the crash falls mid-match however fast they play
                process.send_signal(signal.SIGSTOP)
            crashed_at = net.store_turn("alice", ident)
            broker.kill()  # no persistence: the restarted broker knows no session, and what was in flight is lost
            broker.restart()
            for process in (alice, bob):
                process.send_signal(signal.SIGCONT)
            said = [output.finished() for output in outputs]
    finally:
        for process in (alice, bob):
            if process.poll() is None:
                process.kill()
                process.wait(10)
    assert 2 <= crashed_at < net.store_turn("alice", ident), "the broker did not crash mid-match"
    for lines in said:
        assert lines.count(unreachable) == 1, lines
        assert f"connected to the broker at {away.broker} again" in lines, lines
    final = net.final_state("alice", ident, "xo")
    assert final.final and final == net.final_state("bob", ident, "xo")
    assert net.transactions_touching(channel_address(ident)) == ["open", "join", "conclude"]
    assert net.total_chips() == issued
