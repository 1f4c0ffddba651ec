"""Sawtooth state addresses from names, the way most transaction families derive them.

A family's namespace is the first 6 hex characters of the SHA-512 of its name; an
entry's address is the namespace followed by the first 64 hex characters of the
SHA-512 of the entry's key (a game name, say): 70 lowercase hex characters in all.
Nothing here knows any game: each family states its name and keys, this module only
hashes them, so two families can never derive addresses two different ways.
"""

import hashlib
from typing import Final

#: Hex characters in a namespace prefix, and in a whole address.
NAMESPACE_LENGTH: Final = 6
ADDRESS_LENGTH: Final = 70


def _sha512_hex(text: str) -> str:
    return hashlib.sha512(text.encode("utf-8")).hexdigest()


def namespace_of(family: str) -> str:
    """The 6-hex-character namespace of the family called ``family``, e.g. ``5b7349`` for ``xo``."""
    return _sha512_hex(family)[:NAMESPACE_LENGTH]


def address_of(namespace: str, key: str) -> str:
    """The 70-hex-character address of ``key`` under ``namespace``.

    Distinct keys may share an address (a 256-bit hash prefix can collide), so a family
    that stores entries this way must keep every key it finds at an address apart.
    """
    return namespace + _sha512_hex(key)[: ADDRESS_LENGTH - len(namespace)]
