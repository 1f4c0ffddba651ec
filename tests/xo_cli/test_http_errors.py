"""Every way the REST API can fail gets its own one-line message and exit code 3, never a traceback."""

import json
import socket
import threading

import pytest


def sawtooth_error(code, title, message):
    return json.dumps({"error": {"code": code, "title": title, "message": message}}).encode()


def assert_one_error_line(err, *fragments):
    assert err.count("\n") == 1
    assert err.startswith("xo: error: ")
    assert "Traceback" not in err
    for fragment in fragments:
        assert fragment in err


@pytest.fixture(params=["show", "take"])
def command(request, make_player, fake):
    """The same failures seen by a read (show) and by a move (take, whose first request reads the game)."""
    if request.param == "show":
        return ["show", "g1"]
    return ["take", "g1", "5", *make_player("alice").flags(fake.url)[2:]]


def test_unreachable_url(run, closed_port, command):
    code, out, err = run(*command, "--url", f"http://127.0.0.1:{closed_port}")
    assert (code, out) == (3, "")
    assert_one_error_line(err, f"cannot reach the REST API at http://127.0.0.1:{closed_port}", "refused")


@pytest.mark.parametrize(
    ("status", "body", "content_type", "fragments"),
    [
        (
            429,
            sawtooth_error(31, "Unable to Accept Batches", "The validator cannot currently accept more batches."),
            "application/json",
            ["is too busy", "HTTP 429 Unable to Accept Batches", "try again shortly"],
        ),
        (429, b"Too Many Requests", "text/plain", ["is too busy", "HTTP 429"]),
        (
            503,
            sawtooth_error(15, "Validator Not Ready", "The validator has no genesis block."),
            "application/json",
            ["failed (HTTP 503 Validator Not Ready: The validator has no genesis block.)"],
        ),
        (500, b"<html>Internal Server Error</html>", "text/html", ["failed (HTTP 500)"]),
        (502, b"<html>Bad Gateway</html>", "text/html", ["failed (HTTP 502)"]),
        (200, b"<html>Welcome!</html>", "text/html", ["does not answer like a Sawtooth REST API", "text/html"]),
        (200, b'{"something": "else"}', "application/json", ["does not answer like a Sawtooth REST API", "'data'"]),
        (200, b'{"data": 42}', "application/json", ["does not answer like a Sawtooth REST API", "base64"]),
        (404, b"<html>Not Found</html>", "text/html", ["does not answer like a Sawtooth REST API", "HTTP 404"]),
        (403, b"Forbidden", "text/plain", ["forbids GET /state/", "HTTP 403"]),
        (301, b"", "text/html", ["does not answer like a Sawtooth REST API", "HTTP 301"]),
    ],
)
def test_server_answers(fake, run, command, status, body, content_type, fragments):
    fake.answer_always(status, body, content_type)
    code, out, err = run(*command, "--url", fake.url)
    assert (code, out) == (3, "")
    assert_one_error_line(err, *fragments)
    assert fake.submitted == []


def test_401_without_credentials_says_how_to_give_them(fake, run, command):
    fake.auth = ("player", "secret")
    code, _, err = run(*command, "--url", fake.url)
    assert code == 3
    assert_one_error_line(err, "requires authentication (HTTP 401)", "--auth-user")


def test_401_with_wrong_credentials_names_the_user(fake, run, command):
    fake.auth = ("player", "secret")
    code, _, err = run(*command, "--url", fake.url, "--auth-user", "player", "--auth-password", "wrong")
    assert code == 3
    assert_one_error_line(err, "refused the credentials of 'player' (HTTP 401)")


def test_a_server_that_does_not_speak_http(run, command):
    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(0.05)
    port = listener.getsockname()[1]
    stop = threading.Event()

    def answer_garbage():
        while not stop.is_set():
            try:
                connection, _ = listener.accept()
            except TimeoutError:
                continue
            with connection:
                connection.recv(4096)
                connection.sendall(b"\x00\x01 this is not HTTP\r\n\r\n")

    thread = threading.Thread(target=answer_garbage, daemon=True)
    thread.start()
    try:
        code, _, err = run(*command, "--url", f"http://127.0.0.1:{port}")
    finally:
        stop.set()
        thread.join(timeout=10)
        listener.close()
    assert code == 3
    assert_one_error_line(err, "does not speak HTTP")


def test_a_refused_batch_is_a_rejection_with_the_rest_apis_reason(fake, make_player, run):
    fake.answer_always(400, sawtooth_error(35, "Protobuf Not Decodable", "The protobuf BatchList was malformed."))
    code, _, err = run("create", "g1", "--no-validate", *make_player("alice").flags(fake.url))
    assert code == 1
    assert_one_error_line(err, "the REST API refused the batch: Protobuf Not Decodable: The protobuf BatchList")


def test_paging_that_loops_is_reported_not_followed_forever(fake, run):
    page = {"data": [], "head": "h", "link": "l", "paging": {"next": "http://elsewhere/state?address=5b7349"}}
    fake.answer_always(200, json.dumps(page).encode())
    code, _, err = run("list", "--url", fake.url)
    assert code == 3
    assert_one_error_line(err, "paging loops back")


def test_very_verbose_adds_the_traceback(run, closed_port):
    code, _, err = run("show", "g1", "-vv", "--url", f"http://127.0.0.1:{closed_port}")
    assert code == 3
    assert "Traceback" in err
    assert err.splitlines()[-1].startswith("xo: error: cannot reach the REST API")


def test_verbose_traces_each_request(fake, run):
    fake.put_game("g1")
    code, _, err = run("show", "g1", "-v", "--url", fake.url)
    assert code == 0
    assert err.startswith("xo: GET /state/5b7349")
    assert "-> 200" in err
