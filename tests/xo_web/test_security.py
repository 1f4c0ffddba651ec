"""Only the server's own page may use it: the token, Host and Origin checks, the security headers.

Each test sends what a browser would send for some web page (this server's own, another
site's, a DNS-rebinding page's) and checks the answer. A request that passes the checks
is sent with a malformed body, so the 400 it gets proves that it got past them without
any REST API behind the server.
"""

from __future__ import annotations

import re
import time

import pytest

from tests.xo_web.local_server import EventReader, LocalServer
from xo_web.fanout import MAX_PAGES
from xo_web.security import SECURITY_HEADERS, TOKEN_HEADER

MALFORMED_MOVE = b'{"player": "alice", "action": "fly"}'


def error_of(answer) -> dict:
    """The Sawtooth-style error body every refusal has."""
    assert answer.headers["Content-Type"].startswith("application/json")
    error = answer.json()["error"]
    assert set(error) == {"code", "title", "message"}
    return error


def test_the_page_carries_a_fresh_random_token_and_the_security_headers(offline_server, key_dir, closed_port):
    answer = offline_server.request("GET", "/")
    assert answer.status == 200
    page = answer.body.decode()
    assert f'<meta name="xo-token" content="{offline_server.token}">' in page
    assert len(offline_server.token) >= 43  # 256 bits, URL-safe base64
    for name, value in SECURITY_HEADERS.items():
        assert answer.headers[name] == value
    policy = answer.headers["Content-Security-Policy"]
    assert "default-src 'self'" in policy and "frame-ancestors 'none'" in policy
    assert "unsafe-inline" not in policy
    assert answer.headers["Cache-Control"] == "no-store"
    with LocalServer(f"http://127.0.0.1:{closed_port}", key_dir) as another_run:
        assert another_run.token != offline_server.token
        assert offline_server.token not in another_run.request("GET", "/").body.decode()


def test_a_move_from_the_page_with_its_token_gets_past_the_checks(offline_server):
    answer = offline_server.request("POST", "/api/moves", headers=offline_server.page_headers(), body=MALFORMED_MOVE)
    assert answer.status == 400
    assert "\"action\" must be one of create, take, delete" in error_of(answer)["message"]


CHIPS_POSTS = [
    f"/api/chips/{op}"
    for op in ("open", "join", "play", "move", "challenge", "finalize", "offer", "withdraw", "accept")
]


@pytest.mark.parametrize("path", ["/api/moves", "/api/rps", "/api/computer", "/api/computer/stop", *CHIPS_POSTS])
def test_a_post_without_the_token_is_forbidden(offline_server, path):
    headers = offline_server.page_headers()
    del headers[TOKEN_HEADER]
    answer = offline_server.request("POST", path, headers=headers, body=MALFORMED_MOVE)
    assert answer.status == 403
    assert error_of(answer) == {
        "code": 10,
        "title": "Forbidden",
        "message": f"the request lacks this run's token ({TOKEN_HEADER}): reload the page",
    }


def test_a_post_with_a_wrong_token_is_forbidden(offline_server):
    token = offline_server.token
    wrong = token[:-1] + ("B" if token.endswith("A") else "A")  # one character off, never the token itself
    headers = offline_server.page_headers(**{TOKEN_HEADER: wrong})
    assert offline_server.request("POST", "/api/moves", headers=headers, body=MALFORMED_MOVE).status == 403


@pytest.mark.parametrize("origin", ["http://evil.example", "null", "https://127.0.0.1:{port}", "http://127.0.0.1:1"])
def test_a_post_from_another_origin_is_forbidden_even_with_the_token(offline_server, origin):
    headers = offline_server.page_headers(Origin=origin.format(port=offline_server.port))
    answer = offline_server.request("POST", "/api/moves", headers=headers, body=MALFORMED_MOVE)
    assert answer.status == 403
    assert error_of(answer)["message"] == "only this server's own page may change anything"


@pytest.mark.parametrize("path", CHIPS_POSTS)
def test_a_chips_post_from_another_origin_is_forbidden_even_with_the_token(offline_server, path):
    headers = offline_server.page_headers(Origin="http://evil.example")
    assert offline_server.request("POST", path, headers=headers, body=MALFORMED_MOVE).status == 403


