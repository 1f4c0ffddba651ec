"""Canonical CBOR in, checked Python values out: the reading both the payload and the state codec share.

The family's payloads and state are CBOR in RFC 8949's core deterministic encoding
(shortest integer and length forms, definite lengths, map keys sorted), so that one
value has one encoding. A codec decodes with :func:`decode`, checks every field with
the readers below, and finally compares the canonical encoding of what it read with
the bytes it was given (:func:`check_canonical`, or :func:`encode_ordered` of values it
rebuilt in canonical order): anything that does not encode back to the same bytes (a
tag, a float, a duplicate key, trailing bytes, a long form, unsorted keys) is refused.

Every problem is a :class:`Malformed` with a message in plain words; the payload codec
passes it on to the player, the state codec reports it as corrupt state.
"""

from collections.abc import Mapping, Sequence
from functools import cache
from typing import Final

import cbor2

#: The encoding, in words, for messages.
DESCRIPTION: Final = (
    "canonical CBOR (RFC 8949 core deterministic encoding: shortest forms, definite lengths, "
    "map keys sorted, no tags or floating-point numbers)"
)
#: Longest text shown from a wrong value.
_SHOWN: Final = 40
#: Bignums: read as integers, refused by the range of the field holding them (:func:`first_tag`).
_BIGNUM_TAGS: Final = (2, 3)
#: What the tags a sender is likeliest to add are called (RFC 8949 and IANA's registry), for messages.
_TAG_NAMES: Final = {
    0: "a date/time string", 1: "an epoch date/time", 2: "a positive bignum", 3: "a negative bignum",
    4: "a decimal fraction", 5: "a bigfloat", 24: "embedded CBOR", 32: "a URI", 37: "a UUID", 258: "a set",
    55799: "self-described CBOR",
}  # fmt: skip


class Malformed(ValueError):
    """Bytes or values that are not what the schema says; the message says what is wrong."""


def decode(data: bytes, what: str) -> object:
    """The first CBOR data item in ``data`` (called ``what`` in messages); :class:`Malformed` if there is none.

    ``cbor2`` decodes dozens of semantic tags into Python objects and each can fail in
    its own way (a bad date, a bad regular expression, nesting too deep for the
    interpreter), so every exception it raises is caught here: whatever the bytes,
    only :class:`Malformed` leaves this function.
    """
    try:
        value = cbor2.loads(data)
    except Exception as error:  # a parser of untrusted bytes: see the docstring
        raise Malformed(f"{what} is not valid CBOR ({_cut(str(error) or type(error).__name__)})") from None
    tag = first_tag(data)
    if tag is not None:
        number, outermost = tag
        named = f"CBOR tag {number}" + (f" ({_TAG_NAMES[number]})" if number in _TAG_NAMES else "")
        where = f"is under {named}" if outermost else f"holds {named}"
        raise Malformed(f"{what} {where}, and canonical CBOR (RFC 8949 core deterministic encoding, the family's "
                        "encoding) has no tags: send the data without it")  # fmt: skip
    return value


def first_tag(data: bytes) -> tuple[int, bool] | None:
    """The number of the first tag in the first data item of ``data`` and whether it tags that whole item, or None.

    Canonical CBOR has no tags, yet ``cbor2`` turns the tags it knows into Python values
    (a date, a set, a read-only map for tag 55799) and the tag is lost: a refusal could
    then only name the Python type. Reading the item heads of the encoding itself names
    the tag, whatever ``cbor2`` makes of it. ``data`` is well-formed CBOR (``cbor2`` read
    it); an indefinite length ends the search, since canonical form refuses those anyway.
    Bignums (tags 2 and 3) are passed over: ``cbor2`` reads them as the integers they are,
    so the range check of the field holding one names the field ("not a huge number").
    """
    position, pending, end = 0, 1, len(data)
    while pending and position < end:
        start, initial = position, data[position]
        major, info = initial >> 5, initial & 0x1F
        position += 1
        if info < 24:
            argument = info
        elif info <= 27:
            size = 1 << (info - 24)
            argument = int.from_bytes(data[position : position + size], "big")
            position += size
        else:
            return None
        if major == 6:
            if argument in _BIGNUM_TAGS:
                continue  # the tag and the byte string after it are one item, an integer: see the docstring
            return argument, start == 0
        pending -= 1
        if major in (2, 3):
            position += argument
        elif major == 4:
            pending += argument
        elif major == 5:
            pending += 2 * argument
    return None


def encode(value: object) -> bytes:
    """``value`` in canonical CBOR."""
    return cbor2.dumps(value, canonical=True)


