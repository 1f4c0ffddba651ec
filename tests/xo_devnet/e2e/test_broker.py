"""xo-devnet runs its MQTT broker where the ready file says, and stops it with the ledger."""

from __future__ import annotations

import queue

import pytest

from client_core.broker import BrokerAddress, BrokerSession, BrokerUnreachable
from xo_devnet.spawn import DevnetProcess

SECONDS = 10.0


def test_players_exchange_messages_through_the_broker_the_ready_file_names_until_the_devnet_stops():
    with DevnetProcess(["--ephemeral", "--no-tp"]) as devnet:
        where = BrokerAddress.parse(devnet.broker_url, {})
        assert where.host == "127.0.0.1" and where.port > 0
        inbox: queue.Queue[bytes] = queue.Queue()
        bob = BrokerSession(where, "devnet-bob", lambda topic, payload: inbox.put(payload))
        alice = BrokerSession(where, "devnet-alice", lambda topic, payload: None)
        try:
            bob.connect(SECONDS)
            bob.subscribe("xo/chips/c1/bob", SECONDS)
            alice.connect(SECONDS)
            alice.publish("xo/chips/c1/bob", b"a signed state", SECONDS)
            assert inbox.get(timeout=SECONDS) == b"a signed state"
        finally:
            alice.close()
            bob.close()
        assert devnet.stop() == 0
    with pytest.raises(BrokerUnreachable, match="Connection refused"):
        BrokerSession(where, "devnet-late", lambda topic, payload: None).connect(SECONDS)
