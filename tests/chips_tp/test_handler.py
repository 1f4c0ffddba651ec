"""The chips handler against an in-memory validator: accounts, channels from open to payout, and every attack refused.

Transactions are built with ``chips_client.transactions``, so their inputs and
outputs are the ones the specification lists.
"""

import cbor2
import pytest
from sawtooth_sdk.processor.exceptions import InternalError
from sawtooth_sdk.processor.handler import TransactionHandler

from chips_client import transactions as tx
from chips_tp import rps_app, xo_app
from chips_tp.channel import Fixed, channel_id
from chips_tp.channel_state import State
from chips_tp.family import (
    FAMILY_NAME,
    FAMILY_VERSION,
    MIN_CHALLENGE_ADDRESS,
    account_address,
    channel_address,
    channel_addresses,
)  # fmt: skip
from chips_tp.handler import ChipsTransactionHandler
from chips_tp.hashes import challenge_message, sign
from chips_tp.ops import Challenge, Join, Op, Open, SignedState
from chips_tp.payload import encode_payload
from chips_tp.state import CLOSED, FUNDING, RUNNING, encode_channel
from rps_tp.commitment import commitment
from tests.chips_tp.harness import ALICE, BOB, CAROL, FLOOR, ISSUER, NOW, RPS_TERMS, XO_TERMS, Chain, request
from tests.fake_context import FakeContext
from xo_core.batches import make_transaction
from xo_core.protobuf.transaction_pb2 import Transaction
from xo_core.settings import encode_setting
from xo_core.signing import Signer

ID = channel_id(XO_TERMS)


def xo(turn: int, position: str, crosses: int, noughts: int, balances: tuple[int, int], final: bool = False) -> State:
    return State(ID, turn, final, xo_app.XoData(position, crosses, noughts), balances)


#: Alice's X in the centre, Bob's O top left, Alice's X top right: the stake swings with every move.
TURN_1 = xo(1, "XPlaying", 16, 0, (110, 90))
TURN_2 = xo(2, "OPlaying", 16, 256, (90, 110))
TURN_3 = xo(3, "XPlaying", 16 | 64, 256, (110, 90))
FINAL = xo(4, "PlayAgainMeFirst", 0, 0, (105, 95), final=True)


@pytest.fixture
def chain() -> Chain:
    chain = Chain()
    chain.submit(tx.issue(ISSUER, ALICE.public_key, 1000))
    chain.submit(tx.issue(ISSUER, BOB.public_key, 1000))
    return chain


@pytest.fixture
def running(chain: Chain) -> Chain:
    chain.submit(tx.open_channel(ALICE, XO_TERMS))
    chain.submit(tx.join(BOB, XO_TERMS, 100))
    return chain


def signed_op(signer: Signer, op: Op) -> Transaction:
    """``op`` on the XO channel signed by ``signer``, built past the client library's own checks."""
    inputs, outputs = channel_addresses(ID, XO_TERMS.participants)
    return make_transaction(
        signer, encode_payload(op), family_name=FAMILY_NAME, family_version=FAMILY_VERSION, inputs=inputs,
        outputs=outputs,
    )  # fmt: skip


def move(state: State, signer: Signer) -> SignedState:
    return tx.sign_move(XO_TERMS, state, signer)


def test_it_is_the_chips_family_handler():
    handler = ChipsTransactionHandler()
    assert isinstance(handler, TransactionHandler)
    assert (handler.family_name, handler.family_versions, handler.namespaces) == ("chips", ["1.0"], ["7d3d52"])


def test_an_issuer_issues_and_an_account_transfers(chain: Chain):
    event = chain.submit(tx.transfer(ALICE, BOB.public_key, 250))
    assert (chain.balance(ALICE), chain.balance(BOB)) == (750, 1250)
    assert event.event_type == "chips/transfer"
    assert event.attributes == [("account", BOB.public_key), ("signer", ALICE.public_key)]
    assert cbor2.loads(event.data) == {"key": BOB.public_key, "balance": 1250}


def test_a_transfer_of_everything_empties_the_account_record(chain: Chain):
    chain.submit(tx.transfer(ALICE, BOB.public_key, 1000))
    assert account_address(ALICE.public_key) not in chain.state


