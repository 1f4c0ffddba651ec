"""Finding an opponent on ``xo-devnet``: bob offers a match on the broker, alice finds it and accepts, they play.

Alice and Bob live apart here: each has a home and a key directory of their own, holding
only their own key, so neither knows the other's name. Bob's ``chips offer --bot`` runs
as a process; alice's ``chips offers`` reads the board and ``chips accept`` opens the
channel on the offer's terms, which bob's offer joins by itself; the match is three chips
transactions, and every chip is still there after it.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from chips_client import offers
from chips_client import transactions as tx
from chips_client.chain import RestChain
from chips_client.channels import nonce_of
from chips_client.declines import decline_topic, read_decline
from chips_client.offer_board import read_board
from chips_client.offers import SignedOffer
from chips_tp.channel import Fixed, channel_id
from chips_tp.family import channel_address
from client_core.broker import BrokerAddress, BrokerSession
from client_core.rest import RestClient
from tests.processes import sigint_at_default
from tests.xo_devnet.e2e.test_chips_play import Net
from xo_core.signing import Signer
from xo_devnet.spawn import DevnetProcess

SECONDS = 90


class Player:
    """One player in a home of their own: the ``chips`` command with their key directory and nobody else's keys."""

    def __init__(self, net: Net, name: str, home: Path, *, new: bool = False) -> None:
        self.net, self.name, self.home = net, name, home
        self.key_dir = home / ".sawtooth" / "keys"
        self.key_dir.mkdir(parents=True)
        if new:  # a newcomer makes a key of their own ('chips keygen')
            made = subprocess.run([sys.executable, "-m", "chips_cli.main", "keygen", name], capture_output=True,
                                  text=True, timeout=60, check=False, env=self.environment())  # fmt: skip
            assert made.returncode == 0, made.stderr
        else:
            for suffix in (".priv", ".pub"):
                shutil.copy(net.key_dir / f"{name}{suffix}", self.key_dir / f"{name}{suffix}")
        self.key = (self.key_dir / f"{name}.pub").read_text().strip()

    def argv(self, *argv: str, url: str | None = None) -> list[str]:
        return [sys.executable, "-m", "chips_cli.main", *argv, "--url", url or self.net.url, "--username", self.name]

    def environment(self) -> dict[str, str]:
        return {**os.environ, "HOME": str(self.home), "XO_BROKER": self.net.broker}

    def run(self, *argv: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
        return subprocess.run(self.argv(*argv), capture_output=True, text=True, timeout=timeout, check=False,
                              env=self.environment())  # fmt: skip

    def start(self, *argv: str, url: str | None = None) -> subprocess.Popen[str]:
        return subprocess.Popen(self.argv(*argv, url=url), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                env=self.environment())  # fmt: skip

    def open_offers(self) -> list[dict[str, object]]:
        done = self.run("offers", "--json")
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout)


@pytest.fixture(scope="module")
def net(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Net]:
    workdir = tmp_path_factory.mktemp("chips-offers")
    with DevnetProcess(("--ephemeral", "--min-challenge", "1"), log_path=workdir / "devnet.log") as devnet:
        broker = devnet.ready.get("broker_url")
        if not broker:
            pytest.skip("this xo-devnet runs no MQTT broker (started with --no-broker)")
        yield Net(devnet, broker)


def wait_for_offer(alice: Player, offerer: str, seconds: float = 30) -> dict[str, object]:
    ends = time.monotonic() + seconds
    while time.monotonic() < ends:
        found = [o for o in alice.open_offers() if o["offerer"] == offerer]
        if found:
            return found[0]
        time.sleep(0.3)
    raise AssertionError(f"no offer of {offerer[:8]} showed within {seconds} s")


def forge(net: Net, offerer: str, forger: Signer) -> int:
    """Publish, retained, two forgeries of the offerer's open offer: its terms signed by ``forger`` in the offerer's
    name, and the genuine offer with its expiry stretched; how many were published."""
    address = BrokerAddress.parse(net.broker, {})

    def look(receive):
        return BrokerSession(address, "test-forger-look", receive, persistent=False)

    (genuine,) = [s for s in read_board(look, None).offers if s.offer.offerer == offerer]
    theirs = offers.make_offer(forger, genuine.offer.terms, genuine.offer.expires)
    in_their_name = SignedOffer(theirs.offer._replace(offerer=offerer), theirs.signature)
    stretched = SignedOffer(genuine.offer._replace(expires=genuine.offer.expires + 3600), genuine.signature)
    session = BrokerSession(address, "test-forger", lambda _t, _p: None, persistent=False)
    session.connect(10)
    try:
        for forged in (in_their_name, stretched):
            session.publish(offers.topic(forged.offer), offers.encode_offer(forged), 10, retain=True)
    finally:
        session.close()
    return 2


