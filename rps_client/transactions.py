"""Signed rps transactions, as a client builds them: one op, with the inputs and outputs the specification lists."""

from __future__ import annotations

from rps_tp.family import FAMILY_NAME, FAMILY_VERSION, transaction_inputs, transaction_outputs
from rps_tp.game import DEFAULT_SETTINGS, describe_settings
from rps_tp.ops import Create, Op, Ready, Setup
from rps_tp.payload import encode_payload
from xo_core.batches import make_transaction
from xo_core.protobuf.transaction_pb2 import Transaction
from xo_core.signing import Signer
from xo_core.text import game_label


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
