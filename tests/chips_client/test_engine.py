"""A player's view of a channel: which received states are accepted, which refused and why, and the proofs sent."""

from __future__ import annotations

import pytest

from chips_client import moves
from chips_client import transactions as tx
from chips_client.engine import Channel, Held, Refusal, Stale
from chips_tp import xo_app
from chips_tp.channel import Fixed, channel_id
from chips_tp.channel_state import State
from chips_tp.ops import SignedState
from xo_core.signing import Signer

ALICE = Signer.from_hex("00" * 31 + "01")
BOB = Signer.from_hex("00" * 31 + "02")
FIXED = Fixed((ALICE.public_key, BOB.public_key), "xo", 10, (100, 100), 60, 1)
START = State(channel_id(FIXED), 0, False, xo_app.INITIAL, (100, 100))


def bobs_view() -> tuple[Channel, State]:
    """Bob holds turn 0; Alice's centre opening is what he receives."""
    channel = Channel(FIXED, 1, [Held(START, SignedState(tx.state_bytes(FIXED, START), (None, None)))])
    return channel, moves.xo_next(START, FIXED, 5)


def test_the_opponents_valid_move_is_accepted():
    channel, move = bobs_view()
    assert channel.check(tx.sign_move(FIXED, move, ALICE)) == move


@pytest.mark.parametrize(
    ("make", "reason"),
    [
        (lambda m: tx.signed_state(FIXED, m, BOB), "not signed by its mover"),
        (lambda m: SignedState(tx.state_bytes(FIXED, m), (tx.sign_move(FIXED, m, ALICE).signatures[0][::-1], None)),
         "does not verify"),
        (lambda m: tx.sign_move(FIXED, m._replace(balances=(150, 50)), ALICE), "not a valid move"),
        (lambda m: tx.sign_move(FIXED, m._replace(turn=3), ALICE), "skips ahead"),
        (lambda m: tx.sign_move(FIXED, m._replace(channel=bytes(32)), ALICE), "a state of channel"),
        (lambda m: tx.sign_move(FIXED, m._replace(balances=(120, 90)), ALICE), "total 210"),
        (lambda m: tx.sign_move(FIXED, moves.final_of(START)._replace(balances=(110, 90)), ALICE), "must keep"),
    ],
)  # fmt: skip
def test_an_invalid_state_is_refused_with_the_reason_and_the_latest_stays(make, reason):
    channel, move = bobs_view()
    with pytest.raises(Refusal, match=reason):
        channel.check(make(move))
    assert channel.latest.state == START


def test_a_state_already_held_is_stale():
    channel, move = bobs_view()
    signed = tx.sign_move(FIXED, move, ALICE)
    channel.accept(channel.check(signed), signed)
    with pytest.raises(Stale):
        channel.check(signed)


def test_a_final_state_is_accepted_only_after_a_settled_position_with_nothing_changed():
    channel, move = bobs_view()
    signed = tx.sign_move(FIXED, move, ALICE)
    channel.accept(move, signed)
    reply = moves.xo_next(move, FIXED, 1)
    channel.accept(reply, tx.sign_move(FIXED, reply, BOB))
    early = moves.final_of(reply)._replace(turn=3)
    with pytest.raises(Refusal, match="settled"):
        channel.check(tx.signed_state(FIXED, early, ALICE))


def test_the_proof_is_the_chains_turn_0_then_the_latest_with_the_state_before_it_and_never_a_final_state():
    channel, move = bobs_view()
    assert channel.proof() == tx.chain_turn_zero(channel.latest.signed.state)  # the chain's own turn 0, unsigned
    first = tx.sign_move(FIXED, move, ALICE)
    channel.accept(move, first)
    assert channel.proof() == (first,)
    reply = moves.xo_next(move, FIXED, 1)
    second = tx.sign_move(FIXED, reply, BOB)
    channel.accept(reply, second)
    assert channel.proof() == (first, second)
    final = moves.final_of(reply)._replace(turn=3)
    channel.history.append(Held(final, tx.signed_state(FIXED, final, ALICE)))
    assert channel.proof() == (first, second)