def test_open_join_conclude_pays_the_final_balances(running: Chain):
    assert running.channel(XO_TERMS).status == RUNNING
    assert (running.balance(ALICE), running.balance(BOB)) == (900, 900)
    event = running.submit(tx.conclude(BOB, XO_TERMS, tx.signed_state(XO_TERMS, FINAL, ALICE, BOB)))
    channel = running.channel(XO_TERMS)
    assert (channel.status, channel.held, channel.payout, channel.turn) == (CLOSED, 0, (105, 95), 4)
    assert (running.balance(ALICE), running.balance(BOB)) == (1005, 995)
    assert event.event_type == "chips/conclude"
    assert event.attributes == [("channel", ID.hex()), ("status", "closed"), ("turn", "4"), ("signer", BOB.public_key)]
    assert event.data == encode_channel(channel)


def test_the_first_state_is_a_resting_one_and_the_opener_moves_first(running: Chain):
    channel = running.channel(XO_TERMS)
    assert channel.state == tx.state_bytes(XO_TERMS, xo(0, "PlayAgainMeSecond", 0, 0, (100, 100)))
    with pytest.raises(ValueError, match="participant 0's"):
        move(TURN_1, BOB)


def test_a_challenge_unanswered_is_finalized_after_the_deadline(running: Chain):
    running.submit(tx.challenge(ALICE, XO_TERMS, (move(TURN_1, ALICE),)))
    assert running.channel(XO_TERMS).challenge == (NOW + 60, ALICE.public_key)
    running.at(NOW + 59)
    assert running.refused(tx.finalize(CAROL, XO_TERMS)).endswith("1 seconds left to answer it")
    running.at(NOW + 60)
    running.submit(tx.finalize(CAROL, XO_TERMS))
    assert (running.balance(ALICE), running.balance(BOB)) == (1010, 990)


def test_a_challenge_is_cleared_by_the_challenged_players_move(running: Chain):
    running.submit(tx.challenge(ALICE, XO_TERMS, (move(TURN_1, ALICE),)))
    running.submit(tx.respond(BOB, XO_TERMS, move(TURN_2, BOB)))
    channel = running.channel(XO_TERMS)
    assert (channel.challenge, channel.turn) == (None, 2)
    assert "no challenge to finalize" in running.refused(tx.finalize(ALICE, XO_TERMS))


def test_a_challenge_is_cleared_by_a_checkpoint(running: Chain):
    running.submit(tx.challenge(BOB, XO_TERMS, (move(TURN_1, ALICE), move(TURN_2, BOB))))
    running.submit(tx.checkpoint(ALICE, XO_TERMS, (move(TURN_2, BOB), move(TURN_3, ALICE))))
    channel = running.channel(XO_TERMS)
    assert (channel.challenge, channel.turn) == (None, 3)


def test_open_pays_the_openers_deposit_in_and_join_the_opponents(chain: Chain):
    chain.submit(tx.open_channel(ALICE, XO_TERMS))
    channel = chain.channel(XO_TERMS)
    assert (channel.status, channel.funded, channel.held, chain.balance(ALICE)) == (FUNDING, (True, False), 100, 900)
    chain.submit(tx.join(BOB, XO_TERMS, 100))
    channel = chain.channel(XO_TERMS)
    assert (channel.status, channel.funded, channel.held, channel.turn) == (RUNNING, (True, True), 200, 0)
    assert (chain.balance(ALICE), chain.balance(BOB)) == (900, 900)


def test_an_open_without_the_deposit_in_the_account_is_refused(chain: Chain):
    poor = Fixed((CAROL.public_key, BOB.public_key), "xo", 10, (100, 100), 60, 1)
    reason = chain.refused(tx.open_channel(CAROL, poor))
    assert reason == (
        f"the deposit into channel {channel_id(poor).hex()[:8]}... needs 100 chips but the account "
        f"{CAROL.public_key[:8]}... holds 0"
    )


