"""Signed chips transactions: the family, the payload and the inputs and outputs the specification lists."""

import pytest

from chips_client import transactions as tx
from chips_tp import xo_app
from chips_tp.channel import channel_id
from chips_tp.channel_state import State
from chips_tp.family import ISSUERS_ADDRESS, account_address, channel_address
from chips_tp.hashes import challenge_message, signed_by, state_message
from chips_tp.ops import Challenge, Issue, Join
from chips_tp.payload import parse_payload
from tests.chips_tp.examples import ALICE, BOB, FIXED, ISSUER, turn_1
from tests.chips_tp.harness import request
from xo_core import block_info
from xo_core.signing import verify

TURN_1 = State(channel_id(FIXED), 1, False, xo_app.XoData("XPlaying", 16, 0), (110, 90))


def test_an_issue_reads_the_setting_and_writes_the_recipients_account():
    transaction = tx.issue(ISSUER, ALICE.public_key, 5)
    header = request(transaction).header
    assert (header.family_name, header.family_version) == ("chips", "1.0")
    assert list(header.inputs) == [ISSUERS_ADDRESS, account_address(ALICE.public_key)]
    assert list(header.outputs) == [account_address(ALICE.public_key)]
    assert parse_payload(transaction.payload) == Issue(ALICE.public_key, 5)
    assert verify(ISSUER.public_key, transaction.header_signature, transaction.header)


def test_a_channel_op_lists_the_channel_both_accounts_and_block_info():
    header = request(tx.join(BOB, FIXED, 100)).header
    accounts = [account_address(ALICE.public_key), account_address(BOB.public_key)]
    assert list(header.outputs) == [channel_address(channel_id(FIXED)), *accounts]
    assert list(header.inputs) == [*header.outputs, block_info.CONFIG_ADDRESS, block_info.BLOCK_NAMESPACE]
    assert parse_payload(request(tx.join(BOB, FIXED, 100)).payload) == Join(channel_id(FIXED), 100)


def test_only_the_first_participant_opens():
    with pytest.raises(ValueError, match="first participant opens it"):
        tx.open_channel(BOB, FIXED)


def test_states_are_signed_in_their_signers_slots_and_a_challenge_carries_the_challengers_signature():
    data = turn_1()
    both = tx.signed_state(FIXED, TURN_1, ALICE, BOB)
    assert both.state == data
    assert signed_by(ALICE.public_key, both.signatures[0], state_message(data))
    assert signed_by(BOB.public_key, both.signatures[1], state_message(data))
    op = parse_payload(tx.challenge(BOB, FIXED, (both,)).payload)
    assert isinstance(op, Challenge)
    assert signed_by(BOB.public_key, op.signature, challenge_message(data))


def test_a_move_is_signed_only_by_its_mover():
    assert tx.sign_move(FIXED, TURN_1, ALICE).signatures[1] is None
    with pytest.raises(ValueError, match="turn 1 is participant 0's to sign"):
        tx.sign_move(FIXED, TURN_1, BOB)
