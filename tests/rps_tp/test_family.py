"""The rps family's identity, addresses, and what its transactions declare."""

import hashlib

from rps_tp.family import FAMILY_NAME, FAMILY_VERSION, NAMESPACE, game_address, transaction_inputs, transaction_outputs


def test_family_identity_is_rps_1_0_in_namespace_c56a0e():
    assert (FAMILY_NAME, FAMILY_VERSION, NAMESPACE) == ("rps", "1.0", "c56a0e")
    assert hashlib.sha512(b"rps").hexdigest().startswith(NAMESPACE)


def test_a_games_address_is_the_namespace_and_the_start_of_sha512_of_its_name():
    assert game_address("mygame") == "c56a0e700e158b598043efd6d7610345a75a00b22ac14c9278db53f586179a92b72fbd"
    assert game_address("ξ ☃")[6:] == hashlib.sha512("ξ ☃".encode()).hexdigest()[:64]


def test_transactions_read_the_game_and_block_info_and_write_only_the_game():
    assert transaction_inputs("g1") == [
        game_address("g1"),
        "00b10c01" + "0" * 62,
        "00b10c00",
    ]
    assert transaction_outputs("g1") == [game_address("g1")]
