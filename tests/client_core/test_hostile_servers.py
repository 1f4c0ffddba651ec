"""Servers that misbehave below HTTP: every request ends by its deadline with one clear error, whatever they do.

A request's deadline covers all of it (connecting, sending, the headers and the
whole body), so a server pacing its bytes cannot stretch it; a ZeroMQ endpoint
is recognised by its greeting at once; an answer cut short or not HTTP at all is
named for what it is. Each case must end well within the server's own limit
(``LIMIT_SECONDS``), which is what a client without a total deadline would need.
"""

import time

import pytest

from client_core import rest
from client_core.errors import UNAVAILABLE, Unavailable
from client_core.rest import RestClient
from tests.hostile_server import (
    LIMIT_SECONDS,
    TLS_CERTIFICATE,
    HostileServer,
    answer,
    close_after,
    drip,
    greet_like_zeromq,
)
from xo_tp.family import NAMESPACE, game_address

DEADLINE = 0.5
SILENCE_DEADLINE = 0.2
"""For a server that sends nothing at all: no first byte can come late, whatever the machine's load."""
PROMPT = DEADLINE + 1.5
"""Well past the deadline (a busy machine), well short of the hostile server's own LIMIT_SECONDS."""
HEADERS = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n"

assert PROMPT < LIMIT_SECONDS


def failure(url, *, timeout=DEADLINE):
    """The Unavailable that reading one game from ``url`` ends in, and how long it took."""
    started = time.monotonic()
    with RestClient(url, timeout=timeout) as client, pytest.raises(Unavailable) as error:
        client.get_state(game_address("g1"))
    return error.value, time.monotonic() - started


def test_a_body_dripped_a_byte_at_a_time_ends_at_the_requests_deadline():
    with HostileServer(drip(HEADERS)) as server:
        error, took = failure(server.url)
    assert took < PROMPT
    assert error.message == f"the REST API at {server.url} did not finish its answer within {DEADLINE:g} s"
    assert error.exit_code == UNAVAILABLE


def test_headers_dripped_a_byte_at_a_time_end_at_the_requests_deadline():
    with HostileServer(drip(b"HTTP/1.1 200 OK\r\nX-Slow: ")) as server:
        error, took = failure(server.url)
    assert took < PROMPT
    assert "did not finish its answer within 0.5 s" in error.message


def test_a_server_that_never_answers_gets_the_no_answer_message():
    with HostileServer(lambda _connection, stop: stop.wait(LIMIT_SECONDS)) as server:
        error, took = failure(server.url, timeout=SILENCE_DEADLINE)
    assert took < PROMPT
    assert error.message == f"no answer from the REST API at {server.url} within 0.2 s"


def test_the_deadline_holds_across_the_pages_of_a_listing_one_request_at_a_time(fake):
    """Each request has its own deadline: a long listing of quick pages is not cut short."""
    for index in range(6):
        fake.put_game(f"g{index}")
    fake.page_size = 1
    with RestClient(fake.url, timeout=DEADLINE) as client:
        assert len(list(client.list_state(NAMESPACE))) == 6


def test_a_zeromq_endpoint_is_recognised_at_once_and_the_rest_api_port_suggested():
    with HostileServer(greet_like_zeromq, read_request=False) as server:
        error, took = failure(server.url, timeout=LIMIT_SECONDS)
    assert took < PROMPT
    assert error.message == (
        f"{server.url} is a validator's component endpoint (ZeroMQ, for transaction processors), not a REST API; "
        "the REST API is usually on port 8008: try --url http://127.0.0.1:8008"
    )


def test_an_answer_cut_short_says_the_connection_closed_in_the_middle():
    with HostileServer(close_after(HEADERS + b'{"data": "')) as server:
        error, _ = failure(server.url)
    assert error.message == f"the REST API at {server.url} closed the connection in the middle of its answer"


def test_an_answer_that_starts_like_zeromq_but_is_not_is_not_http():
    with HostileServer(close_after(b"\xff\x00\x00 not a greeting")) as server:
        error, _ = failure(server.url)
    assert error.message == f"the server at {server.url} does not speak HTTP (BadStatusLine)"


@pytest.mark.parametrize(
    "body",
    [b"[" * 100_000 + b"]" * 100_000, b'{"data": ' * 50_000 + b"null" + b"}" * 50_000, b"\xff\xfe\x00garbage"],
    ids=["deep-array", "deep-object", "binary"],
)
def test_any_body_ends_in_does_not_answer_like_a_sawtooth_rest_api(body):
    with HostileServer(answer(body)) as server:
        error, _ = failure(server.url)
    assert error.message.startswith(f"the server at {server.url} does not answer like a Sawtooth REST API")


@pytest.fixture
def trusted_certificate(monkeypatch):
    """Make the client trust the test server's certificate, as it would trust a real one from the system store."""
    monkeypatch.setenv("SSL_CERT_FILE", str(TLS_CERTIFICATE))


def test_https_reads_an_answer_with_the_certificate_checked(trusted_certificate):
    body = b'{"data": "Zm9v", "head": "h", "link": "l"}'
    with HostileServer(answer(body), tls=True) as server, RestClient(server.url, timeout=LIMIT_SECONDS) as client:
        assert client.get_state(game_address("g1")) == b"foo"


def test_over_https_too_a_dripped_answer_ends_at_the_requests_deadline(trusted_certificate):
    with HostileServer(drip(HEADERS), tls=True) as server:
        error, took = failure(server.url)
    assert took < PROMPT
    assert error.message == f"the REST API at {server.url} did not finish its answer within {DEADLINE:g} s"


def test_a_tls_handshake_that_never_comes_ends_at_the_requests_deadline():
    with HostileServer(lambda _connection, stop: stop.wait(LIMIT_SECONDS), read_request=False) as server:
        error, took = failure(server.url.replace("http://", "https://"), timeout=SILENCE_DEADLINE)
    assert took < PROMPT
    assert error.message.startswith("no answer from the REST API at https://")


def test_the_default_deadline_is_the_documented_30_seconds():
    assert rest.REQUEST_TIMEOUT == 30.0
    assert RestClient("http://127.0.0.1:1")._timeout == 30.0