def channel_of(listed: dict[str, object], accepter: str, k: int = 1, **change: object) -> Fixed:
    """The channel an accepter's ``k``-th accept of the listed offer opens (with ``change`` made to its terms)."""
    fixed = Fixed((accepter, str(listed["offerer"])), str(listed["game"]), int(listed["stake"]),
                  (int(listed["deposit"]),) * 2, int(listed["challenge_seconds"]),
                  nonce_of(offers.channel_name(str(listed["id"]), k), int(listed["rounds"])))  # fmt: skip
    return fixed._replace(**change)


def test_bobs_offer_is_found_by_alice_accepted_and_played_for_three_transactions(net, tmp_path):
    alice, bob = Player(net, "alice", tmp_path / "alice"), Player(net, "bob", tmp_path / "bob")
    issued = net.total_chips()
    house = bob.start("offer", "--game", "rps", "--stake", "10", "--deposit", "50", "--rounds", "1", "--challenge",
                      "30", "--bot", "random", "--count", "1", "--for", "120")  # fmt: skip
    try:
        listed = wait_for_offer(alice, bob.key)
        assert listed["offerer_name"] is None  # alice knows no name for bob's key
        shown = alice.run("offers")
        assert shown.returncode == 0 and str(listed["id"])[:16] in shown.stdout
        assert "rps, 10 chips a round, 50 each, 1 round" in shown.stdout
        forger = Signer.from_hex((alice.key_dir / "alice.priv").read_text())
        assert forge(net, bob.key, forger) == 2
        assert [o["id"] for o in alice.open_offers() if o["offerer"] == bob.key] == [listed["id"]]

        accepted = alice.run("accept", str(listed["id"])[:12], "--bot", "random", timeout=SECONDS)
        assert accepted.returncode == 0, accepted.stdout + accepted.stderr
        assert "joined: the match begins" in accepted.stdout and "concluded" in accepted.stdout
        output, _ = house.communicate(timeout=SECONDS)
        assert house.returncode == 0, output
        assert "accept 1 of 1" in output and "the offer is withdrawn: all its accepts were joined" in output
    finally:
        if house.poll() is None:
            house.kill()
            house.communicate()
    fixed = channel_of(listed, alice.key)
    assert net.transactions_touching(channel_address(channel_id(fixed))) == ["open", "join", "conclude"]
    assert net.total_chips() == issued
    assert [o for o in alice.open_offers() if o["id"] == listed["id"]] == []
    again = bob.start("offer", "--game", "xo", "--stake", "10", "--deposit", "50", "--for", "30")
    try:
        rated = wait_for_offer(alice, bob.key)["rating"]
        assert rated is not None and rated["games"] == 1  # the round just played (won, lost or drawn), from the chain
        assert f"rated {rated['rating']:.2f}" in alice.run("offers").stdout
    finally:
        again.terminate()
        again.communicate(timeout=30)


def test_a_channel_one_chip_off_the_offer_is_never_joined(net, tmp_path):
    """The house follows the chain in order: once it joined the genuine accept opened after the off-by-one channel,
    it has seen that one too, and left it alone."""
    alice, bob = Player(net, "alice", tmp_path / "alice"), Player(net, "bob", tmp_path / "bob")
    house = bob.start("offer", "--game", "xo", "--stake", "10", "--deposit", "50", "--rounds", "1", "--challenge",
                      "30", "--bot", "random", "--count", "1", "--for", "60")  # fmt: skip
    try:
        listed = wait_for_offer(alice, bob.key)
        name = offers.channel_name(str(listed["id"]), 1)
        opened = alice.run("open", name, "--with", bob.key, "--game", "xo", "--stake", "11", "--deposit", "50",
                           "--rounds", "1", "--challenge", "30")  # fmt: skip
        assert opened.returncode == 0, opened.stderr
        off_by_one = channel_of(listed, alice.key)._replace(stake=11)
        accepted = alice.run("accept", str(listed["id"])[:12], "--bot", "random", timeout=SECONDS)
        assert accepted.returncode == 0, accepted.stdout + accepted.stderr
        output, _ = house.communicate(timeout=SECONDS)
    finally:
        if house.poll() is None:
            house.kill()
            house.communicate()
    record = net.chips("alice", "list", "--json")
    statuses = {c["channel"]: c["status"] for c in json.loads(record.stdout)}
    assert statuses[channel_id(off_by_one).hex()] == "funding"
    assert statuses[channel_id(channel_of(listed, alice.key)).hex()] == "closed"
    assert output.count("accepted: joined") == 1 and channel_id(off_by_one).hex()[:8] not in output
    assert [o for o in alice.open_offers() if o["id"] == listed["id"]] == []  # withdrawn on exit


