"""The one spelling of a public key a family stores: compressed, lowercase hex."""

import pytest

from xo_core.public_keys import DESCRIPTION, NOT_ON_CURVE, is_compressed_public_key, is_curve_point, key_problem
from xo_core.signing import Signer


def test_keys_as_sawtooth_signing_libraries_write_them_are_accepted():
    assert is_compressed_public_key(Signer.generate().public_key)
    assert is_compressed_public_key("03" + "ab" * 32)


@pytest.mark.parametrize(
    "text",
    [
        "",
        "02" + "AB" * 32,  # uppercase: the same key spelt differently
        "04" + "ab" * 64,  # uncompressed
        "05" + "ab" * 32,
        "02" + "ab" * 31,
        "02" + "ab" * 32 + "c",
        "02" + "ab" * 32 + "\n",
        "02" + "\u0665" * 64,  # Arabic-Indic digits
    ],
)
def test_every_other_spelling_is_refused(text):
    assert not is_compressed_public_key(text)


#: Well spelt, but 0x11...11 is the x of no point on secp256k1: nobody can hold this key.
OFF_CURVE = "02" + "11" * 32


def test_a_well_spelt_key_is_a_key_only_if_it_is_a_point_on_the_curve():
    assert is_curve_point(Signer.from_hex("00" * 31 + "01").public_key)
    assert is_curve_point("03" + "22" * 32)
    assert is_compressed_public_key(OFF_CURVE) and not is_curve_point(OFF_CURVE)
    assert not is_curve_point("02" + "00" * 32)


def test_the_shared_check_says_what_is_wrong_with_a_named_key():
    assert key_problem(Signer.generate().public_key) is None
    assert key_problem(OFF_CURVE) == NOT_ON_CURVE
    assert "no private key signs for it" in NOT_ON_CURVE
    assert key_problem("02" + "AB" * 32) == f"must be {DESCRIPTION}"
