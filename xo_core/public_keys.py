"""The one spelling of a public key that a transaction family stores to seat a player, and whether anyone holds it.

A validator only checks that the signer's key verifies the transaction's signature,
which uppercase hex and 65-byte uncompressed keys also do. A family that stores
keys and compares them as text (who is player 1? is it your turn?) must give one
key one spelling, or ``02AB...`` and ``02ab...`` would be two players. Every
Sawtooth signing library writes the spelling accepted here.

A key a transaction *names* (a recipient, an opponent) is never checked by the
validator at all, and 33 well-spelt bytes are not always a key: about half of all
x coordinates are not on secp256k1, and no private key signs for those. Chips sent
to one could never move again, so :func:`key_problem` is the one check that the
processor and every client apply to a named key.
"""

import re
from typing import Final

from coincurve import PublicKey

#: A compressed secp256k1 public key in lowercase hex: 66 characters, ``02`` or ``03`` first.
COMPRESSED_PUBLIC_KEY: Final = re.compile(r"0[23][0-9a-f]{64}")
DESCRIPTION: Final = "a compressed secp256k1 public key (66 lowercase hex characters starting with 02 or 03)"
#: Why a well-spelt key that is not a curve point is refused, in the words every refusal uses.
NOT_ON_CURVE: Final = (
    "is not a point on secp256k1: no private key signs for it, so nothing sent to it could ever move again"
)


def is_compressed_public_key(text: str) -> bool:
    """Whether ``text`` is a public key spelt as Sawtooth's signing libraries write it."""
    return COMPRESSED_PUBLIC_KEY.fullmatch(text) is not None


def is_curve_point(text: str) -> bool:
    """Whether ``text``, a well-spelt compressed key, names a point on secp256k1 (a key someone can hold)."""
    try:
        PublicKey(bytes.fromhex(text))
    except ValueError:
        return False
    return True


def key_problem(text: str) -> str | None:
    """Why ``text`` cannot name a player (its spelling, or no point on the curve), or None when it can.

    The words complete a sentence whose subject is the key, e.g. ``f"'to' {problem}"``.
    """
    if not is_compressed_public_key(text):
        return f"must be {DESCRIPTION}"
    if not is_curve_point(text):
        return NOT_ON_CURVE
    return None
