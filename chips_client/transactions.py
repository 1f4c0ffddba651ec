"""Signed chips transactions, as a client builds them, and the signing of off-chain states.

Each builder lists the inputs and outputs the specification gives for its op; channel
ops take the channel's fixed terms (:class:`chips_tp.channel.Fixed`), from which the id
and the participants' accounts follow.
"""

from __future__ import annotations

from chips_tp.apps import APPS
from chips_tp.channel import Fixed, channel_id, mover
from chips_tp.channel_state import State, encode_state
from chips_tp.family import (
    FAMILY_NAME,
    FAMILY_VERSION,
    channel_addresses,
    issue_addresses,
    open_addresses,
    transfer_addresses,
)  # fmt: skip
from chips_tp.hashes import challenge_message, sign, state_message
from chips_tp.ops import (
    Cancel,
    Challenge,
    Checkpoint,
    Conclude,
    Finalize,
    Issue,
    Join,
    Op,
    Open,
    Respond,
    SignedState,
    Transfer,
)  # fmt: skip
from chips_tp.payload import encode_payload
from xo_core.batches import make_transaction
from xo_core.protobuf.transaction_pb2 import Transaction
from xo_core.signing import Signer


def _signed(signer: Signer, op: Op, addresses: tuple[list[str], list[str]]) -> Transaction:
    inputs, outputs = addresses
    return make_transaction(
        signer, encode_payload(op), family_name=FAMILY_NAME, family_version=FAMILY_VERSION, inputs=inputs,
        outputs=outputs,
    )  # fmt: skip


def issue(signer: Signer, to: str, amount: int) -> Transaction:
    """An issuer's ``issue`` of ``amount`` chips to ``to``."""
    return _signed(signer, Issue(to, amount), issue_addresses(to))


def transfer(signer: Signer, to: str, amount: int) -> Transaction:
    """A ``transfer`` of ``amount`` of the signer's chips to ``to``."""
    return _signed(signer, Transfer(to, amount), transfer_addresses(signer.public_key, to))


def open_channel(signer: Signer, fixed: Fixed) -> Transaction:
    """The opener's ``open`` of the channel ``fixed``, paying their deposit in; the opener is ``fixed.participants[0]``,
    who must sign."""
    if signer.public_key != fixed.participants[0]:
        raise ValueError("the channel's first participant opens it: sign with that key")
    op = Open(fixed.participants[1], fixed.app, fixed.stake, fixed.deposits, fixed.duration, fixed.nonce)
    return _signed(signer, op, open_addresses(channel_id(fixed), fixed.participants))


def _channel_op(signer: Signer, fixed: Fixed, op: Op) -> Transaction:
    return _signed(signer, op, channel_addresses(channel_id(fixed), fixed.participants))


def join(signer: Signer, fixed: Fixed, expected_held: int) -> Transaction:
    """The opponent's ``join``: their deposit, if the channel holds ``expected_held`` chips when it runs."""
    if signer.public_key != fixed.participants[1]:
        raise ValueError("the channel's second participant joins it: sign with that key")
    return _channel_op(signer, fixed, Join(channel_id(fixed), expected_held))


def cancel(signer: Signer, fixed: Fixed) -> Transaction:
    """Close a channel not yet joined; the opener's deposit goes back."""
    return _channel_op(signer, fixed, Cancel(channel_id(fixed)))


def conclude(signer: Signer, fixed: Fixed, final: SignedState) -> Transaction:
    """Close the channel on a final state both participants signed."""
    return _channel_op(signer, fixed, Conclude(channel_id(fixed), final))


def challenge(signer: Signer, fixed: Fixed, proof: tuple[SignedState, ...]) -> Transaction:
    """Challenge with ``proof``; the signer's challenge signature of its last state is made here.

    Before anyone has signed a state, ``proof`` is the chain's turn 0 unsigned: see :func:`chain_turn_zero`.
    """
    signature = sign(signer, challenge_message(proof[-1].state))
    return _channel_op(signer, fixed, Challenge(channel_id(fixed), proof, signature))


def checkpoint(signer: Signer, fixed: Fixed, proof: tuple[SignedState, ...]) -> Transaction:
    """Record a supported state newer than the chain's (and clear a challenge)."""
    return _channel_op(signer, fixed, Checkpoint(channel_id(fixed), proof))


def respond(signer: Signer, fixed: Fixed, move: SignedState) -> Transaction:
    """Answer a challenge with the next move, signed by its mover."""
    return _channel_op(signer, fixed, Respond(channel_id(fixed), move))


def finalize(signer: Signer, fixed: Fixed) -> Transaction:
    """Have an unanswered challenge's state paid out, once its deadline has passed."""
    return _channel_op(signer, fixed, Finalize(channel_id(fixed)))


def chain_turn_zero(state: bytes) -> tuple[SignedState]:
    """The proof of the chain's own turn 0 (its recorded bytes, signed by nobody): what a challenge holds
    before either player has signed a state."""
    return (SignedState(state, (None, None)),)


def state_bytes(fixed: Fixed, state: State) -> bytes:
    """The canonical bytes of an off-chain state of the channel ``fixed``: what is signed and sent."""
    return encode_state(state, APPS[fixed.app].encode)


def signed_state(fixed: Fixed, state: State, *signers: Signer) -> SignedState:
    """``state`` signed by each of ``signers`` (a participant of ``fixed``), in its participant's slot."""
    data = state_bytes(fixed, state)
    signatures: list[bytes | None] = [None, None]
    for signer in signers:
        signatures[fixed.participants.index(signer.public_key)] = sign(signer, state_message(data))
    return SignedState(data, (signatures[0], signatures[1]))


def sign_move(fixed: Fixed, state: State, signer: Signer) -> SignedState:
    """``state`` signed by its mover, who must be ``signer``: the one signature a move needs."""
    if fixed.participants[mover(state.turn)] != signer.public_key:
        raise ValueError(f"turn {state.turn} is participant {mover(state.turn)}'s to sign")
    return signed_state(fixed, state, signer)
