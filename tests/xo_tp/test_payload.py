"""Payloads: what a well-formed move looks like and what a player is told about every other kind."""

import pytest
from sawtooth_sdk.processor.exceptions import InvalidTransaction

from xo_tp.payload import InvalidPayload, Move, encode_payload, parse_payload


@pytest.mark.parametrize(
    ("payload", "move"),
    [
        (b"g1,create,", Move("g1", "create", None)),
        (b"g1,delete,", Move("g1", "delete", None)),
        (b"g1,take,1", Move("g1", "take", 1)),
        (b"g1,take,9", Move("g1", "take", 9)),
        ("jeu-é☃,take,5".encode(), Move("jeu-é☃", "take", 5)),
        (b" spaced name ,create,", Move(" spaced name ", "create", None)),
    ],
)
def test_well_formed_payloads(payload, move):
    assert parse_payload(payload) == move


@pytest.mark.parametrize("space", range(1, 10))
def test_every_space_round_trips_with_the_shared_encoder(space):
    assert parse_payload(encode_payload("g", "take", space)) == Move("g", "take", space)


@pytest.mark.parametrize("action", ["create", "delete"])
def test_create_and_delete_ignore_the_space_field(action):
    # Decision: the spec gives the space meaning only for take; the reference processor ignores it.
    assert parse_payload(f"g1,{action},7".encode()) == Move("g1", action, None)
    assert parse_payload(f"g1,{action},anything at all".encode()) == Move("g1", action, None)


@pytest.mark.parametrize(
    ("space", "reason"),
    [
        ("0", "space '0' is not a whole number from 1 to 9"),
        ("10", "space '10' is not a whole number from 1 to 9"),
        ("-1", "space '-1' is not a whole number from 1 to 9"),
        (" 5", "space ' 5' is not a whole number from 1 to 9"),
        ("5 ", "space '5 ' is not a whole number from 1 to 9"),
        ("\u0665", "space '\u0665' is not a whole number from 1 to 9"),  # Arabic-Indic five: int() says 5
        ("\uff15", "space '\uff15' is not a whole number from 1 to 9"),  # fullwidth five: int() says 5
        ("5.0", "space '5.0' is not a whole number from 1 to 9"),
        ("+5", "space '+5' is not a whole number from 1 to 9"),
        ("05", "space '05' is not a whole number from 1 to 9"),
        ("five", "space 'five' is not a whole number from 1 to 9"),
        ("", "take needs a space from 1 to 9"),
    ],
)
def test_take_accepts_only_the_digits_1_to_9(space, reason):
    with pytest.raises(InvalidPayload) as raised:
        parse_payload(f"g1,take,{space}".encode())
    assert str(raised.value) == f"game 'g1': {reason}"


@pytest.mark.parametrize(
    ("payload", "message"),
    [
        (b"\xff\xfe,take,5", "the payload is not UTF-8 text"),
        (b"g1,take", "the payload has 1 comma, not two"),
        (b"g1", "the payload has 0 commas, not two"),
        (b"", "the payload has 0 commas, not two"),
        (b"g1,take,5,", "the payload has 3 commas, not two"),
        (b"g,1,take,5", "the payload has 3 commas, not two"),
    ],
)
def test_payloads_that_are_not_three_fields_of_text_explain_the_format(payload, message):
    with pytest.raises(InvalidPayload) as raised:
        parse_payload(payload)
    assert str(raised.value).startswith(message)
    assert "'<name>,<action>,<space>'" in str(raised.value)


@pytest.mark.parametrize(
    ("payload", "message"),
    [
        (b",create,", "the game name is empty"),
        (b",take,5", "the game name is empty"),
        (b"a|b,create,", "game 'a|b': a game name must not contain '|'"),
        (b"|,create,", "game '|': a game name must not contain '|'"),
        (b"g1,,", "game 'g1': the action is missing; use create, take or delete"),
        (b"g1,,5", "game 'g1': the action is missing; use create, take or delete"),
        (b"g1,move,5", "game 'g1': unknown action 'move'; use create, take or delete"),
        (b"g1,Take,5", "game 'g1': unknown action 'Take'; use create, take or delete"),
        (b"g1, take,5", "game 'g1': unknown action ' take'; use create, take or delete"),
    ],
)
def test_bad_names_and_actions_are_named_in_the_message(payload, message):
    with pytest.raises(InvalidPayload) as raised:
        parse_payload(payload)
    assert str(raised.value) == message


def test_a_huge_field_is_cut_short_in_the_message():
    with pytest.raises(InvalidPayload) as raised:
        parse_payload(b"g1,take," + b"7" * 100_000)
    assert len(str(raised.value)) < 200


def test_payload_errors_are_the_sdks_invalid_transaction():
    assert issubclass(InvalidPayload, InvalidTransaction)


def test_payloads_are_name_action_space_with_an_empty_space_for_create_and_delete():
    assert encode_payload("g1", "create") == b"g1,create,"
    assert encode_payload("g1", "take", 5) == b"g1,take,5"
    assert encode_payload("g1", "delete") == b"g1,delete,"
    assert encode_payload("ξ", "take", 1) == "ξ,take,1".encode()
