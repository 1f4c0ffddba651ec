"""Reading answers: whatever a server sends, the outcome is a value or a server error (exit 3), never a crash.

The property tests feed every reader arbitrary statuses, content types and
bodies -- JSON of any shape and depth, Sawtooth-like envelopes with fields of the
wrong types, bytes that are not JSON at all -- and accept only two outcomes: a
value, or a ``CommandError`` with exit code 3 (and, for a submission, the REST
API's own 400 refusal, exit 1). Anything else would reach the user as "internal
error", the exit code kept for bugs in the client.
"""

import base64
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from client_core.answers import Answers, Response, describe_error, parse_json
from client_core.errors import REJECTED, UNAVAILABLE, CommandError, Unavailable

API = Answers("http://h:8008")
BATCH = "b" * 128
TRANSACTION = "t" * 128
ADDRESS = "5b7349" + "0" * 64

scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | st.text(max_size=20)
json_values = st.recursive(
    scalars,
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=12), children, max_size=4),
    max_leaves=20,
)
base64_text = st.binary(max_size=30).map(lambda data: base64.b64encode(data).decode())
field_values = json_values | base64_text | st.sampled_from(
    [BATCH, TRANSACTION, ADDRESS, "COMMITTED", "INVALID", "PENDING", "UNKNOWN", "SET", "DELETE", "http://[", "?a=1"]
)
keys = st.sampled_from(
    ["data", "paging", "next", "link", "head", "error", "code", "title", "message", "id", "transaction_id", "status",
     "invalid_transactions", "address", "state_changes", "type", "value"]
)
shaped = st.recursive(
    field_values,
    lambda children: st.lists(children, max_size=4) | st.dictionaries(keys, children, max_size=5),
    max_leaves=30,
)
depths = st.integers(min_value=1, max_value=20_000)
bodies = (
    shaped.map(lambda value: json.dumps(value).encode())
    | json_values.map(lambda value: json.dumps(value).encode())
    | st.binary(max_size=64)
    | depths.map(lambda depth: b"[" * depth + b"]" * depth)
    | depths.map(lambda depth: b'{"data": ' * depth + b"[]" + b"}" * depth)
    | depths.map(lambda depth: b'{"error": {"code": 1, "title": ' + b"[" * depth + b"]" * depth + b"}}")
)
responses = st.builds(
    Response,
    status=st.sampled_from([200, 201, 202, 204, 301, 400, 401, 403, 404, 418, 429, 500, 502, 503]),
    content_type=st.sampled_from(["application/json", "text/html", "", "application/octet-stream"]),
    body=bodies,
)


def read_every_way(response):
    """Every reader of ``client_core.answers`` on one response; yields each one's name and error (None if it read)."""
    readers = {
        "check_status": lambda: API.check_status(response, "GET", "/state"),
        "state_value": lambda: API.state_value(response, f"/state/{ADDRESS}"),
        "state_page": lambda: API.state_page(response, "/state?address=5b7349"),
        "batch_status": lambda: API.batch_status(response, BATCH),
        "state_changes": lambda: API.state_changes(response, TRANSACTION),
        "accepted": lambda: API.accepted(response),
    }
    for name, reader in readers.items():
        try:
            reader()
        except CommandError as error:
            yield name, error
        else:
            yield name, None


@settings(max_examples=300, deadline=None)
@given(responses)
def test_any_answer_is_read_or_refused_as_a_server_error(response):
    for reader, error in read_every_way(response):
        if error is None:
            continue
        refused = reader == "accepted" and response.status == 400 and error.exit_code == REJECTED
        assert error.exit_code == UNAVAILABLE or refused, (reader, error.message)


@settings(max_examples=200, deadline=None)
@given(shaped)
def test_any_envelope_in_a_200_answer_is_read_or_refused_as_a_server_error(value):
    response = Response(200, "application/json", json.dumps(value).encode())
    for _reader, error in read_every_way(response):
        assert error is None or error.exit_code == UNAVAILABLE


def test_json_nested_deeper_than_python_can_recurse_is_not_json():
    assert parse_json(b"[" * 100_000 + b"]" * 100_000) is None


def test_an_error_body_with_fields_of_the_wrong_type_is_described_without_them():
    assert describe_error({"code": 1, "title": [[["deep"]]], "message": "kept"}) == "kept"
    assert describe_error({"code": 1, "title": "T" * 10_000}) == "T" * 300


def test_a_well_formed_answer_is_read():
    body = json.dumps({"data": [{"id": BATCH, "status": "INVALID", "invalid_transactions": [{"message": "no"}]}]})
    assert API.batch_status(Response(200, "application/json", body.encode()), BATCH) == ("INVALID", ["no"])


def test_a_status_sawtooth_does_not_have_is_refused():
    body = json.dumps({"data": [{"id": BATCH, "status": "\x1b[31mCOMMITTED"}]}).encode()
    with pytest.raises(Unavailable, match="no known status"):
        API.batch_status(Response(200, "application/json", body), BATCH)


def test_a_receipt_gives_the_state_changes_of_its_transaction():
    value = base64.b64encode(b"g1,----X----,P2-NEXT,02ab,").decode()
    changes = [{"address": ADDRESS, "type": "SET", "value": value}, {"address": ADDRESS[:-1] + "1", "type": "DELETE"}]
    body = json.dumps({"data": [{"id": TRANSACTION, "state_changes": changes}]}).encode()
    read = API.state_changes(Response(200, "application/json", body), TRANSACTION)
    assert [(change.address, change.type, change.value) for change in read] == [
        (ADDRESS, "SET", b"g1,----X----,P2-NEXT,02ab,"),
        (ADDRESS[:-1] + "1", "DELETE", b""),
    ]
