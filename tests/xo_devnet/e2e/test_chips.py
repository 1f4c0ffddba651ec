"""chips through the REST API against ``xo-devnet`` running the real ``chips-tp``: channels opened, played, closed.

Alice and Bob play with the keys xo-devnet made for them, which its genesis credited
with 1,000 chips each; the issuer is the ``chips-issuer`` key beside them. Every op is
a signed batch POSTed to the REST API and waited for. Deadlines are BlockInfo time, so
a one-second challenge is finalized from the first block that opens a second later.
"""

from __future__ import annotations

import base64
import time
import urllib.error
import urllib.request
from collections.abc import Iterator

import pytest

from chips_client import transactions as tx
from chips_tp import xo_app
from chips_tp.channel import Fixed, channel_id
from chips_tp.channel_state import State
from chips_tp.family import account_address, channel_address
from chips_tp.state import CLOSED, Channel, decode_account, decode_channel
from tests.xo_devnet.e2e.conftest import fetch
from xo_core.batches import make_batch, make_batch_list
from xo_core.keyfiles import load_signer
from xo_core.protobuf.transaction_pb2 import Transaction
from xo_core.settings import setting_value
from xo_core.signing import Signer
from xo_devnet.genesis import ISSUER_KEY_NAME
from xo_devnet.spawn import DevnetProcess


class Players:
    """Alice, Bob and the issuer at one devnet: each transaction is a batch, submitted and waited for."""

    def __init__(self, devnet: DevnetProcess) -> None:
        self.url = devnet.rest_url
        self.keys: dict[str, Signer] = {
            name: load_signer(devnet.key_dir, name) for name in ("alice", "bob", ISSUER_KEY_NAME)
        }
        self.alice, self.bob, self.issuer = (self.keys[name] for name in ("alice", "bob", ISSUER_KEY_NAME))

    def send(self, signer: Signer, transaction: Transaction) -> dict:
        batch = make_batch(signer, [transaction])
        request = urllib.request.Request(
            f"{self.url}/batches", data=make_batch_list([batch]), headers={"Content-Type": "application/octet-stream"}
        )
        with urllib.request.urlopen(request, timeout=60) as response:
            assert response.status == 202
        [status] = fetch(f"{self.url}/batch_statuses?id={batch.header_signature}&wait=60")["data"]
        return status

    def ok(self, signer: Signer, transaction: Transaction) -> None:
        status = self.send(signer, transaction)
        assert status["status"] == "COMMITTED", status

    def refused(self, signer: Signer, transaction: Transaction) -> str:
        status = self.send(signer, transaction)
        assert status["status"] == "INVALID", status
        return status["invalid_transactions"][0]["message"]

    def state(self, address: str) -> bytes:
        try:
            return base64.b64decode(fetch(f"{self.url}/state/{address}")["data"])
        except urllib.error.HTTPError as error:
            if error.code == 404:
                return b""
            raise

    def balance(self, signer: Signer) -> int:
        account = decode_account("", self.state(account_address(signer.public_key)), signer.public_key)
        return 0 if account is None else account.balance

    def channel(self, fixed: Fixed) -> Channel:
        channel = decode_channel("", self.state(channel_address(channel_id(fixed))))
        assert channel is not None
        return channel

    def running(self, fixed: Fixed) -> None:
        """Alice opens ``fixed``, paying her deposit in, and Bob joins, paying his: play may begin."""
        self.ok(self.alice, tx.open_channel(self.alice, fixed))
        self.ok(self.bob, tx.join(self.bob, fixed, fixed.deposits[0]))


@pytest.fixture(scope="module")
def players(tmp_path_factory) -> Iterator[Players]:
    log_path = tmp_path_factory.mktemp("chips") / "devnet.log"
    with DevnetProcess(("--ephemeral", "--min-challenge", "1"), log_path=log_path) as devnet:  # 1 s challenges
        yield Players(devnet)


def terms(players: Players, nonce: int, duration: int = 60) -> Fixed:
    return Fixed((players.alice.public_key, players.bob.public_key), "xo", 10, (100, 100), duration, nonce)


