"""An XO transaction on the chain in words, decoded with the family's own codec: ``xo take game1 5``."""

from __future__ import annotations

from sawtooth_sdk.processor.exceptions import InvalidTransaction

from client_core.blocks import ChainTransaction
from client_core.chain_words import Namer, unreadable, word
from xo_tp.family import FAMILY_NAME
from xo_tp.payload import parse_payload


def words(transaction: ChainTransaction, _name: Namer) -> str:
    """``xo create game1``, ``xo take game1 5``, ``xo delete game1``."""
    try:
        move = parse_payload(transaction.payload)
    except InvalidTransaction as error:
        return unreadable(FAMILY_NAME, str(error))
    space = f" {move.space}" if move.space is not None else ""
    return f"{FAMILY_NAME} {move.action} {word(move.name)}{space}"
