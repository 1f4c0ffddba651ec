"""Sawtooth's usual addressing scheme, for any family: a namespace from the family's name, an address per key.

A family's namespace is the first 6 hex characters of SHA-512 of its name; an object's
address is the namespace followed by the first 64 hex characters of SHA-512 of its key
(a game's name). XO's specification fixes this scheme and rps's follows it, so both
derive addresses here and neither can drift from the other.
"""

import hashlib

NAMESPACE_LENGTH = 6
ADDRESS_LENGTH = 70


def namespace_of(family_name: str) -> str:
    """The 6-hex-character state namespace of the family ``family_name``."""
    return hashlib.sha512(family_name.encode("utf-8")).hexdigest()[:NAMESPACE_LENGTH]


def address_of(namespace: str, key: str) -> str:
    """The 70-hex-character address of ``key`` under ``namespace``.

    Distinct keys may share an address (a hash collision on 256 bits); families store
    everything at one address together, so the address alone never identifies an object.
    """
    return namespace + hashlib.sha512(key.encode("utf-8")).hexdigest()[: ADDRESS_LENGTH - NAMESPACE_LENGTH]
