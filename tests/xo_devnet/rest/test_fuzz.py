"""Fuzzing the REST input: random paths, queries, bodies and content types never get a 5xx or an off-contract answer.

Requests are drawn from the OpenAPI document itself (its paths and parameter names)
mixed with junk; every answer goes through the same OpenAPI check as the contract
tests, so "no crash" here also means "answered as documented".
"""

import json
from urllib.parse import quote

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from xo_core.batches import make_batch, make_batch_list, make_xo_transaction
from xo_core.signing import Signer
from xo_devnet.rest.openapi import openapi_document

FUZZ = settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow], database=None)

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
values = st.one_of(id_like, junk, st.integers(-(10**30), 10**30).map(str), st.sampled_from(["", "true", "false"]))


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
    st.sampled_from(["application/json", "text/plain", "application/octet-stream; charset=binary", ""]),
)


@given(st.one_of(st.binary(max_size=300), mutated_batch_lists()), content_types)
@FUZZ
def test_random_batch_submissions_are_answered_by_the_book(api, body, content_type):
    answer = api.post("/batches", body, content_type or None)
    assert answer.status in (202, 400, 429)


json_values = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), st.text(max_size=20), id_like),
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=5), inner, max_size=3)),
    max_leaves=10,
)


@given(
    st.sampled_from(["/batch_statuses", "/receipts"]),
    st.one_of(json_values.map(lambda value: json.dumps(value).encode()), st.binary(max_size=100)),
    st.sampled_from(["application/json", "text/plain", "application/json; charset=utf-8"]),
)
@FUZZ
def test_random_json_posts_are_answered_by_the_book(api, path, body, content_type):
    answer = api.post(path, body, content_type)
    assert answer.status in (200, 400, 404)
