"""The one spelling of a public key that a transaction family stores to seat a player.

A validator only checks that the signer's key verifies the transaction's signature,
which uppercase hex and 65-byte uncompressed keys also do. A family that stores
keys and compares them as text (who is player 1? is it your turn?) must give one
key one spelling, or ``02AB...`` and ``02ab...`` would be two players. Every
Sawtooth signing library writes the spelling accepted here.
"""

import re
from typing import Final

#: A compressed secp256k1 public key in lowercase hex: 66 characters, ``02`` or ``03`` first.
COMPRESSED_PUBLIC_KEY: Final = re.compile(r"0[23][0-9a-f]{64}")
DESCRIPTION: Final = "a compressed secp256k1 public key (66 lowercase hex characters starting with 02 or 03)"


def is_compressed_public_key(text: str) -> bool:
    """Whether ``text`` is a public key spelt as Sawtooth's signing libraries write it."""
    return COMPRESSED_PUBLIC_KEY.fullmatch(text) is not None
