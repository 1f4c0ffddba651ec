"""The hash a player commits to before anyone shows a throw, and the salt that keeps it secret.

On a public ledger nothing can be hidden after the fact, so a throw is first
published as a commitment and shown only once both players are bound to theirs.
With three possible throws, a bare hash would be guessed at once: 32 random bytes
of salt make it unguessable. The hash covers the game's name, the round and the
committing player's key as well, so that a commitment copied from the opponent, or
replayed in another round or another game, can never be revealed by anyone but the
player it was made by, for the round it was made for.
"""

import hashlib
import secrets
from typing import Final

import cbor2

from rps_tp.game import SALT_BYTES

#: First element of every preimage: a hash made for anything else never matches one made for this.
DOMAIN: Final = "rps/1.0 commitment"


def preimage(name: str, round_number: int, player: str, throw: str, salt: bytes) -> bytes:
    """The bytes hashed: the CBOR array ``[DOMAIN, name, round, player, throw, salt]``.

    CBOR's length prefixes keep the fields apart (no ``"a" + "bc"`` vs ``"ab" + "c"``);
    an array of text, bytes and one small integer has one encoding only.
    """
    return cbor2.dumps([DOMAIN, name, round_number, player, throw, salt], canonical=True)


def commitment(name: str, round_number: int, player: str, throw: str, salt: bytes) -> bytes:
    """SHA-256 of :func:`preimage`: what a ``commit`` payload carries (32 bytes)."""
    return hashlib.sha256(preimage(name, round_number, player, throw, salt)).digest()


def new_salt() -> bytes:
    """32 bytes from the operating system's random source: a fresh one for every commitment."""
    return secrets.token_bytes(SALT_BYTES)
