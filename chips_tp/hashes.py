"""What a channel's players sign: the domain-tagged hashes of off-chain states and of challenges.

A state is signed as the canonical CBOR array ``["chips/1.0 state", SHA-256(state
bytes)]``, a challenge as ``["chips/1.0 challenge", SHA-256(state bytes)]``; the
signature is Sawtooth's (ECDSA over secp256k1 of the SHA-256 of those bytes, 64
compact bytes). The first element names the purpose, so a signature made for one
purpose never verifies for another; the state itself names its channel and turn.
Pure: the processor and every client sign and check with these same functions.
"""

import hashlib
from typing import Final

from xo_core import canonical
from xo_core.signing import Signer, verify

STATE_PURPOSE: Final = "chips/1.0 state"
CHALLENGE_PURPOSE: Final = "chips/1.0 challenge"


def state_hash(state_bytes: bytes) -> bytes:
    """SHA-256 of a state's canonical CBOR: what both purposes' messages name."""
    return hashlib.sha256(state_bytes).digest()


def state_message(state_bytes: bytes) -> bytes:
    """The bytes a mover signs to vouch for a state."""
    return canonical.encode([STATE_PURPOSE, state_hash(state_bytes)])


def challenge_message(state_bytes: bytes) -> bytes:
    """The bytes a challenger signs to call a challenge on a state."""
    return canonical.encode([CHALLENGE_PURPOSE, state_hash(state_bytes)])


def digest_to_sign(message: bytes) -> bytes:
    """The 32 bytes ECDSA actually signs for ``message`` (SHA-256, as Sawtooth signs headers)."""
    return hashlib.sha256(message).digest()


def sign(signer: Signer, message: bytes) -> bytes:
    """``signer``'s 64-byte compact signature of ``message`` (deterministic, RFC 6979)."""
    return bytes.fromhex(signer.sign(message))


def signed_by(public_key: str, signature: bytes, message: bytes) -> bool:
    """Whether ``signature`` is ``public_key``'s signature of ``message``."""
    return verify(public_key, signature.hex(), message)
