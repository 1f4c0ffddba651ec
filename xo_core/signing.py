"""secp256k1 keys and signatures in the exact form a Sawtooth validator checks.

Sawtooth signs the SHA-256 of the serialised header with ECDSA over secp256k1 and
writes the signature as 64 compact bytes (r||s, low-S) in hex; public keys are
33-byte compressed points in hex. libsecp256k1 (through coincurve) produces
low-S signatures and refuses high-S ones, as the validator's library does.
"""

from __future__ import annotations

import secrets

from coincurve import PrivateKey, PublicKey
from coincurve.ecdsa import cdata_to_der, deserialize_compact

PRIVATE_KEY_HEX_LENGTH = 64
PUBLIC_KEY_HEX_LENGTH = 66
SIGNATURE_HEX_LENGTH = 128


class InvalidKey(ValueError):
    """A key that is not a valid secp256k1 key in Sawtooth's hex form."""


class Signer:
    """A private key that signs header bytes and knows its public key."""

    __slots__ = ("_key", "public_key")

    def __init__(self, private_key: PrivateKey) -> None:
        self._key = private_key
        self.public_key: str = private_key.public_key.format(compressed=True).hex()

    @classmethod
    def generate(cls) -> Signer:
        """Create a fresh key from the operating system's random source."""
        return cls(PrivateKey(secrets.token_bytes(32)))

    @classmethod
    def from_hex(cls, private_key_hex: str) -> Signer:
        """Load a key written as 64 hex characters, as ``sawtooth keygen`` does."""
        text = private_key_hex.strip()
        if len(text) != PRIVATE_KEY_HEX_LENGTH:
            raise InvalidKey(f"a private key is {PRIVATE_KEY_HEX_LENGTH} hex characters, got {len(text)}")
        try:
            return cls(PrivateKey(bytes.fromhex(text)))
        except ValueError as error:
            raise InvalidKey(f"not a valid secp256k1 private key: {error}") from None

    @property
    def private_key_hex(self) -> str:
        return self._key.secret.hex()

    def sign(self, message: bytes) -> str:
        """Sign ``message`` (SHA-256 inside) and return the compact signature as hex."""
        return self._key.sign_recoverable(message)[:64].hex()


def verify(public_key_hex: str, signature_hex: str, message: bytes) -> bool:
    """Tell whether ``signature_hex`` is ``public_key_hex``'s signature of ``message``.

    Malformed keys or signatures are simply not valid signatures: callers need a
    yes or no, not a second kind of failure.
    """
    if len(public_key_hex) != PUBLIC_KEY_HEX_LENGTH or len(signature_hex) != SIGNATURE_HEX_LENGTH:
        return False
    try:
        public_key = PublicKey(bytes.fromhex(public_key_hex))
        signature = cdata_to_der(deserialize_compact(bytes.fromhex(signature_hex)))
        return public_key.verify(signature, message)
    except (ValueError, TypeError):
        return False
