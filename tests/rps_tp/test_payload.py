"""Payloads: every op's well-formed map, and what a player is told about every other kind of bytes."""

import cbor2
import pytest
from sawtooth_sdk.processor.exceptions import InvalidTransaction

from rps_tp.game import Settings
from rps_tp.ops import OPS, Claim, Commit, Create, Delete, Join, Ready, Resign, Reveal, Setup
from rps_tp.payload import MAX_PAYLOAD_BYTES, InvalidPayload, encode_payload, parse_payload
from tests.rps_tp.moments import JOINING, SETTING_UP, committing, over, revealing

SALT = bytes(range(32))
DIGEST = bytes(range(100, 132))


def dumps(value: object) -> bytes:
    return cbor2.dumps(value, canonical=True)


def refusal(payload: bytes) -> str:
    with pytest.raises(InvalidPayload) as raised:
        parse_payload(payload)
    return str(raised.value)


#: How a payload names the moment of the game it was signed for.
BEFORE_PLAY = {"round": 0, "phase": "setup"}
ROUND_ONE = {"round": 1, "phase": "commit"}


@pytest.mark.parametrize(
    ("value", "op"),
    [
        ({"op": "create", "name": "g1"}, Create("g1")),
        ({"op": "create", "name": "g1", "join": False}, Create("g1", join=False)),
        ({"op": "create", "name": "g1", "join": True}, Create("g1", join=True)),
        (
            {"op": "create", "name": "g1", "settings": {"points": 3, "timeout": 60}},
            Create("g1", settings=Settings(3, 60)),
        ),
        ({"op": "join", "name": "g1", "round": 0, "phase": "join"}, Join("g1", JOINING)),
        ({"op": "join", "name": "g1", **BEFORE_PLAY}, Join("g1", SETTING_UP)),
        (
            {"op": "setup", "name": "g1", **BEFORE_PLAY, "settings": {"points": 2, "timeout": 1}},
            Setup("g1", SETTING_UP, Settings(2, 1)),
        ),
        (
            {"op": "ready", "name": "g1", **BEFORE_PLAY, "settings": {"points": 1, "timeout": 604800}},
            Ready("g1", SETTING_UP, Settings(1, 604800)),
        ),
        ({"op": "commit", "name": "g1", **ROUND_ONE, "commitment": DIGEST}, Commit("g1", committing(1), DIGEST)),
        (
            {"op": "reveal", "name": "g1", "round": 100, "phase": "reveal", "throw": "scissors", "salt": SALT},
            Reveal("g1", revealing(100), "scissors", SALT),
        ),
        ({"op": "resign", "name": "g1", **ROUND_ONE}, Resign("g1", committing(1))),
        ({"op": "resign", "name": "g1", "round": 3, "phase": "reveal"}, Resign("g1", revealing(3))),
        ({"op": "claim", "name": "g1", **ROUND_ONE}, Claim("g1", committing(1))),
        ({"op": "delete", "name": "g1", **BEFORE_PLAY}, Delete("g1", SETTING_UP)),
        ({"op": "delete", "name": "g1", "round": 100, "phase": "over"}, Delete("g1", over(100))),
        ({"op": "join", "name": "jeu-é☃ |,", **BEFORE_PLAY}, Join("jeu-é☃ |,", SETTING_UP)),
        ({"op": "join", "name": " g1 ", **BEFORE_PLAY}, Join(" g1 ", SETTING_UP)),
        ({"op": "join", "name": "x" * 128, **BEFORE_PLAY}, Join("x" * 128, SETTING_UP)),
    ],
)
def test_well_formed_payloads(value, op):
    assert parse_payload(dumps(value)) == op


@pytest.mark.parametrize(
    "op",
    [
        Create("g1"),
        Create("g1", join=False, settings=Settings(3, 120)),
        Join("g1", SETTING_UP),
        Setup("g1", SETTING_UP, Settings(2, 60)),
        Ready("g1", SETTING_UP, Settings(1, 300)),
        Commit("g1", committing(7), DIGEST),
        Reveal("g1", revealing(7), "paper", SALT),
        Resign("g1", revealing(2)),
        Claim("g1", committing(1)),
        Delete("g1", SETTING_UP),
        Delete("g1", over(3)),
    ],
)
def test_encode_payload_round_trips(op):
    assert parse_payload(encode_payload(op)) == op


