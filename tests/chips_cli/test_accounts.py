"""``chips transfer``, ``issue`` and ``balance`` against the real handler: what is refused before anything is sent."""

from __future__ import annotations

import pytest

from chips_client import transactions as tx
from tests.chips_tp.harness import ALICE, BOB, ISSUER
from xo_core.signing import Signer

#: Well spelt, not a point on secp256k1: chips sent there could never move again.
VOID = "02" + "11" * 32


@pytest.fixture
def funded(table):
    table.player("alice", ALICE)
    table.player("bob", BOB)
    table.player("issuer", ISSUER)
    table.chain.submit(tx.issue(ISSUER, ALICE.public_key, 100), "the issue")
    table.chain.submitted = 0
    return table


@pytest.mark.parametrize(("who", "command"), [("alice", "transfer"), ("issuer", "issue")])
def test_a_key_that_is_not_a_curve_point_is_refused_before_anything_is_sent(funded, who, command):
    code, _, err = funded.run(who, command, VOID, "5")
    assert code == 1
    assert "the key (02111111...) is not a point on secp256k1: no private key signs for it" in err
    assert funded.chain.submitted == 0
    assert funded.chain.balance(ALICE.public_key) == 100


def test_a_key_file_holding_no_curve_point_is_refused_too(funded, tmp_path):
    (tmp_path / "keys" / "ghost.pub").write_text(VOID + "\n")
    code, _, err = funded.run("alice", "transfer", "ghost", "5")
    assert code == 1
    assert "the public key of 'ghost' (02111111...) is not a point on secp256k1" in err
    assert funded.chain.submitted == 0


def test_a_transfer_to_a_real_key_goes_through(funded):
    code, out, _ = funded.run("alice", "transfer", "bob", "30")
    assert code == 0, out
    assert (funded.chain.balance(ALICE.public_key), funded.chain.balance(BOB.public_key)) == (70, 30)


def test_a_key_the_key_directory_names_reads_as_its_name_alone(funded):
    _, sent, _ = funded.run("alice", "transfer", "bob", "30")
    _, held, _ = funded.run("alice", "balance")
    stranger = Signer.generate().public_key
    _, unnamed, _ = funded.run("alice", "balance", stranger)
    text = sent + held
    must = ["sent 30 chips to bob, who now holds 30", "alice: 70 chips"]
    must_not = [ALICE.public_key[:6], BOB.public_key[:6], "alice (", "bob ("]
    assert [words for words in must if words not in text] == []
    assert [word for word in must_not if word in text] == []
    assert unnamed == f"{stranger[:6]}...: 0 chips\n", "a key no .pub names: its first characters"
