"""The local server of ``xo web`` run in-process on a free port, and raw HTTP requests to it.

The app is built exactly as ``xo web`` builds it (:func:`xo_web.app.build_app`, on a
socket bound by :func:`xo_web.command.bind`) and served by its own event loop in a
thread, so a test speaks plain HTTP to it, with whatever headers a browser or an
attacker would send (``http.client`` lets a test set ``Host`` itself).

What the server says on stderr for the person running it (its follower's notices and
warnings: ``xo: cannot reach the REST API at ...; trying again in 5 s``) is kept in
``said`` instead: written from the server's thread, a line falling between two of a test's
phases, where pytest captures nothing, would land among pytest's dots.
"""

from __future__ import annotations

import asyncio
import http.client
import json
import threading
from pathlib import Path
from typing import Any, NamedTuple

import pytest
from aiohttp import web

from client_core.broker import BrokerAddress
from xo_web import live
from xo_web.app import Settings, build_app, make_runner
from xo_web.command import bind
from xo_web.security import TOKEN_HEADER, new_token

SECONDS = 15.0


class Answer(NamedTuple):
    status: int
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)


class LocalServer:
    """``xo web``'s server for ``rest_url`` and ``key_dir``, on 127.0.0.1 and a free port."""

    def __init__(
        self, rest_url: str, key_dir: Path, default_key: str | None = "alice", broker: BrokerAddress | None = None
    ) -> None:
        self.said: list[str] = []
        self._patch = pytest.MonkeyPatch()
        self._patch.setattr(live, "notice", lambda prog, message: self.said.append(f"{prog}: {message}"))
        self._patch.setattr(live, "warn", lambda prog, message: self.said.append(f"{prog}: warning: {message}"))
        listener = bind("127.0.0.1", 0)
        self.port = listener.getsockname()[1]
        self.origin = f"http://127.0.0.1:{self.port}"
        self.settings = Settings(rest_url, None, key_dir, default_key, self.port, new_token(), broker=broker)
        self.app = build_app(self.settings)
        self.runner = make_runner(self.app)
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self._call(self._start(listener))

    @property
    def token(self) -> str:
        return self.settings.token

    async def _start(self, listener: object) -> None:
        await self.runner.setup()
        await web.SockSite(self.runner, listener).start()

    def _call(self, coroutine: Any) -> Any:
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result(SECONDS)

    def close(self) -> None:
        self._call(self.runner.cleanup())
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(SECONDS)
        self.loop.close()
        self._patch.undo()

    def __enter__(self) -> LocalServer:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    def request(
        self, method: str, path: str, *, headers: dict[str, str] | None = None, body: bytes | None = None
    ) -> Answer:
        """One request; ``Host`` is what a browser on this server's address sends unless ``headers`` say otherwise."""
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=SECONDS)
        try:
            sent = {"Host": f"127.0.0.1:{self.port}", **(headers or {})}
            connection.putrequest(method, path, skip_host=True, skip_accept_encoding=True)
            for name, value in sent.items():
                connection.putheader(name, value)
            if body is not None:
                connection.putheader("Content-Length", str(len(body)))
            connection.endheaders(body)
            response = connection.getresponse()
            return Answer(response.status, dict(response.getheaders()), response.read())
        finally:
            connection.close()

    def page_headers(self, **extra: str) -> dict[str, str]:
        """What this server's own page sends with a move: its origin, JSON, the token."""
        return {"Origin": self.origin, "Content-Type": "application/json", TOKEN_HEADER: self.token, **extra}

    def post_rps(self, player: str, op: str, name: str, **fields: object) -> Answer:
        body = json.dumps({"player": player, "op": op, "name": name, **fields}).encode()
        return self.request("POST", "/api/rps", headers=self.page_headers(), body=body)

    def post_chips(self, path: str, **fields: object) -> Answer:
        """``POST /api/chips/PATH`` as the page sends it."""
        return self.request("POST", f"/api/chips/{path}", headers=self.page_headers(), body=json.dumps(fields).encode())

    def get_json(self, path: str) -> Any:
        answer = self.request("GET", path)
        assert answer.status == 200, answer.body
        return answer.json()

    def post_move(self, player: str, action: str, name: str, space: int | str | None = None) -> Answer:
        body = json.dumps({"player": player, "action": action, "name": name, "space": space}).encode()
        return self.request("POST", "/api/moves", headers=self.page_headers(), body=body)


class EventReader:
    """``GET /api/events`` read as a browser's EventSource reads it: one ``(event, data)`` at a time."""

    def __init__(self, server: LocalServer) -> None:
        self.connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=SECONDS)
        self.connection.request("GET", "/api/events", headers={"Host": f"127.0.0.1:{server.port}"})
        self.response = self.connection.getresponse()

    def next(self, kind: str | None = None) -> tuple[str, Any]:
        """The next event (of ``kind``, skipping others), its data parsed as JSON."""
        while True:
            fields: dict[str, str] = {}
            while (line := self.response.fp.readline().decode()) not in ("\n", ""):
                name, _, value = line.rstrip("\n").partition(": ")
                fields[name] = value
            if not line:
                raise AssertionError("the event stream ended")
            if "event" in fields and kind in (None, fields["event"]):
                return fields["event"], json.loads(fields["data"])

    def close(self) -> None:
        self.connection.close()

    def __enter__(self) -> EventReader:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()
