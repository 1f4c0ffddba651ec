"""Signed tournament transactions, as a client builds them, each listing the inputs and outputs the spec gives.

``start`` and ``advance`` list the prefixes of accounts and channels (they may pay any
player and write any channel the pairing makes); ``result`` lists the one channel of its
pairing, found from the tournament's record.
"""

from __future__ import annotations

from chips_tp.channel import channel_id
from chips_tp.family import (
    ACCOUNT_TYPE,
    CHANNEL_TYPE,
    FAMILY_NAME,
    FAMILY_VERSION,
    MIN_CHALLENGE_ADDRESS,
    NAMESPACE,
    account_address,
    channel_address,
    tournament_addresses,
)  # fmt: skip
from chips_tp.payload import encode_payload
from chips_tp.tournament import Tournament, match_fixed
from chips_tp.tournament_ops import Advance, Create, Enter, Leave, Result, Start, TournamentOp
from xo_core.batches import make_transaction
from xo_core.protobuf.transaction_pb2 import Transaction
from xo_core.signing import Signer

#: What a start or an advance may write besides the record: any account, any channel.
EVERY_ACCOUNT_AND_CHANNEL = (NAMESPACE + ACCOUNT_TYPE, NAMESPACE + CHANNEL_TYPE)


def _signed(signer: Signer, op: TournamentOp, addresses: tuple[list[str], list[str]]) -> Transaction:
    inputs, outputs = addresses
    return make_transaction(
        signer, encode_payload(op), family_name=FAMILY_NAME, family_version=FAMILY_VERSION, inputs=inputs,
        outputs=outputs,
    )  # fmt: skip


def create(signer: Signer, op: Create) -> Transaction:
    """The organiser's ``create``; it reads the challenge floor too."""
    inputs, outputs = tournament_addresses(op.name)
    return _signed(signer, op, ([*inputs, MIN_CHALLENGE_ADDRESS], outputs))


def enter(signer: Signer, name: str, buy_in: int) -> Transaction:
    """The signer's ``enter``, agreeing to pay ``buy_in``."""
    return _signed(signer, Enter(name, buy_in), tournament_addresses(name, account_address(signer.public_key)))


def leave(signer: Signer, name: str) -> Transaction:
    """The signer's ``leave`` before the start: their buy-in back."""
    return _signed(signer, Leave(name), tournament_addresses(name, account_address(signer.public_key)))


def start(signer: Signer, name: str) -> Transaction:
    """Anyone's ``start``."""
    return _signed(signer, Start(name), tournament_addresses(name, *EVERY_ACCOUNT_AND_CHANNEL))


def advance(signer: Signer, name: str) -> Transaction:
    """Anyone's ``advance``."""
    return _signed(signer, Advance(name), tournament_addresses(name, *EVERY_ACCOUNT_AND_CHANNEL))


def result(signer: Signer, tournament: Tournament, round_number: int, board: int) -> Transaction:
    """Anyone's ``result`` of ``board`` in ``round_number``, listing the channel the tournament made for it."""
    address = channel_address(channel_id(match_fixed(tournament, round_number, board)))
    return _signed(signer, Result(tournament.name, round_number, board), tournament_addresses(tournament.name, address))
