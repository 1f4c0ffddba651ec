"""Signed XO transactions, as a client builds them: one move, the game's address as its only input and output."""

from __future__ import annotations

from xo_client.notation import grid_name
from xo_core.batches import make_transaction
from xo_core.protobuf.transaction_pb2 import Transaction
from xo_core.signing import Signer
from xo_core.text import game_label
from xo_tp.family import FAMILY_NAME, FAMILY_VERSION, game_address
from xo_tp.payload import encode_payload


def make_xo_transaction(
    signer: Signer,
    name: str,
    action: str,
    space: int | None = None,
    *,
    nonce: str | None = None,
    batcher_public_key: str | None = None,
) -> Transaction:
    """Sign one XO move; its only input and output is the game's address.

    The batch that carries it must be signed by ``batcher_public_key`` (the signer by
    default): a batch holding moves of two players is signed by one of them.
    """
    address = game_address(name)
    return make_transaction(
        signer,
        encode_payload(name, action, space),
        family_name=FAMILY_NAME,
        family_version=FAMILY_VERSION,
        inputs=[address],
        outputs=[address],
        nonce=nonce,
        batcher_public_key=batcher_public_key,
    )


def describe(action: str, name: str, space: int | None) -> str:
    """The move as the output names it, with the space in both notations so either reading is confirmed."""
    if action == "take" and space is not None:
        return f"take {space} ({grid_name(space)}) in {game_label(name)}"
    return f"{action} {game_label(name)}"
