"""A chips match on ``xo-devnet`` through Debian's ``mosquitto`` instead of xo-devnet's own broker: the players'
transport works with a broker run apart, as on the internet (docs/messaging.md), not only with the embedded one.

Without mosquitto this skips saying why; under CI=true it fails (``.ci/run`` installs mosquitto).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from chips_tp.channel import channel_id
from chips_tp.family import channel_address
from chips_tp.state import decode_channel
from tests.mosquitto import running_mosquitto
from tests.xo_devnet.e2e.test_chips_play import Net, finished, open_and_join
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
