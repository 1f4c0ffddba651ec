"""Reading the REST API's answers: what a Sawtooth REST API sends, and a clear error for anything else.

Every answer is checked before it is used: its status, that its body is JSON (of
any depth), that each field has the type the REST API gives it. Whatever a server
sends, reading it ends in a value or in :class:`~client_core.errors.Unavailable`
(exit 3, "does not answer like a Sawtooth REST API") -- never in an exception
that would pass for a bug in the client. Text the server chose (error titles,
rejection reasons) is returned as it is; the one place that prints it escapes it.
Nothing here does I/O, so every function can be fed any bytes in a test.
"""

from __future__ import annotations

import base64
import binascii
import json
from typing import Any, NamedTuple
from urllib.parse import urlsplit

from client_core.errors import Rejected, Unavailable

STATE_NOT_FOUND = 75
BATCH_STATUSES = frozenset(("COMMITTED", "INVALID", "PENDING", "UNKNOWN"))
STATE_CHANGE_TYPES = frozenset(("SET", "DELETE"))
MAX_SHOWN = 300
"""How much of a text the server chose an error line quotes: enough to read, never a flood."""


class Response(NamedTuple):
    status: int
    content_type: str
    body: bytes


class BatchStatus(NamedTuple):
    """A batch's status (COMMITTED, INVALID, PENDING or UNKNOWN) and, if INVALID, the validator's reasons."""

    status: str
    reasons: list[str]


class StateChange(NamedTuple):
    """One change a committed transaction made: ``SET`` with the new value, or ``DELETE``."""

    address: str
    type: str
    value: bytes


def parse_json(body: bytes) -> object:
    """The JSON value of ``body``, or None when it is not JSON (including JSON nested too deeply to read)."""
    try:
        return json.loads(body)
    except (ValueError, RecursionError):
        return None


def text_field(container: dict[str, Any], key: str) -> str:
    """A string field, or "" when it is missing or not a string (never ``str()`` of a server's structure)."""
    value = container.get(key)
    return value if isinstance(value, str) else ""


def sawtooth_error(response: Response) -> dict[str, Any] | None:
    """The ``error`` object of a Sawtooth REST API error body, or None if the body is not one."""
    envelope = parse_json(response.body)
    if isinstance(envelope, dict):
        error = envelope.get("error")
        if isinstance(error, dict) and "code" in error and ("title" in error or "message" in error):
            return error
    return None


def describe_error(error: dict[str, Any]) -> str:
    """``Title: message`` of a Sawtooth error body, on one line."""
    title = " ".join(text_field(error, "title")[:MAX_SHOWN].split())
    message = " ".join(text_field(error, "message")[:MAX_SHOWN].split())
    return f"{title}: {message}" if title and message else title or message


