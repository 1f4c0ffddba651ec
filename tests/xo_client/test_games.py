"""Reading games from state bytes: every game at an address, leniently, and the names the spec forbids."""

import pytest

from xo_client.games import Game, decode_games, find_game, name_problem

ADDRESS = "5b7349" + "0" * 64
ALICE = "02" + "a" * 64
BOB = "03" + "b" * 64


def game(board="---------", state="P1-NEXT", p1="", p2="", name="g1"):
    return Game(name, board, state, p1, p2, ADDRESS)


def test_one_entry_decodes_to_one_game():
    games, problems = decode_games(ADDRESS, f"g1,----X----,P2-NEXT,{ALICE},".encode())
    assert games == [Game("g1", "----X----", "P2-NEXT", ALICE, "", ADDRESS)]
    assert problems == []


def test_colliding_games_at_one_address_are_all_read():
    data = f"a,XOX------,P1-NEXT,{ALICE},{BOB}|b,---------,P1-NEXT,,".encode()
    games, problems = decode_games(ADDRESS, data)
    assert [g.name for g in games] == ["a", "b"]
    assert find_game(games, "b").board == "---------"
    assert find_game(games, "c") is None
    assert problems == []


@pytest.mark.parametrize(
    "data",
    [
        b"g1,---------,P1-NEXT,",
        b"g1,---------,P1-NEXT,,,",
        b"g1,--------,P1-NEXT,,",
        b"g1,--------Z,P1-NEXT,,",
        b"g1,---------,P3-NEXT,,",
        b",---------,P1-NEXT,,",
        b"",
    ],
)
def test_a_malformed_entry_is_reported_and_skipped(data):
    games, problems = decode_games(ADDRESS, data + b"|ok,---------,TIE,,")
    assert [g.name for g in games] == ["ok"]
    assert len(problems) == 1
    assert ADDRESS in problems[0]


def test_empty_data_holds_no_games_as_for_the_processor():
    assert decode_games(ADDRESS, b"") == ([], [])


def test_bytes_that_are_not_utf8_are_reported():
    games, problems = decode_games(ADDRESS, b"\xff\xfe")
    assert games == []
    assert "UTF-8" in problems[0]


def test_next_player_is_none_once_the_game_is_over():
    assert game(state="P1-NEXT").next_player == 1
    assert game(state="P2-NEXT").next_player == 2
    for state in ("P1-WIN", "P2-WIN", "TIE"):
        assert game(state=state).next_player is None


def test_json_object_carries_full_keys_and_the_raw_board():
    assert game(board="X--------", state="P2-NEXT", p1=ALICE).as_json() == {
        "name": "g1",
        "board": "X--------",
        "state": "P2-NEXT",
        "player1": ALICE,
        "player2": "",
        "address": ADDRESS,
    }


def test_names_the_spec_forbids():
    assert name_problem("") is not None
    assert "|" in name_problem("a|b")
    assert name_problem("my game 1") is None