def test_an_accept_nobody_joins_is_cancelled_and_the_deposit_comes_back(net, tmp_path):
    alice, bob = Player(net, "alice", tmp_path / "alice"), Player(net, "bob", tmp_path / "bob")
    gone = bob.start("offer", "--game", "xo", "--stake", "10", "--deposit", "50", "--rounds", "1", "--challenge", "30",
                     "--for", "120")  # fmt: skip
    listed = wait_for_offer(alice, bob.key)
    gone.kill()  # killed: its offer stays on the board, and nobody will join an accept of it
    gone.communicate(timeout=30)
    try:
        before = int(alice.run("balance").stdout.split(": ")[1].split()[0])
        accepted = alice.run("accept", str(listed["id"]), "--bot", "random", "--join-timeout", "1", timeout=SECONDS)
    finally:  # the dead offer leaves the board, so that no other test finds it
        clear = BrokerSession(BrokerAddress.parse(net.broker, {}), "test-clear", lambda _t, _p: None, persistent=False)
        clear.connect(10)
        clear.publish(f"xo/chips/offers/xo/{bob.key}/{listed['id']}", b"", 10, retain=True)
        clear.close()
    assert accepted.returncode == 1
    assert "did not join within 1 s" in accepted.stderr and "your deposit of 50 is back" in accepted.stderr
    assert int(alice.run("balance").stdout.split(": ")[1].split()[0]) == before
    ident = channel_id(channel_of(listed, alice.key))
    assert net.transactions_touching(channel_address(ident)) == ["open", "cancel"]


def test_an_accepter_who_never_moves_is_challenged_and_the_house_ends_with_its_deposit_back(net, tmp_path):
    """Alice opens a channel on the house's terms and walks away: the house challenges her once its patience runs
    out, finalizes when her time is up, and exits, every chip back where it was."""
    alice, bob = Player(net, "alice", tmp_path / "alice"), Player(net, "bob", tmp_path / "bob")
    issued = net.total_chips()
    house = bob.start("offer", "--game", "xo", "--stake", "10", "--deposit", "50", "--rounds", "1", "--challenge",
                      "2", "--bot", "random", "--count", "1", "--for", "60", "--patience", "1")  # fmt: skip
    try:
        listed = wait_for_offer(alice, bob.key)
        before = int(alice.run("balance").stdout.split(": ")[1].split()[0])
        opened = alice.run("open", offers.channel_name(str(listed["id"]), 1), "--with", bob.key, "--game", "xo",
                           "--stake", "10", "--deposit", "50", "--rounds", "1", "--challenge", "2")  # fmt: skip
        assert opened.returncode == 0, opened.stderr
        output, _ = house.communicate(timeout=SECONDS)
    finally:
        if house.poll() is None:
            house.kill()
            house.communicate()
    assert house.returncode == 0, output
    assert "you challenged alice" not in output and "you challenged " in output  # alice is a short key to bob
    assert "did not answer your challenge" in output and ": finalized" in output
    ident = channel_id(channel_of(listed, alice.key))
    assert f"({ident.hex()[:8]})" in output  # the match is named by its channel's short id
    assert net.transactions_touching(channel_address(ident)) == ["open", "join", "challenge", "finalize"]
    assert int(alice.run("balance").stdout.split(": ")[1].split()[0]) == before  # the turn-0 state: deposits back
    assert net.total_chips() == issued