def test_create_leaves_out_the_defaults():
    assert cbor2.loads(encode_payload(Create("g1"))) == {"op": "create", "name": "g1"}


def test_every_op_is_parsed():
    assert list(OPS) == ["create", "join", "setup", "ready", "commit", "reveal", "resign", "claim", "delete"]


@pytest.mark.parametrize(
    ("payload", "message"),
    [
        (b"", "the payload is not valid CBOR ("),
        (b"\xff", "the payload is not valid CBOR ("),
        (b"\xa1", "the payload is not valid CBOR ("),
        (b"\xc0\x61x", "the payload is not valid CBOR ("),  # tag 0 (a date) with a text that is no date
        (b"\x81" * 1000 + b"\x00", "the payload is not valid CBOR ("),
        (b"\x82\x01", "the payload is not valid CBOR ("),
        (b"g1,create,", "the payload must be a CBOR map, not '1,creat'"),  # 'g': text of 7 bytes
        (dumps(["create", "g1"]), "the payload must be a CBOR map, not an array"),
        (dumps("create"), "the payload must be a CBOR map, not 'create'"),
    ],
)
def test_bytes_that_are_not_a_cbor_map_explain_the_format(payload, message):
    text = refusal(payload)
    assert text.startswith(message)
    assert text.endswith('; an rps payload is a CBOR map such as {"op": "create", "name": "g1"}')


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ({"name": "g1"}, "the payload has no 'op'"),
        ({"op": "jump", "name": "g1"}, "unknown op 'jump'"),
        ({"op": "JOIN", "name": "g1"}, "unknown op 'JOIN'"),
        ({"op": 1, "name": "g1"}, "unknown op 1"),
        ({"op": None, "name": "g1"}, "unknown op null"),
    ],
)
def test_a_missing_or_unknown_op_lists_the_ops(value, message):
    assert refusal(dumps(value)) == (
        f"{message}; the ops are create, join, setup, ready, commit, reveal, resign, claim or delete"
    )


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ({"op": "join", **BEFORE_PLAY}, "the payload has no 'name' (the game's name)"),
        ({"op": "join", "name": 7}, "the game name must be text, not 7"),
        ({"op": "join", "name": b"g1"}, "the game name must be text, not 2 bytes"),
        ({"op": "join", "name": ""}, "the game name is empty"),
        ({"op": "join", "name": "x" * 129}, "the game name is 129 bytes long; at most 128 bytes (UTF-8) are allowed"),
        ({"op": "join", "name": "é" * 65}, "the game name is 130 bytes long; at most 128 bytes (UTF-8) are allowed"),
        (
            {"op": "join", "name": "a\nb"},
            "the game name must not contain control characters (U+000A at position 2)",
        ),
        (
            {"op": "join", "name": "\x1b[31mred"},
            "the game name must not contain control characters (U+001B at position 1)",
        ),
        ({"op": "join", "name": "g\x85"}, "the game name must not contain control characters (U+0085 at position 2)"),
        ({"op": "join", "name": "g\x7f"}, "the game name must not contain control characters (U+007F at position 2)"),
    ],
)
def test_bad_names_are_refused(value, message):
    assert refusal(dumps(value)) == message


#: A well-formed payload of each op that has fields, to spoil one field at a time.
GOOD = {
    "create": {"op": "create", "name": "g1"},
    "commit": {"op": "commit", "name": "g1", **ROUND_ONE, "commitment": DIGEST},
    "reveal": {"op": "reveal", "name": "g1", "round": 1, "phase": "reveal", "throw": "rock", "salt": SALT},
    "setup": {"op": "setup", "name": "g1", **BEFORE_PLAY, "settings": {"points": 1, "timeout": 300}},
    "resign": {"op": "resign", "name": "g1", **ROUND_ONE},
}
ROUND = "'round' must be a whole number from 0 to 100, not "
PHASE = "'phase' must be join, setup, commit, reveal or over, not "
THROW = "'throw' must be rock, paper or scissors, not "
TIMEOUT = "'timeout' must be a whole number of seconds from 1 to 604800, not "


