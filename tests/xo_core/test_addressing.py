"""Generic addressing: namespaces from family names, addresses from keys, as Sawtooth families derive them."""

import hashlib

from xo_core.addressing import ADDRESS_LENGTH, address_of, namespace_of


def test_namespaces_are_the_first_six_hex_characters_of_sha512_of_the_family_name():
    assert namespace_of("xo") == "5b7349"
    assert namespace_of("rps") == "c56a0e"
    assert namespace_of("intkey") == hashlib.sha512(b"intkey").hexdigest()[:6]


def test_the_xo_specifications_example_address():
    assert address_of("5b7349", "mygame") == "5b7349700e158b598043efd6d7610345a75a00b22ac14c9278db53f586179a92b72fbd"


def test_addresses_are_70_lowercase_hex_characters_for_any_key():
    for key in ["", "g1", "ξ-game ☃", "x" * 10_000]:
        address = address_of("c56a0e", key)
        assert len(address) == ADDRESS_LENGTH
        assert address == "c56a0e" + hashlib.sha512(key.encode()).hexdigest()[:64]


def test_a_longer_namespace_leaves_fewer_characters_of_the_hash():
    assert address_of("00b10c01", "k") == "00b10c01" + hashlib.sha512(b"k").hexdigest()[:62]