def test_chips_of_a_player_from_another_site_are_not_read(offline_server):
    headers = {"Origin": "http://evil.example", "Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "cors"}
    assert offline_server.request("GET", "/api/chips?player=alice", headers=headers).status == 403


def test_a_post_without_an_origin_is_forbidden(offline_server):
    headers = offline_server.page_headers()
    del headers["Origin"]
    assert offline_server.request("POST", "/api/moves", headers=headers, body=MALFORMED_MOVE).status == 403


@pytest.mark.parametrize("path", ["/", "/api/session", "/api/events", "/static/js/main.js", "/nothing"])
def test_a_foreign_host_is_refused_on_every_path_so_dns_rebinding_reads_nothing(offline_server, path):
    answer = offline_server.request("GET", path, headers={"Host": f"rebind.evil.example:{offline_server.port}"})
    assert answer.status == 421
    assert error_of(answer)["code"] == 11
    assert offline_server.token.encode() not in answer.body


def test_a_foreign_host_cannot_post_either(offline_server):
    headers = offline_server.page_headers(Host=f"rebind.evil.example:{offline_server.port}")
    assert offline_server.request("POST", "/api/moves", headers=headers, body=MALFORMED_MOVE).status == 421


@pytest.mark.parametrize("host", ["127.0.0.1:{port}", "localhost:{port}", "LOCALHOST:{port}", "[::1]:{port}"])
def test_the_page_is_served_to_localhost_and_ip_addresses(offline_server, host):
    answer = offline_server.request("GET", "/", headers={"Host": host.format(port=offline_server.port)})
    assert answer.status == 200


@pytest.mark.parametrize(
    "host", ["127.0.0.1", "127.0.0.1:1", "localhost:{port}.evil.example", "", "a@127.0.0.1:{port}"]
)
def test_a_host_with_another_port_or_garbage_is_refused(offline_server, host):
    answer = offline_server.request("GET", "/", headers={"Host": host.format(port=offline_server.port)})
    assert answer.status in (400, 421)


def test_another_site_cannot_read_the_json(offline_server):
    answer = offline_server.request("GET", "/api/session", headers={"Origin": "http://evil.example"})
    assert answer.status == 403
    included = offline_server.request(
        "GET", "/api/session", headers={"Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "no-cors"}
    )
    assert included.status == 403


def test_a_link_from_another_site_still_opens_the_page(offline_server):
    headers = {"Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "navigate", "Sec-Fetch-Dest": "document"}
    assert offline_server.request("GET", "/", headers=headers).status == 200


def test_static_files_are_served_with_their_types_and_nothing_else(offline_server):
    script = offline_server.request("GET", "/static/js/main.js")
    assert script.status == 200
    assert script.headers["Content-Type"] == "text/javascript; charset=utf-8"
    assert script.headers["X-Content-Type-Options"] == "nosniff"
    for path in ("/static/../app.py", "/static/%2e%2e/app.py", "/static/index.html", "/static/js", "/app.py"):
        answer = offline_server.request("GET", path)
        assert answer.status == 404, path
        assert error_of(answer)["code"] == 22


def test_wrong_methods_types_and_sizes_get_error_bodies(offline_server):
    headers = offline_server.page_headers()
    assert error_of(offline_server.request("PUT", "/api/moves", headers=headers, body=b"{}"))["code"] == 23
    as_text = offline_server.request(
        "POST", "/api/moves", headers={**headers, "Content-Type": "text/plain"}, body=MALFORMED_MOVE
    )
    assert (as_text.status, error_of(as_text)["code"]) == (415, 21)
    huge = offline_server.request("POST", "/api/moves", headers=headers, body=b"[" + b"1," * 20_000 + b"1]")
    assert (huge.status, error_of(huge)["code"]) == (413, 24)
    not_json = offline_server.request("POST", "/api/moves", headers=headers, body=b"{nope")
    assert (not_json.status, error_of(not_json)["message"]) == (400, "the body is not JSON")


def test_the_session_names_the_keys_without_their_secrets(offline_server, key_dir):
    answer = offline_server.request("GET", "/api/session")
    session = answer.json()
    assert [key["name"] for key in session["keys"]] == ["alice", "bob"]
    assert session["default_key"] == "alice"
    private = (key_dir / "alice.priv").read_text().strip()
    assert private not in answer.body.decode()
    assert re.fullmatch(r"0[23][0-9a-f]{64}", session["keys"][0]["public_key"])


def test_pages_beyond_the_limit_are_turned_away_and_a_page_that_left_frees_its_place_at_once(offline_server):
    streams = [EventReader(offline_server) for _ in range(MAX_PAGES)]
    try:
        assert all(stream.next()[0] == "snapshot" for stream in streams)
        answer = offline_server.request("GET", "/api/events")
        assert answer.status == 503
        assert answer.headers["Retry-After"] == "5"
        assert error_of(answer)["title"] == "Too Many Pages"
        streams.pop().close()
        deadline = time.monotonic() + 5  # the server notices the closed connection, not its next keep-alive (15 s)
        while (reopened := EventReader(offline_server)).response.status == 503 and time.monotonic() < deadline:
            reopened.close()
            time.sleep(0.02)
        streams.append(reopened)
        assert reopened.next()[0] == "snapshot"
    finally:
        for stream in streams:
            stream.close()
