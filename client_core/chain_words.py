"""What a committed transaction did, in words: the contract between ``xo chain`` and each family's client library.

Every family's client library says what its own transactions do, decoding the payload with its own
codec (``xo_client.chain_words``, ``rps_client.chain_words``, ``chips_client.chain_words``); this module,
which knows no game, holds what they share (the shape of that function, how player text and keys are
written into a sentence) and the words of Sawtooth's own BlockInfo, which opens every block.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import Final

from google.protobuf.message import DecodeError

from client_core.blocks import ChainTransaction, ListedBlock
from client_core.keys import KeyNames
from xo_core.block_info import FAMILY_NAME as BLOCK_INFO
from xo_core.protobuf.block_info_pb2 import BlockInfoTxn
from xo_core.text import printable, quoted, short_key

Namer = Callable[[str], str]
"""A public key as a sentence names it: its name in the key directory, else its first characters; escaped."""
Words = Callable[[ChainTransaction, Namer], str]
"""What a family's transaction did, e.g. ``xo take game1 5``: the family's name first."""
MAX_TIMESTAMP: Final = 253402300799
"""9999-12-31T23:59:59Z: a later timestamp (none a validator writes) is shown as this, never a crash."""


def namer(names: KeyNames) -> Namer:
    """A key in a sentence: its name in the key directory, else its first characters; escaped either way."""
    return lambda key: printable(names.name(key) or short_key(key))


def said_by(families: Mapping[str, Words], transaction: ChainTransaction, name: Namer) -> str:
    """What ``transaction`` did, by its family's reader in ``families``; another family is named with its size."""
    words = families.get(transaction.family_name)
    if words is not None:
        return words(transaction, name)
    size = len(transaction.payload)
    family = printable(f"{transaction.family_name} {transaction.family_version}")
    return f"{family}: {size} byte{'' if size == 1 else 's'} of payload"


def word(text: str) -> str:
    """Player text (a game's name) as one word of a sentence: as it is if it is one, else quoted; escaped."""
    shown = printable(text)
    return shown if shown and shown == text and not any(char.isspace() for char in text) else quoted(text, None)


def unreadable(family: str, problem: str) -> str:
    """What is said of a payload the family's codec refuses (never committed by its processor, but read anyway)."""
    return f"{family}: a payload its codec refuses ({printable(problem)})"


def block_info_words(transaction: ChainTransaction, _name: Namer) -> str:
    """Sawtooth's clock, which opens every block: ``block_info: block 7 at 2026-11-27T04:00:00Z``."""
    message = BlockInfoTxn()
    try:
        message.ParseFromString(transaction.payload)
    except DecodeError as error:
        return unreadable(BLOCK_INFO, str(error))
    return f"{BLOCK_INFO}: block {message.block.block_num} at {utc_time(message.block.timestamp)}"


def utc_time(timestamp: int) -> str:
    """A chain time (seconds since 1970) as ``2026-11-27T04:00:00Z``: UTC, the same on every machine."""
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(max(0, min(timestamp, MAX_TIMESTAMP))))


def block_time(block: ListedBlock) -> int | None:
    """When ``block`` was made: the timestamp of the BlockInfo it opens with, which the validator takes as it starts
    the block (Sawtooth's headers carry no time); None for a block without one (genesis) or one that does not read.
    """
    for transaction in block.transactions:
        if transaction.family_name == BLOCK_INFO:
            message = BlockInfoTxn()
            try:
                message.ParseFromString(transaction.payload)
            except DecodeError:
                return None
            return message.block.timestamp
    return None
