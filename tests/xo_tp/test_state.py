"""The state codec: entries, collision buckets, byte-exact rewriting, and corrupt bytes."""

import pytest
from sawtooth_sdk.processor.exceptions import InternalError

from tests.xo_tp.fakes import public_key
from xo_tp.rules import Game
from xo_tp.state import CorruptState, decode_bucket, decode_game, encode_bucket, encode_game

ADDRESS = "5b7349" + "ab" * 32
ALICE = public_key(1)
BOB = public_key(2)


def test_an_entry_is_five_comma_separated_fields():
    game = Game("g1", "----X----", "P2-NEXT", ALICE, "")
    assert encode_game(game) == f"g1,----X----,P2-NEXT,{ALICE},"
    assert decode_game(ADDRESS, encode_game(game)) == game


def test_a_bucket_as_the_reference_processor_wrote_it():
    # Captured from a real Sawtooth 1.0.5 network (reference/06_state_get_address.json).
    data = b"cap1795268788,---------,P1-NEXT,,"
    assert decode_bucket(ADDRESS, data) == {"cap1795268788": Game("cap1795268788", "---------", "P1-NEXT", "", "")}
    assert encode_bucket(decode_bucket(ADDRESS, data).values()) == data


def test_empty_data_is_an_empty_address():
    assert decode_bucket(ADDRESS, b"") == {}


def test_colliding_games_are_joined_by_a_bar_sorted_as_entries():
    games = [
        Game("b", "---------", "P1-NEXT", "", ""),
        Game("a!", "X--------", "P2-NEXT", ALICE, ""),
        Game("a", "XO-------", "P1-NEXT", ALICE, BOB),
    ]
    # Whole entries are sorted, as other XO processors sort them: "a!,..." < "a,..." because '!' < ','.
    expected = f"a!,X--------,P2-NEXT,{ALICE},|a,XO-------,P1-NEXT,{ALICE},{BOB}|b,---------,P1-NEXT,,"
    assert encode_bucket(games) == expected.encode()
    assert decode_bucket(ADDRESS, expected.encode()) == {game.name: game for game in games}


def test_rewriting_one_game_keeps_the_others_byte_for_byte():
    others = [f"a,XO-------,P1-NEXT,{ALICE},{BOB}", "z\u00e9,---------,TIE,weird key,"]
    data = "|".join([others[0], "m,---------,P1-NEXT,,", others[1]]).encode()
    games = decode_bucket(ADDRESS, data)
    games["m"] = games["m"]._replace(board="X--------", state="P2-NEXT", player1=ALICE)
    rewritten = encode_bucket(games.values()).decode().split("|")
    assert rewritten == [others[0], f"m,X--------,P2-NEXT,{ALICE},", others[1]]


def test_an_unsorted_bucket_is_read_and_written_back_sorted():
    # Decision: order is not corruption; whoever writes next restores the spec's order.
    data = b"b,---------,P1-NEXT,,|a,---------,P1-NEXT,,"
    assert list(decode_bucket(ADDRESS, data)) == ["b", "a"]
    assert encode_bucket(decode_bucket(ADDRESS, data).values()) == b"a,---------,P1-NEXT,,|b,---------,P1-NEXT,,"


@pytest.mark.parametrize(
    ("data", "problem"),
    [
        (b"\xffg1,---------,P1-NEXT,,", "is not UTF-8 text"),
        (b"g1,---------,P1-NEXT,", "should have 5 fields but has 4"),
        (b"g1,---------,P1-NEXT,,,", "should have 5 fields but has 6"),
        (b"garbage", "should have 5 fields but has 1"),
        (b",---------,P1-NEXT,,", "has an empty game name"),
        (b"g1,--------,P1-NEXT,,", "game 'g1' has an invalid board '--------'"),
        (b"g1,----------,P1-NEXT,,", "game 'g1' has an invalid board '----------'"),
        (b"g1,----x----,P1-NEXT,,", "game 'g1' has an invalid board '----x----'"),
        (b"g1,----0----,P1-NEXT,,", "game 'g1' has an invalid board '----0----'"),
        (b"g1,---------,P1-WINS,,", "game 'g1' has an unknown state 'P1-WINS'"),
        (b"g1,---------,,,", "game 'g1' has an unknown state ''"),
        (b"g1,---------,P1-NEXT,,|", "entry '' should have 5 fields but has 1"),
        (b"|g1,---------,P1-NEXT,,", "entry '' should have 5 fields but has 1"),
        (b"g1,---------,P1-NEXT,,|g1,X--------,P2-NEXT,k,", "holds game 'g1' twice"),
    ],
)
def test_corrupt_state_is_an_internal_error_naming_the_address(data, problem):
    with pytest.raises(CorruptState) as raised:
        decode_bucket(ADDRESS, data)
    message = str(raised.value)
    assert ADDRESS in message
    assert problem in message


def test_a_huge_corrupt_entry_is_cut_short_in_the_message():
    with pytest.raises(CorruptState) as raised:
        decode_bucket(ADDRESS, b"x" * 100_000)
    assert len(str(raised.value)) < 250


def test_state_errors_are_the_sdks_internal_error():
    assert issubclass(CorruptState, InternalError)
