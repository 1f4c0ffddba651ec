"""The chips records' codecs: records round-trip byte for byte; anything else at a chips address is corrupt."""

import cbor2
import pytest
from sawtooth_sdk.processor.exceptions import InternalError

from chips_tp.state import Account, decode_account, decode_channel, encode_account, encode_channel
from tests.chips_tp.examples import ALICE, BOB, examples

ADDRESS = "7d3d52" + "0" * 64


def test_the_example_records_round_trip():
    account = decode_account(ADDRESS, examples()["account"], ALICE.public_key)
    assert account == Account(ALICE.public_key, 1000)
    assert encode_account(account) == examples()["account"]
    channel = decode_channel(ADDRESS, examples()["channel after the challenge"])
    assert channel is not None
    assert encode_channel(channel) == examples()["channel after the challenge"]


def test_no_data_is_no_record():
    assert decode_account(ADDRESS, b"", ALICE.public_key) is None
    assert decode_channel(ADDRESS, b"") is None


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        (b"\xff", "is not valid CBOR"),
        (cbor2.dumps({"key": "x", "balance": 0}, canonical=True), "'balance' must be a whole number of chips from 1"),
        (cbor2.dumps({"balance": 5, "key": "x"}), "is not in canonical CBOR"),
    ],
)
def test_a_corrupt_account_is_an_internal_error(data, reason):
    with pytest.raises(InternalError, match=reason):
        decode_account(ADDRESS, data, ALICE.public_key)


def test_an_account_holding_another_key_is_corrupt():
    with pytest.raises(InternalError, match="not 02c6047f"):
        decode_account(ADDRESS, examples()["account"], BOB.public_key)


def test_a_channel_with_a_field_missing_is_corrupt():
    value = cbor2.loads(examples()["channel after the challenge"])
    del value["held"]
    with pytest.raises(InternalError, match="has no field 'held'"):
        decode_channel(ADDRESS, cbor2.dumps(value, canonical=True))