def test_an_accept_the_house_cannot_fund_is_declined_at_once_on_the_broker_signed_by_the_house(net, tmp_path):
    """Bob's house can fund one match and a half: the first accept is joined; a second, opened in the same moment
    (before the accepter could see the house's chips go), is declined on the broker as soon as its open commits."""
    alice, bob = Player(net, "alice", tmp_path / "alice"), Player(net, "bob", tmp_path / "bob")

    def balance(who: Player) -> int:
        return int(who.run("balance").stdout.split(": ")[1].split()[0])

    mine, his = balance(alice), balance(bob)
    deposit = (mine + his) // 5
    target = deposit + deposit // 2
    giver, taker, amount = (bob, alice, his - target) if his > target else (alice, bob, target - his)
    if amount:
        assert giver.run("transfer", taker.key, str(amount)).returncode == 0
    house = bob.start("offer", "--game", "xo", "--stake", "1", "--deposit", str(deposit), "--rounds", "1",
                      "--challenge", "30", "--bot", "random", "--count", "2", "--for", "60")  # fmt: skip
    heard: list[str] = []
    got = threading.Event()

    def receive(_topic: str, payload: bytes) -> None:
        heard.append(read_decline(payload, second, bob.key))
        got.set()

    listener = BrokerSession(BrokerAddress.parse(net.broker, {}), "test-declines", receive, persistent=False)
    try:
        listed = wait_for_offer(alice, bob.key)
        second = channel_id(channel_of(listed, alice.key, 2, stake=1, deposits=(deposit, deposit)))
        listener.connect(10)
        listener.subscribe(decline_topic(second, alice.key), 10)
        for k in (1, 2):
            opened = alice.run("open", offers.channel_name(str(listed["id"]), k), "--with", bob.key, "--game",
                               "xo", "--stake", "1", "--deposit", str(deposit), "--rounds", "1", "--challenge",
                               "30")  # fmt: skip
            assert opened.returncode == 0, opened.stderr
        assert got.wait(10), "no decline came"
        refused = alice.run("accept", str(listed["id"]), "--bot", "random")
    finally:
        listener.close()
        house.terminate()
        output, _ = house.communicate(timeout=30)
    assert heard == [f"the offerer cannot fund another deposit of {deposit} now"]
    assert "told them so" in output and "accept 1 of 2" in output
    assert house.returncode == 143 and "stopped (SIGTERM): the offer " in output and "chips: error" not in output
    assert refused.returncode == 1 and "too few to cover the deposit" in refused.stderr  # seen before any open
    signer = Signer.from_hex((alice.key_dir / "alice.priv").read_text())
    with RestClient(net.url) as client:  # as accept does on a decline: the deposit comes back
        RestChain(client, signer).submit(tx.cancel(signer, channel_of(listed, alice.key, 2, stake=1,
                                                                      deposits=(deposit, deposit))), "the cancel")
    assert net.transactions_touching(channel_address(second)) == ["open", "cancel"]


def test_a_new_key_gets_chips_from_the_faucet_and_an_offer_it_cannot_cover_says_how(net, tmp_path):
    dave = Player(net, "dave", tmp_path / "dave", new=True)
    poor = dave.run("offer", "--game", "xo", "--stake", "10", "--deposit", "50")
    assert poor.returncode == 1
    assert "your 0 free chips cannot cover a deposit of 50 (on xo-devnet 'chips faucet' gives" in poor.stderr
    given = dave.run("faucet")
    assert given.returncode == 0, given.stderr
    assert "the faucet issued 500 chips to " in given.stdout and "you now hold 500 free chips" in given.stdout
    assert "at most 1000 chips in any hour" in given.stdout
    more = dave.run("faucet", "--amount", "501")
    assert more.returncode == 1 and "this key had its 1000 chips for this hour; ask again in " in more.stderr
    assert "429" not in more.stderr and "HTTP" not in more.stderr
    assert "500 chips" in dave.run("balance").stdout


def test_a_player_who_leaves_a_staked_match_is_told_where_it_stands_and_both_name_its_channel_alike(net, tmp_path):
    alice, bob = Player(net, "alice", tmp_path / "alice"), Player(net, "bob", tmp_path / "bob")
    house = bob.start("offer", "--game", "xo", "--stake", "10", "--deposit", "50", "--rounds", "1", "--challenge",
                      "60", "--bot", "random", "--for", "120")  # fmt: skip
    dave = None
    try:
        listed = wait_for_offer(alice, bob.key)
        name = offers.channel_name(str(listed["id"]), 1)
        dave = subprocess.Popen(alice.argv("accept", str(listed["id"])[:12]), stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=alice.environment(),
                                preexec_fn=sigint_at_default)  # noqa: PLW1509 - stopped with Ctrl-C  # fmt: skip
        assert dave.stdout is not None
        lines = []
        while not any("the match begins" in line for line in lines):
            line = dave.stdout.readline()
            assert line, "".join(lines)
            lines.append(line)
        lines.append(dave.stdout.readline())  # "playing channel ...": said once the match is under way
        dave.send_signal(2)  # Ctrl-C, with alice (X) to move
        out, err = dave.communicate(timeout=SECONDS)
        said = "".join(lines) + out
        assert dave.returncode == 130 and err == "", said + err
        for must in (f"you left (Ctrl-C): channel '{name}' stays open on the chain, the match unfinished: game 1 of 1",
                     "at stake: your deposit of 50 chips", "if ",  " challenges you, your move must be on chain "
                     "within 60 s (by ", f"to go on with it: chips play {name} --username alice"):  # fmt: skip
            assert must in said, said
        listed_now = alice.run("list").stdout
        assert f"next: your move: chips play {name} --username alice" in listed_now, listed_now
        assert "running: game 1 of 1, you (X) to move" in listed_now
    finally:
        if dave is not None and dave.poll() is None:
            dave.kill()
        house.terminate()
        output, _ = house.communicate(timeout=30)
    assert f"joined channel '{name}'" in output and "chips: error" not in output  # the offerer's name is the same