@pytest.mark.parametrize(
    ("op", "changes", "message"),
    [
        ("commit", {"commitment": None}, "a commit payload has no field 'commitment'"),
        ("reveal", {"throw": None, "salt": None}, "a reveal payload has no fields 'throw', 'salt'"),
        ("setup", {"settings": None}, "a setup payload has no field 'settings'"),
        ("create", {"round": 1}, "a create payload has an unexpected field 'round'"),
        ("create", {"Join": False}, "a create payload has an unexpected field 'Join'"),
        ("create", {1: 2}, "a create payload has a key that is not text (1)"),
        ("create", {"join": 0}, "'join' must be true or false, not 0"),
        ("create", {"join": "no"}, "'join' must be true or false, not 'no'"),
        ("commit", {"round": 0}, "'round' must be from 1 to 100 in the commit phase, not 0"),
        ("resign", {"round": 0}, "'round' must be from 1 to 100 in the commit phase, not 0"),
        ("setup", {"round": 1}, "'round' must be 0 in the setup phase, not 1"),
        ("commit", {"round": 101}, ROUND + "101"),
        ("commit", {"round": -1}, ROUND + "-1"),
        ("commit", {"round": True}, ROUND + "true"),
        ("commit", {"round": 1.0}, ROUND + "a floating-point number"),
        ("commit", {"round": "1"}, ROUND + "'1'"),
        ("commit", {"round": 2**70}, ROUND + "a huge number"),
        ("resign", {"phase": "play"}, PHASE + "'play'"),
        ("resign", {"phase": "COMMIT"}, PHASE + "'COMMIT'"),
        ("resign", {"phase": 1}, PHASE + "1"),
        ("create", {"phase": "setup"}, "a create payload has an unexpected field 'phase'"),
        ("commit", {"commitment": DIGEST[:31]}, "'commitment' must be 32 bytes, not 31 bytes"),
        ("commit", {"commitment": DIGEST.hex()}, f"'commitment' must be 32 bytes, not '{DIGEST.hex()[:39]}..."),
        ("reveal", {"throw": "lizard"}, THROW + "'lizard'"),
        ("reveal", {"throw": "Rock"}, THROW + "'Rock'"),
        ("reveal", {"throw": 0}, THROW + "0"),
        ("reveal", {"salt": SALT[:16]}, "'salt' must be 32 bytes, not 16 bytes"),
        ("reveal", {"salt": SALT + b"!"}, "'salt' must be 32 bytes, not 33 bytes"),
        ("setup", {"settings": {"points": 5, "timeout": 60}}, "'points' must be a whole number from 1 to 3, not 5"),
        ("setup", {"settings": {"points": 1, "timeout": 0}}, TIMEOUT + "0"),
        ("setup", {"settings": {"points": 1, "timeout": 604801}}, TIMEOUT + "604801"),
        ("setup", {"settings": {"points": 1}}, "'settings' has no field 'timeout'"),
        ("setup", {"settings": {"points": 1, "timeout": 5, "x": 3}}, "'settings' has an unexpected field 'x'"),
        ("setup", {"settings": [1, 300]}, "'settings' must be a map, not an array"),
    ],
)  # fmt: skip
def test_bad_fields_are_named_in_the_message(op, changes, message):
    value = {**GOOD[op], **changes}
    value = {key: item for key, item in value.items() if item is not None}
    assert refusal(dumps(value)) == f"game 'g1': {message}"


MOMENT_EXPECTED = (
    "in rps 2.0 every op on an existing game names the 'round' (0 to 100) and 'phase' (join, setup, commit, "
    "reveal or over) of the game it was signed for, and counts only then"
)


@pytest.mark.parametrize(
    ("value", "missing"),
    [
        ({"op": "resign", "name": "g1"}, "'round' or 'phase'"),
        ({"op": "join", "name": "g1"}, "'round' or 'phase'"),
        ({"op": "ready", "name": "g1", "settings": {"points": 1, "timeout": 300}}, "'round' or 'phase'"),
        ({"op": "commit", "name": "g1", "round": 1, "commitment": DIGEST}, "'phase'"),
        ({"op": "reveal", "name": "g1", "round": 1, "throw": "rock", "salt": SALT}, "'phase'"),
        ({"op": "claim", "name": "g1", "phase": "commit"}, "'round'"),
    ],
)
def test_an_op_in_the_rps_1_0_form_is_refused_saying_what_form_is_expected(value, missing):
    op = value["op"]
    assert refusal(dumps(value)) == f"game 'g1': a {op} payload has no {missing}: {MOMENT_EXPECTED}"


CANONICAL_JOIN = dumps({"op": "join", "name": "g1", **BEFORE_PLAY})
#: The join's fields after "op": "join", each encoded: "name" and "phase" and "round", in canonical order.
JOIN_TAIL = dumps("name") + dumps("g1") + dumps("phase") + dumps("setup") + dumps("round") + dumps(0)


