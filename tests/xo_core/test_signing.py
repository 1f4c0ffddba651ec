"""Our secp256k1 signatures are the ones a Sawtooth validator checks.

Verified both ways with the ``sawtooth_signing`` that ``sawtooth-sdk`` ships: Sawtooth's own code.
"""

import pytest
from sawtooth_signing import create_context
from sawtooth_signing.secp256k1 import Secp256k1PrivateKey, Secp256k1PublicKey

from xo_core.signing import InvalidKey, Signer, verify

SAWTOOTH = create_context("secp256k1")
CURVE_ORDER = 0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141


def test_a_new_key_has_a_compressed_hex_public_key():
    signer = Signer.generate()
    assert len(signer.public_key) == 66
    assert signer.public_key[:2] in ("02", "03")
    assert len(signer.private_key_hex) == 64
    assert Signer.generate().public_key != signer.public_key


def test_the_same_private_key_gives_the_same_public_key_as_sawtooth_signing():
    signer = Signer.generate()
    theirs = Secp256k1PrivateKey.from_hex(signer.private_key_hex)
    assert SAWTOOTH.get_public_key(theirs).as_hex() == signer.public_key


def test_sawtooth_signing_verifies_our_signatures():
    signer = Signer.generate()
    message = b"a serialized TransactionHeader"
    signature = signer.sign(message)
    assert len(signature) == 128
    assert SAWTOOTH.verify(signature, message, Secp256k1PublicKey.from_hex(signer.public_key))
    assert not SAWTOOTH.verify(signature, message + b"!", Secp256k1PublicKey.from_hex(signer.public_key))


def test_we_verify_sawtooth_signings_signatures():
    theirs = SAWTOOTH.new_random_private_key()
    public_hex = SAWTOOTH.get_public_key(theirs).as_hex()
    message = b"a serialized BatchHeader"
    signature = SAWTOOTH.sign(message, theirs)
    assert verify(public_hex, signature, message)
    assert not verify(public_hex, signature, b"another message")


def test_signatures_are_deterministic_and_identical_to_sawtooth_signings():
    theirs = SAWTOOTH.new_random_private_key()
    signer = Signer.from_hex(theirs.as_hex())
    for message in (b"", b"x", bytes(range(256))):
        assert signer.sign(message) == SAWTOOTH.sign(message, theirs)


def test_signatures_are_low_s():
    signer = Signer.generate()
    for index in range(50):
        s_value = int(signer.sign(index.to_bytes(2, "big"))[64:], 16)
        assert 0 < s_value <= CURVE_ORDER // 2


@pytest.mark.parametrize(
    ("public_key", "signature"),
    [("", "00" * 64), ("zz" * 33, "00" * 64), (None, "zz" * 64), (None, "00" * 63), (None, "00" * 64)],
)
def test_malformed_keys_and_signatures_are_simply_not_valid(public_key, signature):
    signer = Signer.generate()
    assert verify(public_key if public_key is not None else signer.public_key, signature, b"m") is False


def test_a_signature_by_another_key_is_not_valid():
    message = b"header"
    assert not verify(Signer.generate().public_key, Signer.generate().sign(message), message)


@pytest.mark.parametrize(
    "text", ["", "00" * 31, "00" * 33, "zz" * 32, "00" * 32, format(CURVE_ORDER, "064x"), "ff" * 32]
)
def test_keys_that_are_not_secp256k1_private_keys_are_refused(text):
    with pytest.raises(InvalidKey):
        Signer.from_hex(text)


def test_surrounding_whitespace_of_a_key_file_is_ignored():
    signer = Signer.generate()
    assert Signer.from_hex(f"  {signer.private_key_hex}\n").public_key == signer.public_key
