"""Fuzzing the REST input: random paths, queries, bodies and content types never get a 5xx or an off-contract answer.

Requests are drawn from the OpenAPI document itself (its paths and parameter names)
mixed with junk; every answer goes through the same OpenAPI check as the contract
tests, so "no crash" here also means "answered as documented". Besides small junk,
the draws include what breaks parsers and HTTP layers rather than routes: JSON
nested a hundred thousand deep, bodies around the 10 MiB limit, and id lists long
enough to overflow an ordinary request line.
"""

import json
from urllib.parse import quote

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from xo_client.transactions import make_xo_transaction
from xo_core.batches import make_batch, make_batch_list
from xo_core.signing import Signer
from xo_devnet.rest.openapi import openapi_document
from xo_devnet.validation import MAX_BODY_BYTES

FUZZ = settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow], database=None)
HEAVY = settings(FUZZ, max_examples=12)
"""For draws of megabytes each: few examples, so the whole file stays a few seconds."""

DOCUMENT = openapi_document()
PATHS = sorted(DOCUMENT["paths"])
PARAMETER_NAMES = sorted(
    {parameter["name"] for parameter in DOCUMENT["components"]["parameters"].values()} | {"address", "id"}
)
SIGNER = Signer.generate()
VALID_LIST = make_batch_list([make_batch(SIGNER, [make_xo_transaction(SIGNER, "fuzzed", "create")])])

hex_text = st.text(alphabet="0123456789abcdef", min_size=0, max_size=140)
id_like = st.one_of(hex_text, st.just("ab" * 64), st.just("5b7349" + "0" * 64), st.just("0x0000000000000001"))
junk = st.text(max_size=80)
long_id_lists = st.builds(lambda one_id, count: ",".join([one_id] * count), id_like, st.integers(50, 3000))
"""Up to 3000 ids (390 KB): far past aiohttp's default 8190-byte request line, which holds 63."""
values = st.one_of(
    id_like, junk, st.integers(-(10**30), 10**30).map(str), st.sampled_from(["", "true", "false"]), long_id_lists
)


@st.composite
def get_targets(draw) -> str:
    template = draw(st.sampled_from(PATHS))
    segments = []
    for segment in template.split("/"):
        segments.append(quote(draw(st.one_of(id_like, junk)), safe="") if segment.startswith("{") else segment)
    names = draw(st.lists(st.one_of(st.sampled_from(PARAMETER_NAMES), st.text(min_size=1, max_size=10)), max_size=5))
    query = "&".join(f"{quote(name, safe='')}={quote(draw(values), safe='')}" for name in names)
    path = "/".join(segments) or "/"
    return f"{path}?{query}" if query else path


@given(get_targets())
@FUZZ
def test_random_gets_are_answered_by_the_book(api, target):
    answer = api.get(target)
    assert answer.status in (200, 400, 404, 405)


@st.composite
def mutated_batch_lists(draw) -> bytes:
    body = bytearray(VALID_LIST)
    for _ in range(draw(st.integers(1, 4))):
        position = draw(st.integers(0, len(body) - 1))
        body[position] = draw(st.integers(0, 255))
    cut = draw(st.integers(0, len(body)))
    return bytes(body[:cut] if draw(st.booleans()) else body)


content_types = st.one_of(
    st.just("application/octet-stream"),
    st.sampled_from(["application/json", "text/plain", "application/octet-stream; charset=binary", "", None]),
)


@given(st.one_of(st.binary(max_size=300), mutated_batch_lists()), content_types)
@FUZZ
def test_random_batch_submissions_are_answered_by_the_book(api, body, content_type):
    answer = api.post("/batches", body, content_type)
    assert answer.status in (202, 400, 429)
    if content_type in ("", None, "text/plain", "application/json"):
        assert answer.error_code == 42


json_values = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), st.text(max_size=20), id_like),
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=5), inner, max_size=3)),
    max_leaves=10,
)


deeply_nested = st.builds(
    lambda depth, opener, closer: opener * depth + closer * depth,
    st.integers(1, 200_000),
    st.sampled_from([b"[", b'{"a":']),
    st.sampled_from([b"]", b"}", b""]),
)
many_ids = st.builds(lambda one_id, count: json.dumps([one_id] * count).encode(), id_like, st.integers(1, 3000))


@given(
    st.sampled_from(["/batch_statuses", "/receipts"]),
    st.one_of(
        json_values.map(lambda value: json.dumps(value).encode()), st.binary(max_size=100), deeply_nested, many_ids
    ),
    st.sampled_from(["application/json", "text/plain", "application/json; charset=utf-8"]),
)
@FUZZ
def test_random_json_posts_are_answered_by_the_book(api, path, body, content_type):
    answer = api.post(path, body, content_type)
    assert answer.status in (200, 400, 404)


@given(
    st.sampled_from([("/batch_statuses", 46), ("/receipts", 82)]),
    st.integers(-64, 64).map(lambda offset: MAX_BODY_BYTES + offset),
    st.sampled_from([b"[]", b'["' + b"ab" * 64 + b'"]', b"[" * 64]),
)
@HEAVY
def test_json_bodies_around_the_size_limit_are_judged_by_size_first(api, route, size, start):
    path, bad_body_code = route
    body = start + b" " * (size - len(start))
    answer = api.post(path, body, "application/json")
    assert answer.status in (200, 400, 404)
    if size > MAX_BODY_BYTES:
        assert (answer.status, answer.error_code) == (400, bad_body_code)