def test_an_open_must_leave_at_least_the_networks_floor_to_answer_a_challenge(chain: Chain):
    """chips.min_challenge_seconds (60 here) sets the floor; unset, it is 600 s, a watchtower's margin (the spec)."""
    short = XO_TERMS._replace(duration=FLOOR - 1)
    assert chain.refused(tx.open_channel(ALICE, short)) == (
        f"cannot open the channel: a challenge duration of {FLOOR - 1} seconds is below this network's floor of "
        f"{FLOOR} (the setting chips.min_challenge_seconds): a challenge that short could expire before a watchtower "
        "can answer it"
    )
    del chain.state[MIN_CHALLENGE_ADDRESS]
    assert "below this network's floor of 600" in chain.refused(tx.open_channel(ALICE, XO_TERMS))
    chain.submit(tx.open_channel(ALICE, XO_TERMS._replace(duration=600)))
    chain.state[MIN_CHALLENGE_ADDRESS] = encode_setting({"chips.min_challenge_seconds": "1"})
    chain.submit(tx.open_channel(ALICE, XO_TERMS._replace(duration=1)))
    chain.state[MIN_CHALLENGE_ADDRESS] = encode_setting({"chips.min_challenge_seconds": "a minute"})
    assert chain.refused(tx.open_channel(ALICE, XO_TERMS)) == (
        "the setting chips.min_challenge_seconds is 'a minute', not a whole number of seconds from 1 to 2592000: no "
        "channel can be opened until it is corrected"
    )


def test_an_open_that_does_not_list_the_floor_setting_is_refused_saying_what_to_list(chain: Chain):
    inputs, outputs = channel_addresses(ID, XO_TERMS.participants)
    opening = Open(BOB.public_key, "xo", 10, (100, 100), 60, 1)
    bare = make_transaction(ALICE, encode_payload(opening), family_name=FAMILY_NAME, family_version=FAMILY_VERSION,
                            inputs=inputs, outputs=outputs)  # fmt: skip
    assert chain.refused(bare) == (
        f"an open reads the setting chips.min_challenge_seconds: list {MIN_CHALLENGE_ADDRESS} in its inputs"
    )


def test_only_the_opponent_joins_once_with_the_deposit_in_their_account(chain: Chain):
    rich = Fixed((ALICE.public_key, BOB.public_key), "xo", 10, (100, 1001), 60, 3)
    chain.submit(tx.open_channel(ALICE, rich))
    assert "needs 1001 chips but the account" in chain.refused(tx.join(BOB, rich, 100))
    chain.submit(tx.open_channel(ALICE, XO_TERMS))
    opener_joins = signed_op(ALICE, Join(ID, 100))
    assert "you opened channel" in chain.refused(opener_joins)
    stranger = signed_op(CAROL, Join(ID, 100))
    assert "only the channel's participants may join it" in chain.refused(stranger)
    chain.submit(tx.join(BOB, XO_TERMS, 100))
    assert "is running: it is joined only while it is funding" in chain.refused(tx.join(BOB, XO_TERMS, 200))


def test_cancel_before_the_opponent_joins_returns_the_openers_deposit(chain: Chain):
    chain.submit(tx.open_channel(ALICE, XO_TERMS))
    assert (chain.channel(XO_TERMS).status, chain.balance(ALICE)) == (FUNDING, 900)
    chain.submit(tx.cancel(BOB, XO_TERMS))
    assert (chain.balance(ALICE), chain.balance(BOB), chain.channel(XO_TERMS).payout) == (1000, 1000, (100, 0))
    assert "closed and paid out already" in chain.refused(tx.join(BOB, XO_TERMS, 100))
    assert "already exists (closed)" in chain.refused(tx.open_channel(ALICE, XO_TERMS))


def test_an_rps_round_with_a_decline_through_the_handler(chain: Chain):
    chain.submit(tx.open_channel(ALICE, RPS_TERMS))
    chain.submit(tx.join(BOB, RPS_TERMS, 100))
    rps_id = channel_id(RPS_TERMS)
    salt = bytes(range(32))

    def rps(turn: int, data: rps_app.RpsData, balances: tuple[int, int]) -> State:
        return State(rps_id, turn, False, data, balances)

    pledge = commitment(rps_id.hex(), 1, ALICE.public_key, "rock", salt)
    proposed = rps(1, rps_app.RpsData("RoundProposed", 1, pledge, None, None, None), (100, 100))
    declined = rps(2, rps_app.RpsData("Start", 1, None, None, None, None), (100, 100))
    pledge_2 = commitment(rps_id.hex(), 2, ALICE.public_key, "rock", salt)
    proposed_2 = rps(3, rps_app.RpsData("RoundProposed", 2, pledge_2, None, None, None), (100, 100))
    accepted = rps(4, rps_app.RpsData("RoundAccepted", 2, pledge_2, "scissors", None, None), (90, 110))
    revealed = rps(5, rps_app.RpsData("Reveal", 2, pledge_2, "scissors", "rock", salt), (110, 90))
    states = [proposed, declined, proposed_2, accepted, revealed]
    signers = [ALICE, BOB, ALICE, BOB, ALICE]
    for state, signer in zip(states, signers, strict=True):
        chain.submit(tx.checkpoint(signer, RPS_TERMS, (tx.sign_move(RPS_TERMS, state, signer),)))
    assert chain.channel(RPS_TERMS).turn == 5
    final = rps(6, rps_app.RpsData("Start", 2, None, None, None, None), (110, 90))._replace(final=True)
    chain.submit(tx.conclude(ALICE, RPS_TERMS, tx.signed_state(RPS_TERMS, final, ALICE, BOB)))
    assert (chain.balance(ALICE), chain.balance(BOB)) == (1010, 990)


