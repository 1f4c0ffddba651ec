"""The rps family's identity, addresses, and what its transactions declare."""

import hashlib

from rps_tp.family import (
    FAMILY_NAME,
    FAMILY_VERSION,
    FAMILY_VERSIONS,
    NAMESPACE,
    game_address,
    transaction_inputs,
    transaction_outputs,
    version_problem,
)


def test_family_identity_is_rps_2_0_in_namespace_c56a0e():
    assert (FAMILY_NAME, FAMILY_VERSION, NAMESPACE) == ("rps", "2.0", "c56a0e")
    assert hashlib.sha512(b"rps").hexdigest().startswith(NAMESPACE)


def test_the_processor_serves_2_0_and_takes_1_0_only_to_refuse_it_saying_what_to_send():
    assert FAMILY_VERSIONS == ("2.0", "1.0")
    assert version_problem("2.0") is None
    assert version_problem("1.0") == (
        "this is an rps 1.0 transaction; this processor implements rps 2.0, in which every op on an existing game "
        "names the round and phase it was signed for, and refuses rps 1.0 ones, which could count at another moment "
        "than the one they were signed for: sign the op again as rps 2.0 (upgrade the client)"
    )


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
