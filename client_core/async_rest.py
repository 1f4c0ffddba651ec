"""The REST API over asyncio (aiohttp): the few reads a follower needs, and the ``/subscriptions`` websocket.

Kept apart from :mod:`client_core.rest` (``http.client``, blocking) because only
commands that follow the chain need an event loop and a websocket; ``xo show`` must
not pay for importing aiohttp. The rules are the same: every request ends by one
deadline (aiohttp's ``total`` timeout: connecting, sending and the whole answer),
answers are bounded in size and read by :mod:`client_core.answers` and
:mod:`client_core.blocks`, and the path prefix, https and HTTP Basic credentials of
the base URL apply to the websocket too (``ws://`` or ``wss://``).

Failures are sorted for a follower that must keep going: :class:`Transient` (the
connection failed or dropped, a time-out, HTTP 5xx or 429) may pass, so the follower
retries; :class:`WebsocketRefused` (the upgrade answered with anything but 101 and
not a 5xx: a proxy without websockets, 404, or 429 from a subscriber limit) means
"poll instead"; any other :class:`~client_core.errors.Unavailable` (credentials
refused, an answer that is not Sawtooth's) will not pass by retrying.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import errno
import http
import json
import os
import time
from collections.abc import AsyncIterator, Callable, Sequence
from urllib.parse import quote, urlsplit

import aiohttp

from client_core.answers import Answers, Response, StateChange
from client_core.blocks import BlockChanges, ChainAnswers, ChainBlock, ServerNote
from client_core.errors import Unavailable
from client_core.rest import JSON_TYPE, MAX_BODY_BYTES, RECEIPTS_PER_REQUEST, REQUEST_TIMEOUT, normalize_url

HEARTBEAT_SECONDS = 20.0
"""A ping this often; a connection that does not answer within half of it is dead (a half-open TCP connection)."""
MAX_MESSAGE_BYTES = MAX_BODY_BYTES
CLOSE_SECONDS = 1.0
"""How long closing the websocket waits for the server's close frame."""
SUBSCRIPTIONS = "/subscriptions"


class Transient(Unavailable):
    """A failure that may pass by itself: the connection, a time-out, a server error, a busy server."""


class WebsocketRefused(Unavailable):
    """The REST API (or a proxy in front of it) does not serve the ``/subscriptions`` websocket."""