@pytest.mark.parametrize(
    "payload",
    [
        cbor2.dumps({"name": "g1", "op": "join", **BEFORE_PLAY}),  # keys in the wrong order: "name" before "op"
        b"\xbf" + dumps("op") + dumps("join") + JOIN_TAIL + b"\xff",  # an indefinite-length map
        b"\xa4" + dumps("op") + b"\x7f" + dumps("join") + b"\xff" + JOIN_TAIL,  # an indefinite-length text string
        CANONICAL_JOIN + b"\x00",  # a byte after the map
        b"\xa5" + dumps("op") + dumps("join") + JOIN_TAIL + dumps("op") + dumps("join"),  # "op" twice
        CANONICAL_JOIN[:-1],  # cut short
    ],
)
def test_a_join_spelt_in_any_form_but_the_canonical_one_is_refused(payload):
    assert parse_payload(CANONICAL_JOIN) == Join("g1", SETTING_UP)
    assert refusal(payload).startswith(("game 'g1': the payload is not in canonical CBOR", "the payload is not valid"))


#: A commit's fields before "round" and after it, each encoded.
COMMIT_HEAD = b"\xa5" + dumps("op") + dumps("commit") + dumps("name") + dumps("g1") + dumps("phase") + dumps("commit")
COMMIT_TAIL = dumps("commitment") + dumps(DIGEST)


@pytest.mark.parametrize(
    "payload",
    [
        COMMIT_HEAD + dumps("round") + b"\x18\x01" + COMMIT_TAIL,  # round 1 written in two bytes instead of one
        COMMIT_HEAD + dumps("round") + b"\xc2\x41\x01" + COMMIT_TAIL,  # round 1 as a bignum (tag 2)
        COMMIT_HEAD.replace(dumps("g1"), b"\xd8\x20" + dumps("g1")) + dumps("round") + b"\x01" + COMMIT_TAIL,  # tag 32
    ],
)
def test_long_forms_and_tags_are_refused(payload):
    assert parse_payload(COMMIT_HEAD + dumps("round") + b"\x01" + COMMIT_TAIL) == Commit("g1", committing(1), DIGEST)
    message = refusal(payload)
    assert message.startswith(
        ("game 'g1': the payload is not in canonical CBOR", "the payload holds CBOR tag 32 (a URI), and")
    )  # fmt: skip


@pytest.mark.parametrize(
    ("payload", "message"),
    [
        (b"\xd9\xd9\xf7" + CANONICAL_JOIN, "the payload is under CBOR tag 55799 (self-described CBOR), and canonical"),
        (b"\xf7", "the payload must be a CBOR map, not undefined"),
        (b"\xf8\x63", "the payload must be a CBOR map, not simple value 99"),
    ],
)
def test_a_refusal_names_the_cbor_type_never_a_python_one(payload, message):
    assert refusal(payload).startswith(message)


def test_a_non_canonical_payload_is_refused_naming_the_encoding():
    assert refusal(cbor2.dumps({"name": "g1", "op": "join", **BEFORE_PLAY})) == (
        "game 'g1': the payload is not in canonical CBOR (RFC 8949 core deterministic encoding: shortest forms, "
        "definite lengths, map keys sorted, no tags or floating-point numbers)"
    )


def test_the_size_limit_is_checked_before_decoding():
    payload = dumps({"op": "join", "name": "g1", **BEFORE_PLAY, "pad": "x" * MAX_PAYLOAD_BYTES})
    assert refusal(payload) == f"the payload is {len(payload)} bytes; an rps payload is at most 1024"
    assert refusal(b"\xff" * 2000) == "the payload is 2000 bytes; an rps payload is at most 1024"


def test_the_largest_valid_payload_fits_well_within_the_limit():
    largest = encode_payload(Reveal("é" * 64, revealing(100), "scissors", SALT))
    assert len(largest) < 300
    assert parse_payload(largest).name == "é" * 64


def test_a_huge_wrong_value_is_cut_short_in_the_message():
    message = refusal(dumps({**GOOD["reveal"], "throw": "x" * 900}))
    assert len(message) < 120


def test_payload_errors_are_the_sdks_invalid_transaction():
    assert issubclass(InvalidPayload, InvalidTransaction)