# The attacks the issue lists, each refused with a reason that says what is wrong.


def test_a_state_of_another_channel_is_refused(running: Chain):
    other = Fixed(XO_TERMS.participants, "xo", 10, (100, 100), 60, 99)
    foreign = tx.sign_move(other, TURN_1._replace(channel=channel_id(other)), ALICE)
    reason = running.refused(tx.challenge(ALICE, XO_TERMS, (foreign,)))
    assert f"is a state of channel {channel_id(other).hex()}, not of {ID.hex()}" in reason


def test_a_signature_tagged_for_another_purpose_is_refused(running: Chain):
    data = tx.state_bytes(XO_TERMS, TURN_1)
    challenge_signature = sign(ALICE, challenge_message(data))
    reason = running.refused(tx.checkpoint(BOB, XO_TERMS, (SignedState(data, (challenge_signature, None)),)))
    assert "participant 0's signature on turn 1 does not verify" in reason
    state_signed = move(TURN_1, ALICE)
    state_signature_as_challenge = Challenge(ID, (state_signed,), state_signed.signatures[0] or b"")
    inputs, outputs = channel_addresses(ID, XO_TERMS.participants)
    forged = make_transaction(
        ALICE, encode_payload(state_signature_as_challenge), family_name=FAMILY_NAME, family_version=FAMILY_VERSION,
        inputs=inputs, outputs=outputs,
    )  # fmt: skip
    assert "the challenger's signature does not verify" in running.refused(forged)


def test_a_challenge_with_a_stale_state_after_a_checkpoint_is_refused(running: Chain):
    running.submit(tx.checkpoint(BOB, XO_TERMS, (move(TURN_1, ALICE), move(TURN_2, BOB))))
    stale = tx.signed_state(XO_TERMS, TURN_1, ALICE, BOB)
    reason = running.refused(tx.challenge(ALICE, XO_TERMS, (stale,)))
    assert reason == "the state of turn 1 is stale: the chain has recorded turn 2"


def test_a_challenge_by_a_non_participant_is_refused(running: Chain):
    reason = running.refused(tx.challenge(CAROL, XO_TERMS, (move(TURN_1, ALICE),)))
    assert reason == f"only the channel's participants may challenge it; {CAROL.public_key[:8]}... is not one"


def test_a_respond_that_is_not_a_valid_move_is_refused(running: Chain):
    running.submit(tx.challenge(ALICE, XO_TERMS, (move(TURN_1, ALICE),)))
    cheat = xo(2, "OPlaying", 16, 256, (80, 120))
    reason = running.refused(tx.respond(BOB, XO_TERMS, move(cheat, BOB)))
    assert reason == (
        "the response is not a valid move from turn 1: "
        "XPlaying -> OPlaying by participant 1 makes the balances 90 and 110, not 80 and 120"
    )
    assert "balances total 210 chips but the channel holds 200" in running.refused(
        tx.respond(BOB, XO_TERMS, move(cheat._replace(balances=(90, 120)), BOB))
    )


def test_a_conclude_signed_by_one_side_is_refused(running: Chain):
    reason = running.refused(tx.conclude(ALICE, XO_TERMS, tx.signed_state(XO_TERMS, FINAL, ALICE)))
    assert reason == "a final state concludes a channel only when both participants have signed it"


def test_a_join_expecting_another_holding_is_refused(chain: Chain):
    chain.submit(tx.open_channel(ALICE, XO_TERMS))
    reason = chain.refused(tx.join(BOB, XO_TERMS, 0))
    assert "holds 100 chips, not the 0 you expected: it changed since you looked" in reason


