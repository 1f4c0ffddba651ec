"""What the REST server logs about what clients do: nothing at ERROR, no tracebacks, and never a flood.

A malformed HTTP request is the client's mistake: one INFO line without a traceback,
and a stream of them is one line per interval with a count. Running out of file
descriptors (too many clients at once) is a WARNING, written the same way.
"""

import asyncio
import errno
import logging
import socket

import pytest

from tests.xo_devnet.rest.threaded_devnet import ThreadedDevnet
from xo_devnet.ledger import LedgerConfig

OVER_LONG_TARGET = b"/" + b"a" * (2 * 1024 * 1024 + 10)
MALFORMED = [
    pytest.param(b"GET /status HTTP/9.9\r\nHost: x\r\n\r\n", id="unknown HTTP version"),
    pytest.param(b"GET " + OVER_LONG_TARGET + b" HTTP/1.1\r\nHost: x\r\n\r\n", id="over-long request line"),
    pytest.param(b"GET /status HTTP/1.1\r\nHo st: x\r\n\r\n", id="malformed header"),
]


@pytest.fixture
def devnet():
    running = ThreadedDevnet(LedgerConfig(None, component_endpoint="tcp://127.0.0.1:0")).start()
    yield running
    running.stop()


def send_raw(devnet: ThreadedDevnet, request: bytes) -> bytes:
    with socket.create_connection((devnet.server.host, devnet.server.port), timeout=10) as client:
        client.sendall(request)
        answer = b""
        while chunk := client.recv(65536):
            answer += chunk
        return answer


def server_records(caplog) -> list[logging.LogRecord]:
    sources = ("aiohttp", "asyncio", "xo_devnet", "xo_core")
    return [record for record in caplog.records if record.name.startswith(sources)]


@pytest.mark.parametrize("request_bytes", MALFORMED)
def test_a_malformed_request_is_answered_400_and_logged_once_at_info_without_a_traceback(devnet, caplog, request_bytes):
    caplog.set_level(logging.DEBUG)
    for _ in range(20):
        status_line = send_raw(devnet, request_bytes).split(b"\r\n", 1)[0]
        assert status_line.startswith(b"HTTP/1.") and b" 400 " in status_line
    records = [record for record in server_records(caplog) if record.levelno >= logging.INFO]
    assert [record.levelname for record in records] == ["INFO"]
    assert records[0].exc_info is None
    assert "malformed HTTP request from 127.0.0.1" in records[0].getMessage()
    assert "\n" not in records[0].getMessage()
    devnet.call_soon(devnet.server.log_limiter.flush)
    assert "(19 more like it in the last" in server_records(caplog)[-1].getMessage()


def test_running_out_of_file_descriptors_is_one_warning_per_interval_with_a_count(devnet, caplog):
    caplog.set_level(logging.DEBUG)
    listener = socket.socket()

    def accept_fails_900_times() -> None:
        loop = asyncio.get_running_loop()
        for _ in range(900):
            loop.call_exception_handler({
                "message": "socket.accept() out of system resource",
                "exception": OSError(errno.EMFILE, "Too many open files"),
                "socket": listener,
            })

    try:
        devnet.call_soon(accept_fails_900_times)
        records = server_records(caplog)
        assert [(record.levelname, record.exc_info) for record in records] == [("WARNING", None)]
        assert "Too many open files" in records[0].getMessage()
        devnet.call_soon(devnet.server.log_limiter.flush)
        assert "(899 more like it in the last" in server_records(caplog)[-1].getMessage()
    finally:
        listener.close()


def test_other_event_loop_errors_still_reach_the_default_handler(devnet, caplog):
    caplog.set_level(logging.DEBUG)

    def report() -> None:
        asyncio.get_running_loop().call_exception_handler({"message": "something else broke"})

    devnet.call_soon(report)
    assert any(
        record.levelno == logging.ERROR and "something else broke" in record.getMessage()
        for record in server_records(caplog)
    )
