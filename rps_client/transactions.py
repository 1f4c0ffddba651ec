"""Signed rps transactions, as a client builds them: one op, with the inputs and outputs the specification lists.

Every op on an existing game names the moment (round and phase) it is signed for: the
moment of the game as the client read it from committed state (:func:`signed_for`), or,
for a commitment and a reveal, the round's commit and reveal phases themselves.
"""

from __future__ import annotations

from typing import Final

from rps_tp.family import FAMILY_NAME, FAMILY_VERSION, transaction_inputs, transaction_outputs
from rps_tp.game import (
    COMMIT_PHASE,
    DEFAULT_SETTINGS,
    JOIN_PHASE,
    REVEAL_PHASE,
    Game,
    Moment,
    describe_settings,
    moment_of,
)
from rps_tp.ops import Create, Op, Ready, Setup
from rps_tp.payload import encode_payload
from xo_core.batches import make_transaction
from xo_core.protobuf.transaction_pb2 import Transaction
from xo_core.signing import Signer
from xo_core.text import game_label

#: What an op on a game that was not found is signed for (sent anyway, for the validator's own refusal):
#: the first moment of any game, the one a game created without a host is at.
NO_GAME: Final = Moment(0, JOIN_PHASE)


def signed_for(game: Game | None) -> Moment:
    """The moment an op on ``game``, as read from committed state, is signed for: the one it is at."""
    return NO_GAME if game is None else moment_of(game)


def commit_moment(round_number: int) -> Moment:
    """What a commitment in ``round_number`` is signed for: that round's commit phase."""
    return Moment(round_number, COMMIT_PHASE)


def reveal_moment(round_number: int) -> Moment:
    """What a reveal in ``round_number`` is signed for: that round's reveal phase, once both have committed."""
    return Moment(round_number, REVEAL_PHASE)


def make_rps_transaction(signer: Signer, op: Op, *, nonce: str | None = None) -> Transaction:
    """Sign one rps op on its game: the game's address and BlockInfo's in, the game's address out."""
    return make_transaction(
        signer,
        encode_payload(op),
        family_name=FAMILY_NAME,
        family_version=FAMILY_VERSION,
        inputs=transaction_inputs(op.name),
        outputs=transaction_outputs(op.name),
        nonce=nonce,
    )


def describe(op: Op) -> str:
    """The op as output lines name it: ``create game 'g1' (first to 1 point, 300 seconds to act)``."""
    label = game_label(op.name)
    match op:
        case Create():
            settings = describe_settings(op.settings or DEFAULT_SETTINGS)
            return f"create {label} ({settings}{'' if op.join else ', without joining it'})"
        case Setup():
            return f"set up {label} as {describe_settings(op.settings)}"
        case Ready():
            return f"ready for {label} ({describe_settings(op.settings)})"
    return f"{op.NAME} {label}"
