"""XO addressing and payload encoding, checked against the specification's own example."""

import hashlib

from xo_tp.family import FAMILY_NAME, FAMILY_VERSION, NAMESPACE, game_address


def test_namespace_is_the_first_six_hex_characters_of_sha512_of_xo():
    assert NAMESPACE == "5b7349"
    assert hashlib.sha512(b"xo").hexdigest().startswith(NAMESPACE)


def test_family_identity_is_xo_1_0():
    assert (FAMILY_NAME, FAMILY_VERSION) == ("xo", "1.0")


def test_address_of_the_specifications_example_game():
    assert game_address("mygame") == "5b7349700e158b598043efd6d7610345a75a00b22ac14c9278db53f586179a92b72fbd"


def test_address_is_70_lowercase_hex_characters_even_for_non_ascii_names():
    address = game_address("ξ-game ☃")
    assert len(address) == 70
    assert address == address.lower()
    assert address[6:] == hashlib.sha512("ξ-game ☃".encode()).hexdigest()[:64]