class Answers:
    """Reads the answers of the REST API at ``base_url``; every error message names it."""

    def __init__(self, base_url: str, auth_user: str | None = None) -> None:
        self.base_url = base_url
        self.auth_user = auth_user

    def not_sawtooth(self, detail: str) -> Unavailable:
        return Unavailable(f"the server at {self.base_url} does not answer like a Sawtooth REST API: {detail}")

    def check_status(self, response: Response, method: str, path: str) -> None:
        """Turn the statuses no caller handles into one-line errors; leave 2xx, 400 and 404 to callers."""
        status = response.status
        if 200 <= status < 300 or status in (400, 404):
            return
        error = sawtooth_error(response)
        detail = f"HTTP {status}" + (f" {describe_error(error)}" if error else "")
        api = f"the REST API at {self.base_url}"
        if status == 401:
            if self.auth_user is None:
                raise Unavailable(f"{api} requires authentication ({detail}): give --auth-user and --auth-password")
            raise Unavailable(f"{api} refused the credentials of {self.auth_user!r} ({detail})")
        if status == 403:
            raise Unavailable(f"{api} forbids {method} {path} ({detail})")
        if status == 429:
            raise Unavailable(f"{api} is too busy to take this request ({detail}): try again shortly")
        if status >= 500:
            raise Unavailable(f"{api} failed ({detail})")
        raise self.not_sawtooth(f"it answered {method} {path} with {detail}")

    def envelope(self, response: Response, key: str, expected_status: tuple[int, ...] = (200,)) -> dict[str, Any]:
        """The decoded JSON object of a successful answer that carries ``key``, or a clear error."""
        if response.status not in expected_status:
            error = sawtooth_error(response)
            if error is None:
                raise self.not_sawtooth(f"it answered HTTP {response.status}")
            detail = describe_error(error)
            raise Unavailable(f"the REST API at {self.base_url} answered HTTP {response.status} {detail}")
        envelope = parse_json(response.body)
        kind = response.content_type.split(";")[0] or "no content type"
        if envelope is None:
            raise self.not_sawtooth(f"its answer ({kind}) is not JSON")
        if not isinstance(envelope, dict) or key not in envelope:
            raise self.not_sawtooth(f"its answer ({kind}) has no '{key}'")
        return envelope

    def state_value(self, response: Response, path: str) -> bytes | None:
        """``GET /state/{address}``: the bytes stored there, or None when nothing is."""
        return self.state_at_head(response, path)[0]

    def state_at_head(self, response: Response, path: str) -> tuple[bytes | None, str | None]:
        """``GET /state/{address}``: the bytes stored there (None when nothing is) and the id of the block they were
        read at (None when the answer names none, as Sawtooth's "not found" does not)."""
        if response.status == 404:
            error = sawtooth_error(response)
            if error is not None and error.get("code") == STATE_NOT_FOUND:
                return None, None
        envelope = self.envelope(response, "data")
        head = envelope.get("head")
        return self.data(envelope["data"], path), head if isinstance(head, str) else None

    def state_page(self, response: Response, path: str) -> tuple[list[tuple[str, bytes]], str | None]:
        """``GET /state?...``: the page's ``(address, data)`` entries and the query of the next page, if any."""
        envelope = self.envelope(response, "data")
        entries = envelope["data"]
        if not isinstance(entries, list):
            raise self.not_sawtooth(f"'data' of {path} is not a list")
        page = []
        for entry in entries:
            if not isinstance(entry, dict) or not isinstance(entry.get("address"), str):
                raise self.not_sawtooth(f"{path} lists an entry without an address")
            page.append((entry["address"], self.data(entry.get("data"), path)))
        return page, self.next_page_query(envelope)

    def accepted(self, response: Response) -> None:
        """``POST /batches``: return if the batches were accepted; a 400 with Sawtooth's reason is a rejection."""
        if response.status == 400 and (error := sawtooth_error(response)) is not None:
            raise Rejected(f"the REST API refused the batch: {describe_error(error)}")
        self.envelope(response, "link", expected_status=(200, 201, 202))

    def batch_status(self, response: Response, batch_id: str) -> BatchStatus:
        """``GET /batch_statuses?id=...``: the status of ``batch_id`` and, if INVALID, the reasons."""
        entries = self.envelope(response, "data")["data"]
        if not isinstance(entries, list):
            raise self.not_sawtooth("'data' of /batch_statuses is not a list")
        for entry in entries:
            if isinstance(entry, dict) and entry.get("id") == batch_id:
                status = entry.get("status")
                if status not in BATCH_STATUSES:
                    raise self.not_sawtooth(f"/batch_statuses gives batch {batch_id[:16]}... no known status")
                invalid = entry.get("invalid_transactions") or []
                if not isinstance(invalid, list):
                    raise self.not_sawtooth("'invalid_transactions' of /batch_statuses is not a list")
                return BatchStatus(status, [text_field(txn, "message") for txn in invalid if isinstance(txn, dict)])
        raise self.not_sawtooth(f"/batch_statuses has no status for batch {batch_id[:16]}...")

    def state_changes(self, response: Response, transaction_id: str) -> list[StateChange]:
        """``GET /receipts?id=...``: the state changes the committed transaction made."""
        entries = self.envelope(response, "data")["data"]
        if not isinstance(entries, list):
            raise self.not_sawtooth("'data' of /receipts is not a list")
        for entry in entries:
            if not isinstance(entry, dict) or entry.get("id", entry.get("transaction_id")) != transaction_id:
                continue
            changes = entry.get("state_changes", [])
            if not isinstance(changes, list):
                raise self.not_sawtooth("'state_changes' of /receipts is not a list")
            found = []
            for change in changes:
                if not isinstance(change, dict) or not isinstance(change.get("address"), str):
                    raise self.not_sawtooth("/receipts lists a state change without an address")
                kind = change.get("type")
                if kind not in STATE_CHANGE_TYPES:
                    raise self.not_sawtooth("/receipts lists a state change of no known type")
                value = self.data(change.get("value", ""), "/receipts")
                found.append(StateChange(change["address"], kind, value))
            return found
        raise self.not_sawtooth(f"/receipts has no receipt for transaction {transaction_id[:16]}...")

    def data(self, data: object, path: str) -> bytes:
        """Base64 ``data`` of an answer, decoded."""
        if not isinstance(data, str):
            raise self.not_sawtooth(f"'data' in {path} is not base64 text")
        try:
            return base64.b64decode(data, validate=True)
        except (binascii.Error, ValueError):
            raise self.not_sawtooth(f"'data' in {path} is not valid base64") from None

    def next_page_query(self, envelope: dict[str, Any]) -> str | None:
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
            raise self.not_sawtooth("'paging.next' is not a link")
        try:
            query = urlsplit(link).query
        except ValueError:
            query = ""
        if not query:
            raise self.not_sawtooth(f"'paging.next' ({link[:200]}) does not say which page comes next")
        return query