def test_finalize_before_the_deadline_is_refused(running: Chain):
    running.submit(tx.challenge(ALICE, XO_TERMS, (move(TURN_1, ALICE),)))
    reason = running.refused(tx.finalize(BOB, XO_TERMS))
    assert reason == f"the challenge on channel {ID.hex()[:8]}... runs until {NOW + 60}: 60 seconds left to answer it"


def test_a_payout_twice_is_refused(running: Chain):
    running.submit(tx.challenge(ALICE, XO_TERMS, (move(TURN_1, ALICE),)))
    running.at(NOW + 60)
    running.submit(tx.finalize(BOB, XO_TERMS))
    assert running.refused(tx.finalize(BOB, XO_TERMS)).endswith("is closed and paid out already")
    final = tx.signed_state(XO_TERMS, FINAL, ALICE, BOB)
    assert running.refused(tx.conclude(BOB, XO_TERMS, final)).endswith("is closed and paid out already")


def test_an_issue_by_a_non_issuer_is_refused(chain: Chain):
    reason = chain.refused(tx.issue(ALICE, ALICE.public_key, 5))
    assert reason == (
        f"only the keys in the setting chips.issuers may issue chips; {ALICE.public_key[:8]}... is not one "
        "(2 keys are listed)"
    )


def test_chips_are_never_sent_into_the_void(chain: Chain):
    """A well-spelt key that is not a curve point: nobody could ever sign for the chips, so nothing moves."""
    void = "02" + "11" * 32
    for transaction in (tx.transfer(ALICE, void, 5), tx.issue(ISSUER, void, 5)):
        assert "'to' (02111111...) is not a point on secp256k1" in chain.refused(transaction)
    assert chain.balance(ALICE) == 1000


def test_a_transfer_of_more_than_the_balance_is_refused(chain: Chain):
    reason = chain.refused(tx.transfer(ALICE, BOB.public_key, 1001))
    assert reason == f"the transfer needs 1001 chips but the account {ALICE.public_key[:8]}... holds 1000"


def test_an_issue_that_would_overflow_an_account_is_refused(chain: Chain):
    reason = chain.refused(tx.issue(ISSUER, ALICE.public_key, 2**64 - 1000))
    assert "would hold more than 18446744073709551615 chips (overflow)" in reason


def test_a_response_after_the_deadline_is_refused(running: Chain):
    running.submit(tx.challenge(ALICE, XO_TERMS, (move(TURN_1, ALICE),)))
    running.at(NOW + 60)
    assert "expired at" in running.refused(tx.respond(BOB, XO_TERMS, move(TURN_2, BOB)))


def test_a_checkpoint_no_newer_than_the_chain_is_refused(running: Chain):
    running.submit(tx.checkpoint(ALICE, XO_TERMS, (move(TURN_1, ALICE),)))
    reason = running.refused(tx.checkpoint(ALICE, XO_TERMS, (tx.signed_state(XO_TERMS, TURN_1, ALICE, BOB),)))
    assert reason == "a checkpoint needs a turn above the chain's 1, not 1"


def test_a_move_signed_by_the_wrong_player_does_not_support_a_state(running: Chain):
    by_bob = tx.signed_state(XO_TERMS, TURN_1, BOB)
    reason = running.refused(tx.challenge(BOB, XO_TERMS, (by_bob,)))
    assert "is not signed by its mover, participant 0" in reason


def test_a_final_state_cannot_be_challenged_only_concluded(running: Chain):
    final = tx.signed_state(XO_TERMS, FINAL, ALICE, BOB)
    reason = running.refused(tx.challenge(ALICE, XO_TERMS, (final,)))
    assert reason == "the state of turn 4 is final: a final state signed by both is concluded"


def test_the_player_to_move_answers_even_when_they_called_the_challenge(running: Chain):
    running.submit(tx.challenge(ALICE, XO_TERMS, (move(TURN_1, ALICE), move(TURN_2, BOB))))
    assert running.channel(XO_TERMS).challenge == (NOW + 60, ALICE.public_key)
    running.submit(tx.respond(ALICE, XO_TERMS, move(TURN_3, ALICE)))
    assert (running.channel(XO_TERMS).challenge, running.channel(XO_TERMS).turn) == (None, 3)


