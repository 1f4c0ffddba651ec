"""A small client of the Sawtooth REST API: state reads, batch submission, batch statuses, receipts, blocks.

Built on ``http.client`` rather than a third-party library: ``xo show`` starts a
fresh interpreter on every call and the standard library is already there. Every
request has one deadline for all of it (:mod:`client_core.transport`), and every
answer is read by :mod:`client_core.answers`, so whatever a server does -- refuse,
stall, drip bytes, greet in ZeroMQ, send odd JSON -- ends in a ``CommandError``
whose message says what went wrong, in one line.
"""

from __future__ import annotations

import base64
import http.client
import json
import time
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, TypeVar
from urllib.parse import quote, urlsplit

from client_core.answers import Answers, BatchStatus, Response, StateChange
from client_core.errors import Unavailable
from client_core.transport import Deadline, HttpConnection, HttpsConnection, ZeroMQEndpoint

if TYPE_CHECKING:
    from client_core.blocks import ChainAnswers, ChainBlock, ListedBlock

Block = TypeVar("Block")

REQUEST_TIMEOUT = 30.0
"""Seconds for a whole request: connecting, sending, and the whole answer (documented in the README)."""
WAIT_TIMEOUT_MARGIN = 30.0
MAX_BODY_BYTES = 64 * 1024 * 1024
MAX_PAGES = 100_000
JSON_TYPE = "application/json"
REST_API_PORT = 8008
"""Where a Sawtooth REST API usually listens (``sawtooth-rest-api --bind``'s default)."""
BLOCKS_PER_PAGE = 100
"""Blocks asked for per ``/blocks`` request: Sawtooth's own default page, a bounded answer even for full blocks."""
RECEIPTS_PER_REQUEST = 100

__all__ = ["BatchStatus", "RestClient", "StateChange", "normalize_url"]


def normalize_url(text: str) -> str:
    """Turn ``host:port`` or a full URL into ``scheme://host[:port][/prefix]``, as the reference client does.

    Raises ``ValueError`` for anything that cannot be an HTTP(S) base URL.
    """
    candidate = text.strip()
    if "://" not in candidate:
        candidate = "http://" + candidate
    parts = urlsplit(candidate)
    if parts.scheme not in ("http", "https"):
        raise ValueError(f"{text!r} is not an http:// or https:// URL")
    try:
        port = parts.port
    except ValueError:
        raise ValueError(f"{text!r} has an invalid port") from None
    if not parts.hostname or parts.query or parts.fragment or parts.username or parts.password:
        raise ValueError(f"{text!r} is not a REST API base URL such as http://127.0.0.1:8008")
    host = f"[{parts.hostname}]" if ":" in parts.hostname else parts.hostname
    netloc = host if port is None else f"{host}:{port}"
    return f"{parts.scheme}://{netloc}{parts.path.rstrip('/')}"


