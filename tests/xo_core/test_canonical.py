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


def test_a_cyclic_value_from_shared_references_is_read_without_recursing():
    value = canonical.decode(bytes.fromhex("d81c81d81d00"), "the data")  # [<the same list>]
    assert canonical.describe(value) == "an array"
    with pytest.raises(Malformed, match="must be a map, not an array"):
        canonical.fields(value, "a game", ("name",))


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
        (cbor2.CBORTag(99, 1), "a value with tag 99"),
        (frozenset(), "a frozenset"),
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
