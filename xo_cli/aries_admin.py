"""A small client for an ACA-Py agent's admin API: JSON in, JSON out, failures as one-line errors.

``xo aries connect`` and ``xo aries play`` are controllers: they talk to an agent (ours, or any
ACA-Py running the ``xo_aries`` plugin) only through its admin API, so they run on any Python,
with or without ACA-Py installed. With an API key, every request carries ACA-Py's ``X-API-Key``.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.parse
import urllib.request
from typing import Any, Final

from client_core.errors import InvalidInput, Rejected, Unavailable
from xo_core.text import printable

#: How long one admin request may take.
TIMEOUT: Final = 10.0
#: The most of an answer read (a list of games is small).
MAX_ANSWER: Final = 1 << 20


class AdminClient:
    """The admin API at ``url`` (``http://127.0.0.1:8021``), with ``api_key`` if the agent needs one."""

    def __init__(self, url: str, api_key: str | None = None) -> None:
        """Check the URL's form; nothing is sent yet."""
        parsed = urllib.parse.urlsplit(url)
        if parsed.scheme not in ("http", "https") or not parsed.netloc:
            raise InvalidInput(f"--admin {printable(url)!r} is not a URL like http://127.0.0.1:8021")
        self.url = url.rstrip("/")
        self.api_key = api_key

    def get(self, path: str, query: dict[str, str] | None = None) -> Any:
        """``GET path`` and its JSON answer."""
        return self._request("GET", path, None, query)

    def post(self, path: str, body: dict[str, Any] | None = None, query: dict[str, str] | None = None) -> Any:
        """``POST path`` with a JSON body and its JSON answer."""
        return self._request("POST", path, body or {}, query)

    def _request(self, method: str, path: str, body: dict[str, Any] | None, query: dict[str, str] | None) -> Any:
        target = self.url + path + (f"?{urllib.parse.urlencode(query)}" if query else "")
        headers = {"Accept": "application/json"}
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        if self.api_key:
            headers["X-API-Key"] = self.api_key
        request = urllib.request.Request(target, data=data, headers=headers, method=method)
        try:
            with urllib.request.urlopen(request, timeout=TIMEOUT) as answer:
                return json.loads(answer.read(MAX_ANSWER) or b"null")
        except urllib.error.HTTPError as refused:
            raise Rejected(f"{method} {path}: {refused.code} {_reason(refused)}") from None
        except (urllib.error.URLError, TimeoutError, ConnectionError) as failed:
            reason = getattr(failed, "reason", failed)
            raise Unavailable(f"the agent's admin API at {self.url} is unreachable: {reason}") from None
        except json.JSONDecodeError:
            raise Unavailable(f"{method} {path}: the agent answered with something that is not JSON") from None


def _reason(refused: urllib.error.HTTPError) -> str:
    """What the agent said: our routes' ``error.message``, else ACA-Py's reason text."""
    text = refused.read(MAX_ANSWER).decode("utf-8", "replace")
    try:
        answer = json.loads(text)
    except json.JSONDecodeError:
        return printable(text.strip() or refused.reason)[:300]
    error = answer.get("error") if isinstance(answer, dict) else None
    if isinstance(error, dict) and "message" in error:
        return printable(f"{error.get('code')}: {error['message']}")[:300]
    return printable(text.strip())[:300]
