"""chips payloads: every op round-trips, and a malformed payload is refused with what to fix."""

import cbor2
import pytest

from chips_tp.ops import (
    Cancel,
    Challenge,
    Checkpoint,
    Conclude,
    Finalize,
    Issue,
    Join,
    Open,
    Respond,
    SignedState,
    Transfer,
)  # fmt: skip
from chips_tp.payload import InvalidPayload, encode_payload, parse_payload

KEY = "02" + "ab" * 32
#: Well spelt, not a point on secp256k1: chips sent there could never move again.
OFF_CURVE = "02" + "11" * 32
ID = bytes(range(32))
SIGNED = SignedState(b"\xa0", (bytes(64), None))
OPS = [
    Issue(KEY, 5), Transfer(KEY, 1), Open(KEY, "rps", 1, (1, 2), 1, 0), Join(ID, 0), Cancel(ID),
    Conclude(ID, SIGNED), Challenge(ID, (SIGNED, SIGNED), bytes(64)), Checkpoint(ID, (SIGNED,)), Respond(ID, SIGNED),
    Finalize(ID),
]  # fmt: skip


@pytest.mark.parametrize("op", OPS, ids=lambda op: op.NAME)
def test_every_op_round_trips(op):
    assert parse_payload(encode_payload(op)) == op


@pytest.mark.parametrize(
    ("value", "reason"),
    [
        ([1], "the payload must be a CBOR map, not an array"),
        ({"op": "mint"}, "the payload has unknown op 'mint'; the ops are issue, transfer, open"),
        ({"op": "issue", "to": KEY}, "issue: the issue payload has no field 'amount'"),
        ({"op": "issue", "to": KEY, "amount": 0}, "'amount' must be a whole number of chips from 1"),
        ({"op": "issue", "to": KEY, "amount": -5}, "'amount' must be a whole number of chips from 1"),
        (
            {"op": "issue", "to": KEY, "amount": 2**64},
            "'amount' must be a whole number of chips from 1 to 18446744073709551615",
        ),
        ({"op": "issue", "to": KEY.upper(), "amount": 1}, "'to' must be a compressed secp256k1 public key"),
        ({"op": "join", "channel": ID[:31], "expected_held": 0}, "'channel' must be 32 bytes, not 31 bytes"),
        ({"op": "checkpoint", "channel": ID, "proof": []}, "'proof' must hold 1 or 2 signed states, not none"),
        (
            {"op": "checkpoint", "channel": ID, "proof": [{"state": b"", "signatures": [None, None]}] * 3},
            "'proof' has 3 items; at most 2",
        ),
        (
            {"op": "open", "app": "chess", "nonce": 0, "stake": 1, "deposits": [1, 1], "duration": 1, "opponent": KEY},
            "'app' must be xo or rps, not 'chess'",
        ),
        (
            {"op": "open", "app": "xo", "nonce": 0, "stake": 1, "deposits": [1, 1], "duration": 0, "opponent": KEY},
            "'duration' must be a whole number of seconds from 1 to 2592000, not 0",
        ),
    ],
)
def test_a_malformed_payload_is_refused_with_a_reason(value, reason):
    with pytest.raises(InvalidPayload) as refused:
        parse_payload(cbor2.dumps(value, canonical=True))
    assert reason in str(refused.value)


@pytest.mark.parametrize(
    ("value", "field"),
    [
        ({"op": "transfer", "to": OFF_CURVE, "amount": 5}, "'to'"),
        ({"op": "issue", "to": OFF_CURVE, "amount": 5}, "'to'"),
        (
            {"op": "open", "app": "xo", "nonce": 0, "stake": 1, "deposits": [1, 1], "duration": 3600,
             "opponent": OFF_CURVE},
            "'opponent'",
        ),
    ],
    ids=["transfer", "issue", "open"],
)  # fmt: skip
def test_a_named_key_that_is_not_a_curve_point_is_refused(value, field):
    with pytest.raises(InvalidPayload) as refused:
        parse_payload(cbor2.dumps(value, canonical=True))
    assert f"{field} (02111111...) is not a point on secp256k1: no private key signs for it" in str(refused.value)


@pytest.mark.parametrize(
    ("payload", "message"),
    [
        (
            b"\xd9\xd9\xf7" + cbor2.dumps({"op": "transfer", "to": KEY, "amount": 5}, canonical=True),
            "the payload is under CBOR tag 55799 (self-described CBOR), and canonical CBOR (RFC 8949 core "
            "deterministic encoding, the family's encoding) has no tags",
        ),
        (cbor2.dumps({"op": "transfer", "to": KEY, "amount": cbor2.undefined}), "'amount' must be a whole number of "
         "chips from 1 to 18446744073709551615, not undefined"),
        (cbor2.dumps({"op": "transfer", "to": KEY, "amount": cbor2.CBORSimpleValue(99)}), "not simple value 99"),
        (b"\xf0", "the payload must be a CBOR map, not simple value 16"),
    ],
)  # fmt: skip
def test_a_refusal_names_the_cbor_type_never_a_python_one(payload, message):
    with pytest.raises(InvalidPayload) as refused:
        parse_payload(payload)
    assert message in str(refused.value)
    assert "Type" not in str(refused.value) and "CBORSimpleValue" not in str(refused.value)


def test_a_payload_not_in_canonical_form_is_refused():
    unsorted = cbor2.dumps({"amount": 5, "op": "issue", "to": KEY})
    with pytest.raises(InvalidPayload, match="not in canonical CBOR"):
        parse_payload(unsorted)


def test_a_float_amount_is_refused():
    with pytest.raises(InvalidPayload, match="not a floating-point number"):
        parse_payload(cbor2.dumps({"op": "transfer", "to": KEY, "amount": 5.0}, canonical=True))


def test_an_oversized_payload_is_refused_before_decoding():
    with pytest.raises(InvalidPayload, match="the payload is 5000 bytes; a chips payload is at most 4096"):
        parse_payload(b"\x00" * 5000)
