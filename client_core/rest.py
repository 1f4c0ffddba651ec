"""A small client of the Sawtooth REST API: state reads, batch submission, batch statuses.

Built on ``http.client`` rather than a third-party library: ``xo show`` starts a
fresh interpreter on every call and the standard library is already there. The
client knows the REST API's envelopes (``data``, ``link``, ``paging``) and its
error bodies (``{"error": {"code", "title", "message"}}``) and turns every
failure into an ``CommandError`` whose message says what went wrong, in one line.
"""

from __future__ import annotations

import base64
import http.client
import json
import time
from collections.abc import Callable, Iterator
from typing import Any, NamedTuple
from urllib.parse import quote, urlsplit

from client_core.errors import Rejected, Unavailable

STATE_NOT_FOUND = 75
REQUEST_TIMEOUT = 30.0
WAIT_TIMEOUT_MARGIN = 30.0
MAX_BODY_BYTES = 64 * 1024 * 1024
MAX_PAGES = 100_000
JSON_TYPE = "application/json"


class Response(NamedTuple):
    status: int
    content_type: str
    body: bytes


class BatchStatus(NamedTuple):
    """A batch's status (COMMITTED, INVALID, PENDING or UNKNOWN) and, if INVALID, the validator's reasons."""

    status: str
    reasons: list[str]


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
        timeout: float = REQUEST_TIMEOUT,
        trace: Callable[[str], None] | None = None,
    ) -> None:
        self.base_url = normalize_url(base_url)
        parts = urlsplit(self.base_url)
        self._https = parts.scheme == "https"
        self._host = parts.hostname or ""
        self._port = parts.port
        self._prefix = parts.path
        self._auth = auth
        self._timeout = timeout
        self._trace = trace
        self._connection: http.client.HTTPConnection | None = None
        self._requests_on_connection = 0

    def close(self) -> None:
        if self._connection is not None:
            self._connection.close()
            self._connection = None

    def __enter__(self) -> RestClient:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    # --- the REST API's resources ---

    def get_state(self, address: str) -> bytes | None:
        """The bytes stored at ``address``, or None when nothing is stored there."""
        response = self._request("GET", f"/state/{address}")
        if response.status == 404:
            error = sawtooth_error(response)
            if error is not None and error.get("code") == STATE_NOT_FOUND:
                return None
        envelope = self._expect_json(response, "data")
        return self._decode_data(envelope["data"], f"/state/{address}")

    def list_state(self, prefix: str) -> Iterator[tuple[str, bytes]]:
        """Every ``(address, data)`` under ``prefix``, following ``paging.next`` to the last page."""
        query = f"address={quote(prefix)}"
        seen: set[str] = set()
        for _ in range(MAX_PAGES):
            seen.add(query)
            path = f"/state?{query}"
            envelope = self._expect_json(self._request("GET", path), "data")
            entries = envelope["data"]
            if not isinstance(entries, list):
                raise self._not_sawtooth(f"'data' of {path} is not a list")
            for entry in entries:
                if not isinstance(entry, dict) or not isinstance(entry.get("address"), str):
                    raise self._not_sawtooth(f"{path} lists an entry without an address")
                yield entry["address"], self._decode_data(entry.get("data"), path)
            next_query = self._next_page_query(envelope)
            if next_query is None:
                return
            if next_query in seen:
                raise self._not_sawtooth(f"its paging loops back to /state?{next_query}")
            query = next_query
        raise self._not_sawtooth(f"state under {prefix} spans more than {MAX_PAGES} pages")

    def submit_batches(self, batch_list: bytes) -> None:
        """POST a serialised ``BatchList``; an answer without the REST API's status link is not an acceptance."""
        response = self._request("POST", "/batches", body=batch_list, content_type="application/octet-stream")
        if response.status == 400 and (error := sawtooth_error(response)) is not None:
            raise Rejected(f"the REST API refused the batch: {describe_error(error)}")
        self._expect_json(response, "link", expected_status=(200, 201, 202))

    def batch_status(self, batch_id: str, wait: int | None = None) -> BatchStatus:
        """The status of one batch; with ``wait`` the REST API holds the answer up to that many seconds."""
        path = f"/batch_statuses?id={quote(batch_id)}" + ("" if wait is None else f"&wait={wait}")
        timeout = self._timeout if wait is None else wait + WAIT_TIMEOUT_MARGIN
        envelope = self._expect_json(self._request("GET", path, timeout=timeout), "data")
        entries = envelope["data"]
        if not isinstance(entries, list):
            raise self._not_sawtooth("'data' of /batch_statuses is not a list")
        for entry in entries:
            if isinstance(entry, dict) and entry.get("id") == batch_id and isinstance(entry.get("status"), str):
                invalid = entry.get("invalid_transactions") or []
                reasons = [str(txn.get("message", "")) for txn in invalid if isinstance(txn, dict)]
                return BatchStatus(entry["status"], reasons)
        raise self._not_sawtooth(f"/batch_statuses has no status for batch {batch_id[:16]}...")

    # --- HTTP ---

    def _request(
        self,
        method: str,
        path: str,
        *,
        body: bytes | None = None,
        content_type: str | None = None,
        timeout: float | None = None,
    ) -> Response:
        """Send one request, retrying once if a kept-alive connection turned out to be closed."""
        target = self._prefix + path
        headers = {"Accept": JSON_TYPE, "User-Agent": "xo"}
        if content_type is not None:
            headers["Content-Type"] = content_type
        if self._auth is not None:
            token = base64.b64encode(f"{self._auth[0]}:{self._auth[1]}".encode()).decode("ascii")
            headers["Authorization"] = f"Basic {token}"
        started = time.monotonic()
        for attempt in (1, 2):
            reused = self._requests_on_connection > 0
            connection = self._connect(timeout if timeout is not None else self._timeout)
            try:
                connection.request(method, target, body=body, headers=headers)
                raw = connection.getresponse()
                payload = raw.read(MAX_BODY_BYTES + 1)
            except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError) as error:
                self.close()
                if reused and attempt == 1:
                    continue
                raise Unavailable(f"the REST API at {self.base_url} closed the connection ({error})") from None
            except TimeoutError:
                self.close()
                waited = connection.timeout
                raise Unavailable(f"no answer from the REST API at {self.base_url} within {waited:g} s") from None
            except http.client.HTTPException as error:
                self.close()
                raise Unavailable(
                    f"the server at {self.base_url} does not speak HTTP ({type(error).__name__})"
                ) from None
            except OSError as error:
                self.close()
                reason = error.strerror or str(error) or type(error).__name__
                raise Unavailable(f"cannot reach the REST API at {self.base_url}: {reason}") from None
            self._requests_on_connection += 1
            if raw.will_close:
                self.close()
            if len(payload) > MAX_BODY_BYTES:
                self.close()
                raise self._not_sawtooth(f"its answer to {method} {path} exceeds {MAX_BODY_BYTES} bytes")
            if self._trace is not None:
                elapsed = (time.monotonic() - started) * 1000
                self._trace(f"{method} {target} -> {raw.status} ({len(payload)} bytes, {elapsed:.0f} ms)")
            response = Response(raw.status, raw.getheader("Content-Type", ""), payload)
            self._raise_for_status(response, method, path)
            return response
        raise AssertionError("unreachable: the second attempt returns or raises")

    def _connect(self, timeout: float) -> http.client.HTTPConnection:
        if self._connection is None:
            if self._https:
                self._connection = http.client.HTTPSConnection(self._host, self._port, timeout=timeout)
            else:
                self._connection = http.client.HTTPConnection(self._host, self._port, timeout=timeout)
            self._requests_on_connection = 0
        self._connection.timeout = timeout
        if self._connection.sock is not None:
            self._connection.sock.settimeout(timeout)
        return self._connection

    def _raise_for_status(self, response: Response, method: str, path: str) -> None:
        """Turn the statuses no caller handles into one-line errors; leave 2xx, 400 and 404 to callers."""
        status = response.status
        if 200 <= status < 300 or status in (400, 404):
            return
        error = sawtooth_error(response)
        detail = f"HTTP {status}" + (f" {describe_error(error)}" if error else "")
        api = f"the REST API at {self.base_url}"
        if status == 401:
            if self._auth is None:
                raise Unavailable(f"{api} requires authentication ({detail}): give --auth-user and --auth-password")
            raise Unavailable(f"{api} refused the credentials of {self._auth[0]!r} ({detail})")
        if status == 403:
            raise Unavailable(f"{api} forbids {method} {path} ({detail})")
        if status == 429:
            raise Unavailable(f"{api} is too busy to take this request ({detail}): try again shortly")
        if status >= 500:
            raise Unavailable(f"{api} failed ({detail})")
        raise self._not_sawtooth(f"it answered {method} {path} with {detail}")

    def _expect_json(
        self, response: Response, key: str, expected_status: tuple[int, ...] = (200,)
    ) -> dict[str, Any]:
        """The decoded JSON object of a successful answer that carries ``key``, or a clear error."""
        if response.status not in expected_status:
            error = sawtooth_error(response)
            if error is None:
                raise self._not_sawtooth(f"it answered HTTP {response.status}")
            detail = describe_error(error)
            raise Unavailable(f"the REST API at {self.base_url} answered HTTP {response.status} {detail}")
        envelope = parse_json(response.body)
        if not isinstance(envelope, dict) or key not in envelope:
            kind = response.content_type.split(";")[0] or "no content type"
            raise self._not_sawtooth(f"its answer ({kind}) has no '{key}'")
        return envelope

    def _decode_data(self, data: object, path: str) -> bytes:
        if not isinstance(data, str):
            raise self._not_sawtooth(f"'data' in {path} is not base64 text")
        try:
            return base64.b64decode(data, validate=True)
        except ValueError:
            raise self._not_sawtooth(f"'data' in {path} is not valid base64") from None

    def _next_page_query(self, envelope: dict[str, Any]) -> str | None:
        """The query (head, start, limit, address) of ``paging.next``, to send to our own base URL and path.

        A REST API behind a proxy writes its links as it sees itself: with its
        internal host name, and without the path prefix the proxy adds. Only the
        query says which page comes next; where to ask stays ours.
        """
        paging = envelope.get("paging")
        if not isinstance(paging, dict) or not paging.get("next"):
            return None
        link = paging["next"]
        if not isinstance(link, str):
            raise self._not_sawtooth("'paging.next' is not a link")
        query = urlsplit(link).query
        if not query:
            raise self._not_sawtooth(f"'paging.next' ({link}) does not say which page comes next")
        return query

    def _not_sawtooth(self, detail: str) -> Unavailable:
        return Unavailable(f"the server at {self.base_url} does not answer like a Sawtooth REST API: {detail}")


def parse_json(body: bytes) -> object:
    try:
        return json.loads(body)
    except ValueError:
        return None


def sawtooth_error(response: Response) -> dict[str, Any] | None:
    """The ``error`` object of a Sawtooth REST API error body, or None if the body is not one."""
    envelope = parse_json(response.body)
    if isinstance(envelope, dict):
        error = envelope.get("error")
        if isinstance(error, dict) and "code" in error and ("title" in error or "message" in error):
            return error
    return None


def describe_error(error: dict[str, Any]) -> str:
    title = str(error.get("title", "")).strip()
    message = " ".join(str(error.get("message", "")).split())
    return f"{title}: {message}" if title and message else title or message
