"""What the local server logs about what clients send: a malformed request is one INFO line, never a flood.

And what it tells the person running it: that it cannot reach the REST API, and that it keeps trying.

aiohttp alone would write every request it cannot parse at ERROR with a traceback,
so anything on the machine could fill the player's terminal; the server routes them
through the same rate-limited logger as xo-devnet's REST API.
"""

from __future__ import annotations

import logging
import socket
import time

from tests.xo_web.local_server import LocalServer
from xo_web import app
from xo_web.app import LOG_LIMITER

MALFORMED = b"GET / HTTP/9.9\r\nHost: 127.0.0.1\r\n\r\n"


def send_raw(server: LocalServer, request: bytes) -> bytes:
    host, port = server.origin.removeprefix("http://").rsplit(":", 1)
    with socket.create_connection((host, int(port)), timeout=10) as client:
        client.sendall(request)
        answer = b""
        while chunk := client.recv(65536):
            answer += chunk
        return answer


def test_malformed_requests_are_answered_400_and_logged_once_at_info_without_a_traceback(offline_server, caplog):
    caplog.set_level(logging.DEBUG)
    for _ in range(20):
        assert b" 400 " in send_raw(offline_server, MALFORMED).split(b"\r\n", 1)[0]
    # The offline server may meanwhile say that it cannot reach the REST API (its offers' feed, at its own time):
    # that is not about these requests.
    records = [record for record in caplog.records
               if record.levelno >= logging.INFO and "cannot reach the REST API" not in record.getMessage()]
    assert [(record.levelname, record.exc_info) for record in records] == [("INFO", None)]
    assert "malformed HTTP request from 127.0.0.1" in records[0].getMessage()
    offline_server.app[LOG_LIMITER].flush()
    counted = [record.getMessage() for record in caplog.records if "more like it" in record.getMessage()]
    assert len(counted) == 1
    assert "(19 more like it in the last" in counted[0]


def test_without_a_rest_api_the_server_tells_the_person_running_it_and_keeps_trying(offline_server):
    deadline = time.monotonic() + 10
    while not offline_server.said and time.monotonic() < deadline:
        time.sleep(0.01)
    assert offline_server.said[:1] == [
        f"xo: cannot reach the REST API at {offline_server.settings.rest_url}: Connection refused; trying again in 5 s"
    ]
    assert offline_server.request("GET", "/").status == 200, "the page is served all the same"


def test_a_bug_a_client_can_repeat_is_one_traceback_per_route_and_a_count(key_dir, closed_port, monkeypatch, caplog):
    async def broken(self, _request):
        raise RuntimeError("a bug in the session route")

    monkeypatch.setattr(app.Server, "session", broken)
    caplog.set_level(logging.ERROR, logger="xo_web")
    with LocalServer(f"http://127.0.0.1:{closed_port}", key_dir) as server:
        for _ in range(20):
            answer = server.request("GET", "/api/session", headers=server.page_headers())
            assert (answer.status, answer.json()["error"]["code"]) == (500, 70)
        errors = [record for record in caplog.records if record.name == "xo_web"]
        assert [(record.getMessage(), record.exc_info is not None) for record in errors] == [
            ("internal error serving GET /api/session", True)
        ]
        server.app[LOG_LIMITER].flush()
    counted = [record.getMessage() for record in caplog.records if "more like it" in record.getMessage()]
    assert counted == ["internal error serving GET /api/session (19 more like it in the last 10 s)"]
