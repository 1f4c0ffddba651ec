"""An offer stays on the board while ``chips offer`` runs, whatever another client publishes, on Debian's mosquitto.

Mallory, who may connect to the broker, clears bob's running offer (an empty retained
message on its topic) and replaces it with junk. Without an ACL the broker takes both, and
bob's ``chips offer``, which follows its offer's topic, puts the offer back at once and says
so once. Under the ACL docs/messaging.md prints (each account writes only its own offer
topics) the broker drops mallory's messages: bob never hears of them and the offer never left.
"""

from __future__ import annotations

import os
import queue
import secrets
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from chips_client.offer_board import read_board
from chips_client.offers import SignedOffer, topic
from client_core.broker import BrokerAddress, BrokerSession
from tests.client_core.test_broker import PLAYERS_ACL
from tests.mosquitto import running_mosquitto
from tests.xo_devnet.e2e.test_chips_play import Net, Output
from xo_core.signing import Signer
from xo_devnet.spawn import DevnetProcess

SECONDS = 30
TOOK = "another client took the offer"


@pytest.fixture(scope="module")
def net(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Net]:
    workdir = tmp_path_factory.mktemp("chips-offer-kept")
    with DevnetProcess(("--ephemeral", "--no-broker"), log_path=workdir / "devnet.log") as devnet:
        yield Net(devnet, "")


def environment(broker: str, user: str | None = None, password: str | None = None) -> dict[str, str]:
    credentials = {"XO_BROKER_USERNAME": user, "XO_BROKER_PASSWORD": password} if user and password else {}
    return {**os.environ, "XO_BROKER": broker, **credentials}


def board(environ: dict[str, str], broker: str) -> list[SignedOffer]:
    """The offers a reader connecting now is shown."""
    address = BrokerAddress.parse(broker, environ)
    return read_board(lambda receive: BrokerSession(address, f"test-reader-{secrets.token_hex(4)}", receive,
                                                    persistent=False), None).offers  # fmt: skip


def offering(net: Net, environ: dict[str, str]) -> Output:
    """Bob's ``chips offer``, running, once it has said its offer is up."""
    argv = net.command("bob", "offer", "--game", "xo", "--stake", "10", "--deposit", "50", "--for", "600")
    bob = Output(subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=environ))
    assert bob.wait_until(lambda lines: any(line.startswith("offered xo") for line in lines), SECONDS), bob.lines
    return bob


def stranger(environ: dict[str, str], broker: str, signed: SignedOffer) -> None:
    """Mallory clears bob's offer, then puts junk in its place."""
    session = BrokerSession(BrokerAddress.parse(broker, environ), f"test-mallory-{secrets.token_hex(4)}",
                            lambda _t, _p: None, persistent=False)  # fmt: skip
    session.connect(SECONDS)
    try:
        for forged in (b"", b"\xa0junk"):
            session.publish(topic(signed.offer), forged, SECONDS, retain=True)
    finally:
        session.close()


def stopped(bob: Output) -> str:
    if bob.process.poll() is None:
        bob.process.send_signal(signal.SIGTERM)
    return bob.stopped()


def test_without_an_acl_the_running_offer_puts_itself_back_and_says_so_once(net: Net, tmp_path: Path) -> None:
    with running_mosquitto(tmp_path) as mosquitto:
        broker = f"mqtt://127.0.0.1:{mosquitto.port}"
        anyone = environment(broker)
        bob = offering(net, anyone)
        try:
            [offered] = board(anyone, broker)
            for _attempt in range(2):
                stranger(anyone, broker, offered)
                assert bob.wait_until(lambda lines: any(TOOK in line for line in lines), SECONDS), bob.lines
                deadline = time.monotonic() + 5
                while board(anyone, broker) != [offered]:
                    assert time.monotonic() < deadline, "the offer was not put back within 5 s"
        finally:
            said = stopped(bob)
        assert said.count(TOOK) == 1, said
        assert board(anyone, broker) == [], "withdrawn when bob's offer stopped"


def test_under_the_documented_acl_a_strangers_clear_is_refused_by_the_broker(net: Net, tmp_path: Path) -> None:
    bob_key, mallory_key = net.key("bob"), Signer.generate().public_key
    users = {bob_key: secrets.token_hex(8), mallory_key: secrets.token_hex(8)}
    with running_mosquitto(tmp_path, users=users, acl=PLAYERS_ACL) as mosquitto:
        broker = f"mqtt://127.0.0.1:{mosquitto.port}"
        as_bob, as_mallory = (environment(broker, key, users[key]) for key in (bob_key, mallory_key))
        bob = offering(net, as_bob)
        try:
            [offered] = board(as_mallory, broker)  # every account reads the board
            stranger(as_mallory, broker, offered)
            assert board(as_mallory, broker) == [offered]
            assert not bob.wait_until(lambda lines: any(TOOK in line for line in lines), 1.0), bob.lines
        finally:
            said = stopped(bob)
        assert TOOK not in said, said
        assert board(as_mallory, broker) == [], "bob's own account withdrew it"


def test_nobody_can_name_the_running_offers_broker_session(net: Net, tmp_path: Path) -> None:
    with running_mosquitto(tmp_path) as mosquitto:
        broker = f"mqtt://127.0.0.1:{mosquitto.port}"
        anyone = environment(broker)
        bob = offering(net, anyone)
        try:
            [offered] = board(anyone, broker)
            heard: queue.Queue[bytes] = queue.Queue()  # bob publishes his offer again after each reconnection
            watcher = BrokerSession(BrokerAddress.parse(broker, anyone), "test-watcher",
                                    lambda _t, payload: heard.put(payload), persistent=False)  # fmt: skip
            watcher.connect(SECONDS)
            watcher.subscribe(topic(offered.offer), SECONDS)
            assert heard.get(timeout=SECONDS)  # the retained offer
            for public in (f"xo-offer-{offered.offer.id[:16]}", f"xo-offer-{offered.offer.id}"):  # ids on the board
                intruder = BrokerSession(BrokerAddress.parse(broker, anyone), public, lambda _t, _p: None,
                                         persistent=False)  # fmt: skip
                intruder.connect(SECONDS)
                time.sleep(1.0)  # holding the id: a session of that id would be cut off, and come back
                intruder.close()
            watcher.close()
            assert heard.empty(), "bob's session was cut off by a client naming its id, and reconnected"
        finally:
            said = stopped(bob)
        assert "another client seems to use its id" not in said, said
