"""An rps transaction on the chain in words, decoded with the family's own codec: ``rps commit match round 1``."""

from __future__ import annotations

from sawtooth_sdk.processor.exceptions import InvalidTransaction

from client_core.blocks import ChainTransaction
from client_core.chain_words import Namer, unreadable, word
from rps_tp.family import FAMILY_NAME
from rps_tp.game import DEFAULT_SETTINGS, describe_settings
from rps_tp.ops import Commit, Create, Ready, Reveal, Setup
from rps_tp.payload import parse_payload


def words(transaction: ChainTransaction, _name: Namer) -> str:
    """``rps create match (first to 2 points, 300 seconds to act)``, ``rps reveal match round 1: rock``, ..."""
    try:
        op = parse_payload(transaction.payload)
    except InvalidTransaction as error:
        return unreadable(FAMILY_NAME, str(error))
    said = f"{FAMILY_NAME} {op.NAME} {word(op.name)}"
    match op:
        case Create():
            joining = "" if op.join else ", without joining it"
            return f"{said} ({describe_settings(op.settings or DEFAULT_SETTINGS)}{joining})"
        case Setup() | Ready():
            return f"{said} ({describe_settings(op.settings)})"
        case Commit():
            return f"{said} round {op.at.round}"
        case Reveal():
            return f"{said} round {op.at.round}: {op.throw}"
    return said
