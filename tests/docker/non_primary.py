"""A REST API that answers like a PBFT node which is not the primary: an invalid batch stays PENDING.

It forwards every request to a real REST API (an xo-devnet) and rewrites only batch statuses: INVALID becomes
PENDING, without the validator's reasons, as Sawtooth reports a batch its own validator never executed in a
block. Everything else (committed moves, state, errors) passes through unchanged.
"""

from __future__ import annotations

import contextlib
import json
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

# Longer than the longest wait=N the xo client asks the REST API to hold a status request open.
FORWARD_TIMEOUT_SECONDS = 90.0


def hide_rejections(body: dict[str, Any]) -> dict[str, Any]:
    """A /batch_statuses answer as a node that did not execute the batches gives it."""
    statuses = [
        {**status, "status": "PENDING", "invalid_transactions": []} if status.get("status") == "INVALID" else status
        for status in body["data"]
    ]
    return {**body, "data": statuses}


@contextlib.contextmanager
def non_primary_rest_api(upstream: str) -> Iterator[str]:
    """Serve on a free port of 127.0.0.1 while the block runs; yield the URL."""

    class Forward(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_GET(self) -> None:
            self.forward(None)

        def do_POST(self) -> None:
            self.forward(self.rfile.read(int(self.headers.get("Content-Length", "0"))))

        def forward(self, body: bytes | None) -> None:
            headers = {name: value for name, value in self.headers.items() if name.lower() == "content-type"}
            request = urllib.request.Request(upstream + self.path, data=body, headers=headers, method=self.command)
            try:
                with urllib.request.urlopen(request, timeout=FORWARD_TIMEOUT_SECONDS) as answer:
                    status, content_type, content = answer.status, answer.headers["Content-Type"], answer.read()
            except urllib.error.HTTPError as error:
                status, content_type, content = error.code, error.headers["Content-Type"], error.read()
            if self.path.startswith("/batch_statuses") and status == 200:
                content = json.dumps(hide_rejections(json.loads(content))).encode()
            self.send_response(status)
            self.send_header("Content-Type", content_type or "application/json")
            self.send_header("Content-Length", str(len(content)))
            self.end_headers()
            self.wfile.write(content)

        def log_message(self, format: str, *args: Any) -> None:
            """Quiet: the suite's own output says what happened."""

    server = ThreadingHTTPServer(("127.0.0.1", 0), Forward)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)  # stops at once
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
