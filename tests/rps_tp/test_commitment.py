"""Commitments: what is hashed, that each part binds, and fresh salt."""

import hashlib

import cbor2
import pytest

from rps_tp.commitment import DOMAIN, commitment, new_salt, preimage

KEY = "02" + "ab" * 32
SALT = bytes(range(32))


def test_the_preimage_is_the_cbor_array_of_domain_name_round_key_throw_and_salt():
    assert cbor2.loads(preimage("g1", 3, KEY, "rock", SALT)) == [DOMAIN, "g1", 3, KEY, "rock", SALT]
    assert DOMAIN == "rps/1.0 commitment"


def test_the_commitment_is_the_sha256_of_the_preimage():
    assert commitment("g1", 3, KEY, "rock", SALT) == hashlib.sha256(preimage("g1", 3, KEY, "rock", SALT)).digest()
    assert len(commitment("g1", 3, KEY, "rock", SALT)) == 32


@pytest.mark.parametrize(
    "changed",
    [
        ("g2", 3, KEY, "rock", SALT),
        ("g1", 4, KEY, "rock", SALT),
        ("g1", 3, "03" + "ab" * 32, "rock", SALT),
        ("g1", 3, KEY, "paper", SALT),
        ("g1", 3, KEY, "rock", bytes(32)),
    ],
)
def test_every_part_binds(changed):
    assert commitment(*changed) != commitment("g1", 3, KEY, "rock", SALT)


def test_fields_cannot_be_shifted_into_one_another():
    assert preimage("g1", 1, KEY, "rock", SALT) != preimage("g", 11, KEY, "rock", SALT)
    assert commitment("ab", 1, KEY, "rock", SALT) != commitment("a", 1, "b" + KEY, "rock", SALT)


def test_salts_are_32_fresh_random_bytes():
    salts = {new_salt() for _ in range(100)}
    assert len(salts) == 100
    assert all(len(salt) == 32 for salt in salts)
