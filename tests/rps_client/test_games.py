"""Reading rps games from state: leniently for listings, strictly before an op, and as ``rps show --json``.

The REST API is ``tests/fake_sawtooth.py``, its state and receipts written by the test.
"""

import base64

import pytest

from client_core.errors import InvalidInput
from client_core.rest import RestClient
from rps_client.games import decode_games, find_game, game_json, impossible_name, read_game, resulting_game
from rps_tp.family import game_address
from rps_tp.state import encode_bucket
from tests.rps_client.plays import ALICE, BOB, commit, created, started

G1 = game_address("g1")
TXN = "f" * 128


def test_a_bucket_decodes_to_its_games_and_one_is_found_by_name():
    games, problems = decode_games(G1, encode_bucket([created("g1")]))
    assert problems == [] and [game.name for game in games] == ["g1"]
    assert find_game(games, "g1").host == ALICE
    assert find_game(games, "g2") is None


def test_data_that_is_not_a_bucket_is_a_problem_and_no_games():
    games, problems = decode_games(G1, b"not rps")
    assert games == [] and len(problems) == 1


def test_a_name_no_game_can_have_is_said_why():
    assert impossible_name("g1") is None
    assert impossible_name("") == "the game name is empty"


def test_the_json_says_the_phase_who_must_act_and_whether_a_commitment_is_in():
    shown = game_json(commit(started(), ALICE, "rock"))
    assert (shown["name"], shown["address"], shown["state"], shown["phase"]) == ("g1", G1, "PLAYING_GAME", "commit")
    alice, bob = shown["players"]
    assert (alice["key"], alice["committed"], bob["key"], bob["committed"]) == (ALICE, True, BOB, False)
    assert alice["commitment"] is not None and alice["throw"] is None
    assert shown["next"] == [{"player": BOB, "action": "commit"}]
    assert shown["results"] is None


def test_a_game_is_read_from_the_rest_api_and_data_that_is_not_rps_stops_an_op(fake):
    client = RestClient(fake.url)
    assert read_game(client, "g1") is None
    fake.state[G1] = encode_bucket([created("g1")])
    assert read_game(client, "g1").host == ALICE
    fake.state[G1] = b"not rps"
    with pytest.raises(InvalidInput, match="cannot be read"):
        read_game(client, "g1")
    assert read_game(client, "g1", lenient=True) is None


def test_the_game_a_committed_op_left_is_read_from_its_receipt(fake):
    value = base64.b64encode(encode_bucket([started("g1")])).decode()
    fake.receipts[TXN] = [{"address": G1, "type": "SET", "value": value}]
    found, game = resulting_game(RestClient(fake.url), TXN, "g1")
    assert found and game.state == "PLAYING_GAME"
    fake.receipts[TXN] = [{"address": G1, "type": "DELETE"}]
    assert resulting_game(RestClient(fake.url), TXN, "g1") == (True, None)
