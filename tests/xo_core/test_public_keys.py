"""The one spelling of a public key a family stores: compressed, lowercase hex."""

import pytest

from xo_core.public_keys import is_compressed_public_key
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