def encode_ordered(value: object) -> bytes:
    """``value`` in canonical CBOR, provided every map in it already lists its keys in canonical order.

    Sorting keys costs ``cbor2`` three times the encoding itself, and a codec that builds
    its maps in a fixed order need not pay for it; its tests compare the result with
    :func:`encode`.
    """
    return cbor2.dumps(value)


def check_canonical(value: object, data: bytes, what: str) -> None:
    """Refuse ``data`` (called ``what``) unless it is exactly the canonical encoding of ``value``, its decoding."""
    if encode(value) != data:
        raise Malformed(f"{what} is not in {DESCRIPTION}")


def describe(value: object) -> str:
    """A wrong value as a message shows it: short, and never the whole of a huge one."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value) if abs(value) < 10**12 else "a huge number"
    if isinstance(value, str):
        return _cut(repr(value))
    if isinstance(value, bytes | bytearray):
        return f"{len(value)} bytes"
    if isinstance(value, float):
        return "a floating-point number"
    if isinstance(value, Mapping):
        return "a map"
    if isinstance(value, Sequence):
        return "an array"
    if value is cbor2.undefined:
        return "undefined"
    if isinstance(value, cbor2.CBORSimpleValue):
        return f"simple value {value.value}"
    if isinstance(value, cbor2.CBORTag):
        return f"a value under CBOR tag {value.tag}"
    return "a value under a CBOR tag"  # every other thing cbor2 returns stands for a tagged item


def fields(
    value: object, what: str, required: tuple[str, ...], optional: tuple[str, ...] = ()
) -> Mapping[str, object]:
    """``value`` as a map holding every key in ``required``, perhaps some in ``optional``, and nothing else."""
    if isinstance(value, dict) and len(value) == len(required) and value.keys() == _key_set(required):
        return value  # the common case, checked without building lists
    if not isinstance(value, dict):
        raise Malformed(f"{what} must be a map, not {describe(value)}")
    for key in value:
        if not isinstance(key, str):
            raise Malformed(f"{what} has a key that is not text ({describe(key)})")
    missing = [key for key in required if key not in value]
    if missing:
        raise Malformed(f"{what} has no {'field' if len(missing) == 1 else 'fields'} {_names(missing)}")
    unexpected = [key for key in value if key not in required and key not in optional]
    if unexpected:
        noun = "an unexpected field" if len(unexpected) == 1 else "unexpected fields"
        raise Malformed(f"{what} has {noun} {_names(unexpected)}")
    return value


@cache
def _key_set(keys: tuple[str, ...]) -> frozenset[str]:
    return frozenset(keys)


def text(value: object, what: str) -> str:
    """``value`` if it is a text string."""
    if not isinstance(value, str):
        raise Malformed(f"{what} must be text, not {describe(value)}")
    return value


def choice(value: object, what: str, choices: Sequence[str]) -> str:
    """``value`` if it is one of the texts in ``choices``."""
    if not isinstance(value, str) or value not in choices:
        raise Malformed(f"{what} must be {_alternatives(choices)}, not {describe(value)}")
    return value


def whole_number(value: object, what: str, low: int, high: int, unit: str = "") -> int:
    """``value`` if it is an integer (not a boolean, not a float) from ``low`` to ``high``."""
    if type(value) is not int or not low <= value <= high:
        raise Malformed(f"{what} must be a whole number{unit} from {low} to {high}, not {describe(value)}")
    return value


def flag(value: object, what: str) -> bool:
    """``value`` if it is ``true`` or ``false``."""
    if type(value) is not bool:
        raise Malformed(f"{what} must be true or false, not {describe(value)}")
    return value


def byte_string(value: object, what: str, length: int) -> bytes:
    """``value`` if it is a byte string of exactly ``length`` bytes."""
    if not isinstance(value, bytes) or len(value) != length:
        raise Malformed(f"{what} must be {length} bytes, not {describe(value)}")
    return value


def array(value: object, what: str, max_length: int) -> list[object]:
    """``value`` if it is an array of at most ``max_length`` items."""
    if not isinstance(value, list):
        raise Malformed(f"{what} must be an array, not {describe(value)}")
    if len(value) > max_length:
        raise Malformed(f"{what} has {len(value)} items; at most {max_length} are allowed")
    return value


def _cut(shown: str) -> str:
    return shown if len(shown) <= _SHOWN else shown[:_SHOWN] + "..."


def _names(keys: Sequence[object]) -> str:
    shown = [_cut(repr(key)) for key in keys[:3]]
    more = f" and {len(keys) - 3} more" if len(keys) > 3 else ""
    return ", ".join(shown) + more


def _alternatives(choices: Sequence[str]) -> str:
    if len(choices) == 1:
        return choices[0]
    return ", ".join(choices[:-1]) + " or " + choices[-1]