def test_a_payout_that_differs_from_what_the_channel_holds_is_an_internal_error_and_pays_nothing(chain: Chain):
    chain.submit(tx.open_channel(ALICE, XO_TERMS))
    address = channel_address(ID)
    chain.state[address] = encode_channel(chain.channel(XO_TERMS)._replace(held=150))  # a corrupt record
    before = dict(chain.state)
    with pytest.raises(InternalError, match="would pay out 100 chips but holds 150; nothing was paid"):
        ChipsTransactionHandler().apply(request(tx.cancel(ALICE, XO_TERMS)), FakeContext(chain.state, [address[:6]]))
    assert chain.state == before


def turn_zero(chain: Chain) -> tuple[SignedState]:
    """The chain's own turn 0 of the XO channel, unsigned, as a challenge presents it."""
    state = chain.channel(XO_TERMS).state
    assert state is not None
    return tx.chain_turn_zero(state)


def test_an_opener_who_never_moves_is_challenged_at_turn_0_and_both_deposits_come_back(running: Chain):
    running.submit(tx.challenge(BOB, XO_TERMS, turn_zero(running)))
    channel = running.channel(XO_TERMS)
    assert (channel.turn, channel.challenge) == (0, (NOW + 60, BOB.public_key))
    running.at(NOW + 60)
    running.submit(tx.finalize(BOB, XO_TERMS))
    assert running.channel(XO_TERMS).payout == (100, 100)
    assert (running.balance(ALICE), running.balance(BOB)) == (1000, 1000)


def test_the_openers_first_move_clears_a_challenge_at_turn_0(running: Chain):
    at_turn_0 = tx.challenge(BOB, XO_TERMS, turn_zero(running))
    running.submit(at_turn_0)
    running.submit(tx.respond(ALICE, XO_TERMS, move(TURN_1, ALICE)))
    channel = running.channel(XO_TERMS)
    assert (channel.turn, channel.challenge) == (1, None)
    assert running.refused(at_turn_0) == "the state of turn 0 is stale: the chain has recorded turn 1"


def test_turn_0_unsigned_is_refused_once_a_newer_turn_is_recorded(running: Chain):
    unsigned = turn_zero(running)
    running.submit(tx.checkpoint(ALICE, XO_TERMS, (move(TURN_1, ALICE),)))
    reason = running.refused(tx.challenge(BOB, XO_TERMS, unsigned))
    assert reason == "the state of turn 0 is stale: the chain has recorded turn 1"


def test_only_the_chains_own_turn_0_is_supported_unsigned(running: Chain):
    unsigned_turn_1 = (SignedState(tx.state_bytes(XO_TERMS, TURN_1), (None, None)),)
    reason = running.refused(tx.challenge(BOB, XO_TERMS, unsigned_turn_1))
    assert reason == "the state of turn 1 is signed by nobody: only the chain's turn 0 is supported unsigned"
    other = State(ID, 0, False, xo_app.XoData("XPlaying", 0, 0), (150, 50))
    reason = running.refused(tx.challenge(BOB, XO_TERMS, (SignedState(tx.state_bytes(XO_TERMS, other), (None, None)),)))
    assert reason == "the unsigned state of turn 0 is not the one the chain recorded when both deposits were in"


def test_a_turn_0_challenge_needs_the_challengers_signature_for_a_challenge(running: Chain):
    proof = turn_zero(running)
    as_a_state = tx.signed_state(XO_TERMS, xo(0, "XPlaying", 0, 0, (100, 100)), BOB).signatures[1]
    assert as_a_state is not None
    reason = running.refused(signed_op(BOB, Challenge(ID, proof, as_a_state)))
    assert "the challenger's signature does not verify" in reason
    by_carol = signed_op(CAROL, Challenge(ID, proof, sign(CAROL, challenge_message(proof[0].state))))
    assert "only the channel's participants may challenge it" in running.refused(by_carol)


def test_a_channel_still_funding_has_no_turn_0_to_challenge(chain: Chain):
    chain.submit(tx.open_channel(ALICE, XO_TERMS))
    first = State(ID, 0, False, xo_app.XoData("XPlaying", 0, 0), (100, 100))
    proof = (SignedState(tx.state_bytes(XO_TERMS, first), (None, None)),)
    assert "is funding: both deposits must be paid first" in chain.refused(tx.challenge(BOB, XO_TERMS, proof))
