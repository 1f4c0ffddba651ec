"""The state codec: game maps, collision buckets sorted by name, and every kind of corrupt bytes."""

import cbor2
import pytest
from sawtooth_sdk.processor.exceptions import InternalError

from rps_tp import rules
from rps_tp.game import DEFAULT_SETTINGS, Game, new_game
from rps_tp.ops import Create, Join, Ready, Resign
from rps_tp.state import CorruptState, decode_bucket, encode_bucket, encode_game, game_value
from tests.rps_tp.fakes import public_key
from tests.rps_tp.moments import SETTING_UP, committing

ADDRESS = "c56a0e" + "ab" * 32
ALICE = public_key(1)
BOB = public_key(2)


def lobby(name: str) -> Game:
    game = rules.apply_op(None, Create(name), ALICE, None)
    assert game is not None
    return game


def concluded() -> Game:
    game = lobby("g1")
    for op, signer in [
        (Join("g1", SETTING_UP), BOB),
        (Ready("g1", SETTING_UP, DEFAULT_SETTINGS), ALICE),
        (Ready("g1", SETTING_UP, DEFAULT_SETTINGS), BOB),
    ]:
        game = rules.apply_op(game, op, signer, None)
    game = rules.apply_op(game, Resign("g1", committing(1)), BOB, None)
    assert game is not None
    return game


def dumps(value: object) -> bytes:
    return cbor2.dumps(value, canonical=True)


def test_a_game_is_a_map_of_ten_fields():
    assert cbor2.loads(encode_game(lobby("g1"))) == {
        "name": "g1",
        "state": "AWAITING_GAME",
        "host": ALICE,
        "settings": {"points": 1, "timeout": 300},
        "players": [{"key": ALICE, "ready": False, "score": 0, "commitment": None, "throw": None}],
        "round": 0,
        "history": [],
        "waiting_since": None,
        "conclusion_type": None,
        "results": None,
    }


@pytest.mark.parametrize("game", [new_game("g1"), lobby("g1"), concluded()])
def test_a_bucket_round_trips_byte_for_byte(game):
    data = encode_bucket([game])
    assert decode_bucket(ADDRESS, data) == {"g1": game}
    assert encode_bucket(decode_bucket(ADDRESS, data).values()) == data


@pytest.mark.parametrize("game", [new_game("g1"), lobby("g1"), concluded()])
def test_the_encoder_writes_exactly_what_a_canonical_cbor_encoder_writes(game):
    # The encoder relies on building its maps in canonical key order instead of sorting them.
    assert encode_game(game) == cbor2.dumps(game_value(game), canonical=True)
    neighbour = lobby("g0")
    expected = cbor2.dumps([game_value(neighbour), game_value(game)], canonical=True)
    assert encode_bucket([game, neighbour]) == expected


def test_empty_data_is_an_empty_address():
    assert decode_bucket(ADDRESS, b"") == {}


def test_colliding_games_are_sorted_by_the_utf8_bytes_of_their_names():
    names = ["zeta", "Zeta", "é", "z", "a!", "a"]
    data = encode_bucket([lobby(name) for name in names])
    assert [game["name"] for game in cbor2.loads(data)] == ["Zeta", "a", "a!", "z", "zeta", "é"]
    assert list(decode_bucket(ADDRESS, data)) == ["Zeta", "a", "a!", "z", "zeta", "é"]


def test_rewriting_one_game_keeps_the_others_byte_for_byte():
    data = encode_bucket([lobby("a"), lobby("m"), lobby("z")])
    games = decode_bucket(ADDRESS, data)
    games["m"] = rules.apply_op(games["m"], Join("m", SETTING_UP), BOB, None)
    rewritten = cbor2.loads(encode_bucket(games.values()))
    original = cbor2.loads(data)
    assert (rewritten[0], rewritten[2]) == (original[0], original[2])
    assert rewritten[1]["players"][1]["key"] == BOB


def corrupt(data: bytes) -> str:
    with pytest.raises(CorruptState) as raised:
        decode_bucket(ADDRESS, data)
    message = str(raised.value)
    assert message.startswith(f"state at {ADDRESS}: ")
    return message.removeprefix(f"state at {ADDRESS}: ")


GOOD = game_value(lobby("g1"))


def with_field(**changes: object) -> bytes:
    return dumps([{**GOOD, **changes}])


@pytest.mark.parametrize(
    ("data", "problem"),
    [
        (b"\xff", "the data is not valid CBOR ("),
        (b"g1,---------,P1-NEXT,,", "the data must be an array, not '1,-----'"),
        (dumps([]), "the data is an empty array (an address without games holds no data)"),
        (dumps([GOOD, GOOD]), "the data holds game 'g1' twice"),
        (dumps(GOOD), "the data must be an array, not a map"),
        (dumps([[1]]), "a game must be a map, not an array"),
        (dumps([{k: v for k, v in GOOD.items() if k != "round"}]), "a game has no field 'round'"),
        (dumps([{**GOOD, "extra": 1}]), "a game has an unexpected field 'extra'"),
        (with_field(name=b"g1"), "a game's 'name' must be text, not 2 bytes"),
        (with_field(state="PLAYING"), "game 'g1': 'state' must be AWAITING_HOST, AWAITING_GAME, PLAYING_GAME or "),
        (with_field(host="02AB"), "game 'g1': 'host' '02AB' is not a compressed secp256k1 public key"),
        (with_field(round=-1), "game 'g1': 'round' must be a whole number from 0 to 100, not -1"),
        (with_field(settings={"points": 4, "timeout": 1}), "game 'g1': 'points' must be a whole number from 1 to 3"),
        (with_field(players=[GOOD["players"][0]] * 3), "game 'g1': 'players' has 3 items; at most 2 are allowed"),
        (with_field(history=[["rock"]]), "game 'g1': a round in 'history' has 1 throws, not 2"),
        (with_field(history=[["rock", "lizard"]]), "game 'g1': a throw in 'history' must be rock, paper or scissors"),
        (with_field(waiting_since=-5), "game 'g1': 'waiting_since' must be a whole number from 0 to "),
        (with_field(conclusion_type="draw"), "game 'g1': 'conclusion_type' must be normal, by-resignation or "),
        (with_field(results=[{"outcome": "won"}]), "game 'g1': a result has no field 'final_score'"),
        (with_field(round=3), "game 'g1': round, history, time-out or results before play"),
        (with_field(host=BOB), "game 'g1': the host is not the first player"),
        (with_field(name=""), "game '': the game name is empty"),
        (with_field(name="a\x00b"), "game 'a\\x00b': the game name must not contain control characters"),
        (dumps([game_value(lobby("b")), game_value(lobby("a"))]), "the games are not sorted by name"),
        (dumps([GOOD]) + b"\x00", "the data is not in canonical CBOR"),
        (cbor2.dumps([{"state": GOOD["state"], **GOOD}]), "the data is not in canonical CBOR"),
    ],
)
def test_corrupt_state_is_an_internal_error_naming_the_address(data, problem):
    assert corrupt(data).startswith(problem)


def test_a_player_with_a_bad_key_is_corrupt():
    player = {**GOOD["players"][0], "key": "alice"}
    assert corrupt(with_field(players=[player])) == (
        "game 'g1': a player's 'key' 'alice' is not a compressed secp256k1 public key "
        "(66 lowercase hex characters starting with 02 or 03)"
    )


def test_a_huge_corrupt_entry_is_cut_short_in_the_message():
    assert len(corrupt(with_field(state="x" * 100_000))) < 250


def test_state_errors_are_the_sdks_internal_error():
    assert issubclass(CorruptState, InternalError)