class AsyncRest:
    """One REST API over one aiohttp session; create and use it inside the event loop that runs it."""

    def __init__(
        self,
        base_url: str,
        *,
        auth: tuple[str, str] | None = None,
        timeout: float = REQUEST_TIMEOUT,
        trace: Callable[[str], None] | None = None,
    ) -> None:
        self.base_url = normalize_url(base_url)
        self.answers = Answers(self.base_url, auth[0] if auth else None)
        self.chain = ChainAnswers(self.answers)
        self.timeout = timeout
        self._trace = trace
        self._headers = {"Accept": JSON_TYPE, "User-Agent": "xo"}
        if auth is not None:
            token = base64.b64encode(f"{auth[0]}:{auth[1]}".encode()).decode("ascii")
            self._headers["Authorization"] = f"Basic {token}"
        self._prefix = urlsplit(self.base_url).path
        self._session: aiohttp.ClientSession | None = None

    async def close(self) -> None:
        if self._session is not None:
            await self._session.close()
            self._session = None

    # --- the REST API's resources ---

    async def head_block(self) -> ChainBlock:
        """The newest committed block."""
        path = "/blocks?limit=1"
        blocks, _ = self.chain.blocks_page(await self.request("GET", path), path)
        if not blocks:
            raise self.answers.not_sawtooth("/blocks lists no block, not even a genesis block")
        return blocks[0]

    async def blocks(self, head: str, limit: int) -> list[ChainBlock]:
        """Up to ``limit`` blocks from ``head`` back, newest first.

        A REST API that does not know ``head`` yet (404) may learn it soon: behind a
        load balancer, the node that sent its id can be a block ahead of this one.
        """
        path = f"/blocks?head={quote(head)}&limit={limit}"
        response = await self.request("GET", path)
        if response.status == 404:
            raise Transient(f"the REST API at {self.base_url} does not know block {head[:16]}... (yet)")
        return self.chain.blocks_page(response, path)[0]

    async def has_block(self, block_id: str) -> bool:
        """Whether ``block_id`` is a block of the REST API's chain."""
        path = f"/blocks/{quote(block_id)}"
        response = await self.request("GET", path)
        if response.status == 404:
            return False
        self.chain.block(self.answers.envelope(response, "data")["data"], path)
        return True

    async def receipts(self, transaction_ids: Sequence[str]) -> dict[str, list[StateChange]]:
        """The state changes of committed transactions by id, :data:`RECEIPTS_PER_REQUEST` per ``POST /receipts``."""
        found: dict[str, list[StateChange]] = {}
        for start in range(0, len(transaction_ids), RECEIPTS_PER_REQUEST):
            body = json.dumps(list(transaction_ids[start : start + RECEIPTS_PER_REQUEST])).encode()
            found.update(self.chain.receipts(await self.request("POST", "/receipts", body=body), "/receipts"))
        return found

    # --- HTTP ---

    async def request(self, method: str, path: str, *, body: bytes | None = None) -> Response:
        """One request within its deadline; the answer bounded in size and its status checked."""
        target = self.base_url + path
        headers = dict(self._headers)
        if body is not None:
            headers["Content-Type"] = JSON_TYPE
        started = time.monotonic()
        answered = False
        try:
            async with asyncio.timeout(self.timeout):
                async with self._client().request(method, target, data=body, headers=headers) as raw:
                    answered = True
                    payload = await self._read(raw, method, path)
                    response = Response(raw.status, raw.headers.get("Content-Type", ""), payload)
        except TimeoutError:
            if answered:
                raise Transient(f"the REST API at {self.base_url} did not finish its answer within "
                                f"{self.timeout:g} s") from None
            raise Transient(f"no answer from the REST API at {self.base_url} within {self.timeout:g} s") from None
        except aiohttp.ClientError as error:
            raise self.failure(error) from None
        if self._trace is not None:
            elapsed = (time.monotonic() - started) * 1000
            size = len(response.body)
            self._trace(f"{method} {self._prefix}{path} -> {response.status} ({size} bytes, {elapsed:.0f} ms)")
        self.check_status(response, method, path)
        return response

    def check_status(self, response: Response, method: str, path: str) -> None:
        """As :meth:`Answers.check_status`, with a busy or failing server a :class:`Transient` failure."""
        try:
            self.answers.check_status(response, method, path)
        except Unavailable as error:
            if response.status == 429 or response.status >= 500:
                raise Transient(error.message) from None
            raise

    async def _read(self, raw: aiohttp.ClientResponse, method: str, path: str) -> bytes:
        chunks: list[bytes] = []
        size = 0
        async for chunk in raw.content.iter_any():
            size += len(chunk)
            if size > MAX_BODY_BYTES:
                raise self.answers.not_sawtooth(f"its answer to {method} {path} exceeds {MAX_BODY_BYTES} bytes")
            chunks.append(chunk)
        return b"".join(chunks)

    def failure(self, error: aiohttp.ClientError) -> Unavailable:
        """The one-line error for a request that failed below HTTP; :class:`Transient` when it may pass."""
        api = f"the REST API at {self.base_url}"
        if isinstance(error, aiohttp.ClientConnectorError):
            code = error.os_error.errno
            reason = os.strerror(code) if code in errno.errorcode else str(error.os_error) or type(error).__name__
            return Transient(f"cannot reach {api}: {reason}")
        if isinstance(error, aiohttp.ClientPayloadError):
            return Transient(f"{api} closed the connection in the middle of its answer")
        if isinstance(error, aiohttp.ClientResponseError):
            return Unavailable(f"the server at {self.base_url} does not speak HTTP ({error.message})")
        return Transient(f"{api} closed the connection ({type(error).__name__}: {error})")

    def _client(self) -> aiohttp.ClientSession:
        if self._session is None:
            self._session = aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=None))
        return self._session

    # --- the websocket ---

    @contextlib.asynccontextmanager
    async def websocket(self) -> AsyncIterator[aiohttp.ClientWebSocketResponse]:
        """The ``/subscriptions`` websocket, open; closed (briefly waiting for the server) on the way out."""
        url = "ws" + self.base_url.removeprefix("http") + SUBSCRIPTIONS
        started = time.monotonic()
        try:
            async with asyncio.timeout(self.timeout):
                ws = await self._client().ws_connect(
                    url,
                    headers={key: value for key, value in self._headers.items() if key != "Accept"},
                    heartbeat=HEARTBEAT_SECONDS,
                    max_msg_size=MAX_MESSAGE_BYTES,
                )
        except TimeoutError:
            raise Transient(f"no answer from the REST API at {self.base_url} to the websocket handshake within "
                            f"{self.timeout:g} s") from None
        except aiohttp.WSServerHandshakeError as error:
            raise self._refusal(error) from None
        except aiohttp.ClientError as error:
            raise self.failure(error) from None
        if self._trace is not None:
            elapsed = (time.monotonic() - started) * 1000
            self._trace(f"GET {self._prefix}{SUBSCRIPTIONS} -> 101 websocket ({elapsed:.0f} ms)")
        try:
            yield ws
        finally:
            with contextlib.suppress(TimeoutError, aiohttp.ClientError, OSError):
                async with asyncio.timeout(CLOSE_SECONDS):
                    await ws.close()

    def _refusal(self, error: aiohttp.WSServerHandshakeError) -> Unavailable:
        """A failed upgrade: credentials refused (as for any request), a server error that may pass, or a refusal."""
        if error.status == 401:
            self.answers.check_status(Response(error.status, "", b""), "GET", SUBSCRIPTIONS)
        if error.status >= 500 and error.status != 501:
            return Transient(f"the REST API at {self.base_url} failed the websocket handshake (HTTP {error.status})")
        try:
            status = f"HTTP {error.status} {http.HTTPStatus(error.status).phrase}"
        except ValueError:
            status = f"HTTP {error.status}"
        api = f"the REST API at {self.base_url}"
        return WebsocketRefused(f"{api} does not serve the {SUBSCRIPTIONS} websocket ({status})")

    async def receive(self, ws: aiohttp.ClientWebSocketResponse) -> BlockChanges | ServerNote:
        """The next message of the websocket: a block's changes, or an error or warning."""
        message = await ws.receive()
        if message.type == aiohttp.WSMsgType.TEXT:
            return self.chain.message(message.data)
        if message.type == aiohttp.WSMsgType.BINARY:
            raise self.answers.not_sawtooth(f"{SUBSCRIPTIONS} sent a binary message")
        if message.type == aiohttp.WSMsgType.ERROR:
            raise Transient(f"the websocket to the REST API at {self.base_url} failed ({ws.exception()})")
        extra = message.extra if isinstance(message.extra, str) else ""
        why = f"code {ws.close_code}" + (f": {extra}" if extra else "")
        raise Transient(f"the REST API at {self.base_url} closed the websocket ({why})")