class RestClient:
    """One keep-alive connection to one REST API; not thread-safe (the CLI has one thread)."""

    def __init__(
        self,
        base_url: str,
        *,
        auth: tuple[str, str] | None = None,
        timeout: float | None = None,
        trace: Callable[[str], None] | None = None,
    ) -> None:
        self.base_url = normalize_url(base_url)
        parts = urlsplit(self.base_url)
        self._https = parts.scheme == "https"
        self._host = parts.hostname or ""
        self._port = parts.port
        self._prefix = parts.path
        self._auth = auth
        self._timeout = REQUEST_TIMEOUT if timeout is None else timeout
        self._trace = trace
        self._answers = Answers(self.base_url, auth[0] if auth else None)
        self._chain_answers: ChainAnswers | None = None
        self._deadline = Deadline()
        self._connection: http.client.HTTPConnection | None = None
        self._requests_on_connection = 0

    @property
    def auth(self) -> tuple[str, str] | None:
        """The HTTP Basic credentials, for another client of the same REST API (the websocket follower)."""
        return self._auth

    @property
    def trace(self) -> Callable[[str], None] | None:
        return self._trace

    @property
    def _chain(self) -> ChainAnswers:
        """The readers of blocks and receipts, loaded on first use: ``xo show`` never needs them."""
        if self._chain_answers is None:
            from client_core.blocks import ChainAnswers  # noqa: PLC0415 - see above

            self._chain_answers = ChainAnswers(self._answers)
        return self._chain_answers

    def close(self) -> None:
        if self._connection is not None:
            self._connection.close()
            self._connection = None

    def __enter__(self) -> RestClient:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    # --- the REST API's resources ---

    def get_state(self, address: str, head: str | None = None) -> bytes | None:
        """The bytes stored at ``address`` (as of block ``head``, else now), or None when nothing is stored there."""
        path = f"/state/{address}" + ("" if head is None else f"?head={quote(head)}")
        return self._answers.state_value(self._request("GET", path), path)

    def state_at_head(self, address: str) -> tuple[bytes | None, str | None]:
        """The bytes stored at ``address`` now (None when nothing is), and the id of the newest block they were read at
        (None when the REST API names none): a block a follower of the chain must show to be as new as this read."""
        path = f"/state/{address}"
        return self._answers.state_at_head(self._request("GET", path), path)

    def list_state(self, prefix: str, head: str | None = None) -> Iterator[tuple[str, bytes]]:
        """Every ``(address, data)`` under ``prefix`` (as of block ``head``), following ``paging.next`` to the end."""
        query = f"address={quote(prefix)}" + ("" if head is None else f"&head={quote(head)}")
        seen: set[str] = set()
        for _ in range(MAX_PAGES):
            seen.add(query)
            path = f"/state?{query}"
            page, next_query = self._answers.state_page(self._request("GET", path), path)
            yield from page
            if next_query is None:
                return
            if next_query in seen:
                raise self._answers.not_sawtooth(f"its paging loops back to /state?{next_query}")
            query = next_query
        raise self._answers.not_sawtooth(f"state under {prefix} spans more than {MAX_PAGES} pages")

    def submit_batches(self, batch_list: bytes) -> None:
        """POST a serialised ``BatchList``; an answer without the REST API's status link is not an acceptance."""
        response = self._request("POST", "/batches", body=batch_list, content_type="application/octet-stream")
        self._answers.accepted(response)

    def batch_status(self, batch_id: str, wait: int | None = None) -> BatchStatus:
        """The status of one batch; with ``wait`` the REST API holds the answer up to that many seconds."""
        path = f"/batch_statuses?id={quote(batch_id)}" + ("" if wait is None else f"&wait={wait}")
        timeout = self._timeout if wait is None else wait + WAIT_TIMEOUT_MARGIN
        return self._answers.batch_status(self._request("GET", path, timeout=timeout), batch_id)

    def state_changes(self, transaction_id: str) -> list[StateChange]:
        """The state changes of a committed transaction, from its receipt."""
        path = f"/receipts?id={quote(transaction_id)}"
        return self._answers.state_changes(self._request("GET", path), transaction_id)

    def receipts(self, transaction_ids: Sequence[str]) -> dict[str, list[StateChange]]:
        """The state changes of committed transactions by id, :data:`RECEIPTS_PER_REQUEST` per ``POST /receipts``."""
        found: dict[str, list[StateChange]] = {}
        for start in range(0, len(transaction_ids), RECEIPTS_PER_REQUEST):
            body = json.dumps(list(transaction_ids[start : start + RECEIPTS_PER_REQUEST])).encode()
            response = self._request("POST", "/receipts", body=body, content_type=JSON_TYPE)
            found.update(self._chain.receipts(response, "/receipts"))
        return found

    def post_json(self, path: str, document: object, *, answered: tuple[int, ...] = ()) -> Response:
        """POST ``document`` as JSON to a route of the server's own (xo-devnet's faucet, say): the answer as it came
        when its status is 2xx, 400, 404 or one of ``answered``; the usual one-line error for any other."""
        body = json.dumps(document).encode()
        return self._request("POST", path, body=body, content_type=JSON_TYPE, answered=answered)

    def head_block(self) -> ChainBlock:
        """The newest committed block."""
        path = "/blocks?limit=1"
        blocks, _ = self._chain.blocks_page(self._request("GET", path), path)
        if not blocks:
            raise self._answers.not_sawtooth("/blocks lists no block, not even a genesis block")
        return blocks[0]

    def first_block(self) -> ChainBlock:
        """The genesis block: the oldest, where a reader of the whole chain starts (``/blocks?limit=1&reverse``).

        A REST API that lists blocks newest first even when asked to reverse them is walked to its last page.
        """
        path = "/blocks?limit=1&reverse"
        blocks, _ = self._chain.blocks_page(self._request("GET", path), path)
        if not blocks:
            raise self._answers.not_sawtooth("/blocks lists no block, not even a genesis block")
        if blocks[0].block_num == 0:
            return blocks[0]
        oldest = blocks[0]
        for oldest in self.blocks():  # noqa: B007 - the last one listed is wanted
            pass
        return oldest

    def blocks(self, head: str | None = None) -> Iterator[ChainBlock]:
        """Every block from ``head`` (else the newest) back to genesis, newest first, page by page.

        The pages after the first carry the head the REST API answered with, so a
        walk that takes a while still reads one chain, whatever is committed meanwhile.
        """
        query = f"limit={BLOCKS_PER_PAGE}" + ("" if head is None else f"&head={quote(head)}")
        yield from self._walk_blocks(query, self._chain.blocks_page)

    def listed_blocks(self, page_size: int = BLOCKS_PER_PAGE) -> Iterator[ListedBlock]:
        """Every block from the newest back to genesis with its signer and batches, ``page_size`` per request.

        A reader that stops early (``xo chain blocks --limit 5``) asks for no more than it reads: pass
        the number it wants as ``page_size``.
        """
        query = f"limit={max(1, min(page_size, BLOCKS_PER_PAGE))}"
        yield from self._walk_blocks(query, self._chain.listed_blocks_page)

    def listed_block_at(self, block_num: int) -> ListedBlock | None:
        """Block number ``block_num`` with its signer and batches; None above the head.

        Sawtooth pages blocks by a marker of ``0x`` and 16 hex digits of the number, so one request finds any block.
        """
        path = f"/blocks?start=0x{block_num:016x}&limit=1"
        response = self._request("GET", path)
        if response.status in (400, 404):
            return None
        blocks, _ = self._chain.listed_blocks_page(response, path)
        return blocks[0] if blocks and blocks[0].block_num == block_num else None

    def listed_block_by_id(self, block_id: str) -> ListedBlock | None:
        """The block whose whole id is ``block_id``, with its signer and batches; None when no block has it."""
        path = f"/blocks/{quote(block_id)}"
        response = self._request("GET", path)
        if response.status in (400, 404):
            return None
        return self._chain.listed_block(self._answers.envelope(response, "data")["data"], path)

    def _walk_blocks(
        self, query: str, read_page: Callable[[Response, str], tuple[list[Block], str | None]]
    ) -> Iterator[Block]:
        """The blocks of ``/blocks?QUERY`` and of every page after it, as ``read_page`` reads them."""
        seen: set[str] = set()
        for _ in range(MAX_PAGES):
            seen.add(query)
            path = f"/blocks?{query}"
            page, next_query = read_page(self._request("GET", path), path)
            yield from page
            if next_query is None:
                return
            if next_query in seen:
                raise self._answers.not_sawtooth(f"its paging loops back to /blocks?{next_query}")
            query = next_query
        raise self._answers.not_sawtooth(f"the chain spans more than {MAX_PAGES} pages of blocks")

    # --- HTTP ---

    def _request(
        self,
        method: str,
        path: str,
        *,
        body: bytes | None = None,
        content_type: str | None = None,
        timeout: float | None = None,
        answered: tuple[int, ...] = (),
    ) -> Response:
        """Send one request within its deadline, retrying once if a kept-alive connection turned out to be closed."""
        target = self._prefix + path
        headers = {"Accept": JSON_TYPE, "User-Agent": "xo"}
        if content_type is not None:
            headers["Content-Type"] = content_type
        if self._auth is not None:
            token = base64.b64encode(f"{self._auth[0]}:{self._auth[1]}".encode()).decode("ascii")
            headers["Authorization"] = f"Basic {token}"
        started = time.monotonic()
        self._deadline.start(timeout if timeout is not None else self._timeout)
        for attempt in (1, 2):
            reused = self._requests_on_connection > 0
            try:
                connection = self._connect()
                connection.request(method, target, body=body, headers=headers)
                raw = connection.getresponse()
                payload = raw.read(MAX_BODY_BYTES + 1)
                if len(payload) <= MAX_BODY_BYTES and raw.length:  # fewer bytes than its Content-Length said
                    raise http.client.IncompleteRead(payload, raw.length)
            except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError) as error:
                self.close()
                if reused and attempt == 1:
                    continue  # the server closed a kept-alive connection between two requests: ask once more
                raise Unavailable(f"the REST API at {self.base_url} closed the connection ({error})") from None
            except (ZeroMQEndpoint, http.client.HTTPException, OSError) as error:
                self.close()
                raise self._failure(error) from None
            self._requests_on_connection += 1
            if raw.will_close:
                self.close()
            if len(payload) > MAX_BODY_BYTES:
                self.close()
                raise self._answers.not_sawtooth(f"its answer to {method} {path} exceeds {MAX_BODY_BYTES} bytes")
            if self._trace is not None:
                elapsed = (time.monotonic() - started) * 1000
                self._trace(f"{method} {target} -> {raw.status} ({len(payload)} bytes, {elapsed:.0f} ms)")
            response = Response(raw.status, raw.getheader("Content-Type", ""), payload)
            if response.status not in answered:
                self._answers.check_status(response, method, path)
            return response
        raise AssertionError("unreachable: the second attempt returns or raises")

    def _connect(self) -> http.client.HTTPConnection:
        """The kept-alive connection, else a new one, connected within the request's deadline."""
        if self._connection is None:
            kind = HttpsConnection if self._https else HttpConnection
            connection = kind(self._host, self._port, self._deadline)
            connection.connect()
            self._connection = connection
            self._requests_on_connection = 0
        return self._connection

    def _failure(self, error: Exception) -> Unavailable:
        """The one-line error for a request that failed below HTTP, or whose answer is not HTTP."""
        api = f"the REST API at {self.base_url}"
        if isinstance(error, ZeroMQEndpoint):
            return Unavailable(self._component_endpoint_message())
        if isinstance(error, TimeoutError):
            seconds = f"{self._deadline.seconds:g} s"
            if self._deadline.received:
                return Unavailable(f"{api} did not finish its answer within {seconds}")
            return Unavailable(f"no answer from {api} within {seconds}")
        if isinstance(error, http.client.IncompleteRead):
            return Unavailable(f"{api} closed the connection in the middle of its answer")
        if isinstance(error, http.client.HTTPException):
            return Unavailable(f"the server at {self.base_url} does not speak HTTP ({type(error).__name__})")
        reason = (error.strerror if isinstance(error, OSError) else None) or str(error) or type(error).__name__
        return Unavailable(f"cannot reach {api}: {reason}")

    def _component_endpoint_message(self) -> str:
        """What to say to someone who gave a validator's component endpoint (port 4004) as the REST API."""
        where = urlsplit(self.base_url)
        host = f"[{where.hostname}]" if where.hostname and ":" in where.hostname else where.hostname
        rest_api = f"{where.scheme}://{host}:{REST_API_PORT}"
        return (
            f"{self.base_url} is a validator's component endpoint (ZeroMQ, for transaction processors), "
            f"not a REST API; the REST API is usually on port {REST_API_PORT}: try --url {rest_api}"
        )