def xo(fixed: Fixed, turn: int, position: str, crosses: int, noughts: int, balances: tuple[int, int]) -> State:
    return State(channel_id(fixed), turn, False, xo_app.XoData(position, crosses, noughts), balances)


def test_genesis_names_the_issuer_and_credits_the_players(players):
    setting = players.state("000000d9705d8ee25f3f788759bae4f79a1d61e3b0c44298fc1c14e3b0c44298fc1c14")
    assert setting_value(setting, "chips.issuers") == players.issuer.public_key
    floor = players.state("000000d9705d8ee25f3f78c91ae4a090321651e3b0c44298fc1c14e3b0c44298fc1c14")
    assert setting_value(floor, "chips.min_challenge_seconds") == "1"  # --min-challenge 1, for 1 s challenges
    players.ok(players.issuer, tx.issue(players.issuer, players.alice.public_key, 5))
    reason = players.refused(players.alice, tx.issue(players.alice, players.alice.public_key, 5))
    assert "only the keys in the setting chips.issuers may issue chips" in reason
    players.ok(players.alice, tx.transfer(players.alice, players.bob.public_key, 5))


def test_open_join_conclude(players):
    fixed = terms(players, nonce=1)
    before = players.balance(players.alice), players.balance(players.bob)
    players.running(fixed)
    final = xo(fixed, 3, "XPlaying", 16 | 256, 1, (110, 90))._replace(final=True)
    players.ok(players.bob, tx.conclude(players.bob, fixed, tx.signed_state(fixed, final, players.alice, players.bob)))
    assert players.channel(fixed).payout == (110, 90)
    assert (players.balance(players.alice), players.balance(players.bob)) == (before[0] + 10, before[1] - 10)


def test_a_challenge_unanswered_is_finalized_after_the_deadline(players):
    fixed = terms(players, nonce=2, duration=1)
    before = players.balance(players.alice)
    players.running(fixed)
    first = tx.sign_move(fixed, xo(fixed, 1, "XPlaying", 16, 0, (110, 90)), players.alice)
    players.ok(players.alice, tx.challenge(players.alice, fixed, (first,)))
    deadline = players.channel(fixed).challenge.deadline
    while time.time() < deadline + 1:  # bounded: the deadline is one second after the challenge's block
        time.sleep(0.2)
    players.ok(players.bob, tx.finalize(players.bob, fixed))
    assert players.channel(fixed).status == CLOSED
    assert players.balance(players.alice) == before + 10


def test_a_challenge_cleared_by_a_checkpoint_and_one_cleared_by_a_move(players):
    fixed = terms(players, nonce=3)
    players.running(fixed)
    turn_1 = tx.sign_move(fixed, xo(fixed, 1, "XPlaying", 16, 0, (110, 90)), players.alice)
    turn_2 = tx.sign_move(fixed, xo(fixed, 2, "OPlaying", 16, 256, (90, 110)), players.bob)
    turn_3 = tx.sign_move(fixed, xo(fixed, 3, "XPlaying", 16 | 64, 256, (110, 90)), players.alice)
    players.ok(players.bob, tx.challenge(players.bob, fixed, (turn_1, turn_2)))
    players.ok(players.alice, tx.checkpoint(players.alice, fixed, (turn_2, turn_3)))
    assert (players.channel(fixed).challenge, players.channel(fixed).turn) == (None, 3)
    players.ok(players.alice, tx.challenge(players.alice, fixed, (turn_2, turn_3)))
    turn_4 = tx.sign_move(fixed, xo(fixed, 4, "OPlaying", 16 | 64, 256 | 4, (90, 110)), players.bob)
    players.ok(players.bob, tx.respond(players.bob, fixed, turn_4))
    assert (players.channel(fixed).challenge, players.channel(fixed).turn) == (None, 4)
    stale = players.refused(players.alice, tx.challenge(players.alice, fixed, (turn_2, turn_3)))
    assert stale == "the state of turn 3 is stale: the chain has recorded turn 4"
