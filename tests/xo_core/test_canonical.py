"""The shared CBOR readers: whatever the bytes, a Malformed with a plain message, and nothing else."""

import cbor2
import pytest

from xo_core import canonical
from xo_core.canonical import Malformed


@pytest.mark.parametrize(
    "data",
    [
        b"",
        b"\x5b\x7f\xff\xff\xff\xff\xff\xff\xff",  # a byte string claiming 2**63 bytes
        b"\xc4\x82\x21",  # a decimal fraction cut short
        b"\xc1\x61x",  # an epoch date that is text
        b"\x81" * 5000 + b"\x00",  # nested deeper than any decoder allows
    ],
)
def test_undecodable_bytes_are_malformed_and_nothing_else(data):
    with pytest.raises(Malformed) as raised:
        canonical.decode(data, "the payload")
    assert str(raised.value).startswith("the payload is not valid CBOR (")
    assert len(str(raised.value)) < 100


def test_shared_references_are_tags_refused_before_anything_reads_their_cycle():
    with pytest.raises(Malformed) as raised:
        canonical.decode(bytes.fromhex("d81c81d81d00"), "the data")  # [<the same list>], by tags 28 and 29
    assert str(raised.value).startswith("the data is under CBOR tag 28, and canonical CBOR")
    cyclic: list[object] = []
    cyclic.append(cyclic)
    assert canonical.describe(cyclic) == "an array"
    with pytest.raises(Malformed, match="must be a map, not an array"):
        canonical.fields(cyclic, "a game", ("name",))


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (
            b"\xd9\xd9\xf7" + cbor2.dumps({"op": "join"}),
            "the payload is under CBOR tag 55799 (self-described CBOR), and canonical CBOR (RFC 8949 core "
            "deterministic encoding, the family's encoding) has no tags: send the data without it",
        ),
        (cbor2.dumps({"op": cbor2.CBORTag(1000, "join")}), "the payload holds CBOR tag 1000, and canonical CBOR"),
        (cbor2.dumps([1, {"a": frozenset([2])}]), "the payload holds CBOR tag 258 (a set), and"),
        (b"\xc1\x1a\x65\x53\xf1\x00", "the payload is under CBOR tag 1 (an epoch date/time), and"),
    ],
)
def test_a_tag_is_refused_by_its_number_whatever_cbor2_makes_of_it(data, message):
    with pytest.raises(Malformed) as raised:
        canonical.decode(data, "the payload")
    assert str(raised.value).startswith(message)


def test_the_first_tag_is_found_in_the_encoding_itself():
    assert canonical.first_tag(cbor2.dumps({"a": [b"\xc0" * 30, "\u00e9" * 40, -(2**40), {"b": None}]})) is None
    assert canonical.first_tag(cbor2.dumps(["x", cbor2.CBORTag(2**40, 0)])) == (2**40, False)
    assert canonical.first_tag(b"\xd9\xd9\xf7\xa0") == (55799, True)
    assert canonical.first_tag(b"\x01\xc0") is None  # after the first data item: trailing bytes, refused elsewhere
    assert canonical.first_tag(cbor2.dumps([2**64, -(2**70), cbor2.CBORTag(7, 1)])) == (7, False)  # past bignums


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        (None, "null"),
        (False, "false"),
        (7, "7"),
        (-(10**15), "a huge number"),
        ("x" * 100, "'" + "x" * 39 + "..."),
        (b"abc", "3 bytes"),
        (1.5, "a floating-point number"),
        ({}, "a map"),
        ([], "an array"),
        (cbor2.CBORTag(99, 1), "a value under CBOR tag 99"),
        (frozenset(), "a value under a CBOR tag"),
        (cbor2.undefined, "undefined"),
        (cbor2.CBORSimpleValue(99), "simple value 99"),
    ],
)
def test_wrong_values_are_described_briefly(value, shown):
    assert canonical.describe(value) == shown


def test_many_missing_or_unexpected_fields_are_counted_not_listed():
    with pytest.raises(Malformed) as raised:
        canonical.fields(dict.fromkeys("abcdef", 1), "a map", ())
    assert str(raised.value) == "a map has unexpected fields 'a', 'b', 'c' and 3 more"
    with pytest.raises(Malformed) as raised:
        canonical.fields({}, "a map", ("a", "b"))
    assert str(raised.value) == "a map has no fields 'a', 'b'"


def test_check_canonical_refuses_any_other_encoding_of_the_same_value():
    canonical.check_canonical({"a": 1, "bb": 2}, bytes.fromhex("a2616101626262 02".replace(" ", "")), "it")
    with pytest.raises(Malformed, match="it is not in canonical CBOR"):
        canonical.check_canonical({"a": 1, "bb": 2}, bytes.fromhex("a2626262026161 01".replace(" ", "")), "it")


def test_encode_ordered_keeps_the_order_it_is_given():
    assert canonical.encode_ordered({"bb": 1, "a": 2}) != canonical.encode({"bb": 1, "a": 2})
    assert canonical.encode_ordered({"a": 2, "bb": 1}) == canonical.encode({"bb": 1, "a": 2})
