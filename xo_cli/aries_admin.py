"""A small client for an ACA-Py agent's admin API: JSON in, JSON out, failures as one-line errors.

``xo aries connect`` and ``xo aries play`` are controllers: they talk to an agent (ours, or any
ACA-Py running the ``xo_aries`` plugin) only through its admin API, so they run on any Python,
with or without ACA-Py installed. With an API key, every request carries ACA-Py's ``X-API-Key``.

A refusal is said in a player's words (``cell C3 is already occupied``), never as the request and its HTTP
status (``POST /tictactoe/.../move: 409``): those stay on :class:`AgentRefused` for scripts and tests.
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


class AgentRefused(Rejected):
    """The agent refused a request: ``message`` says why in words; ``status`` (HTTP) and ``code`` (our routes'
    problem code, such as ``not-your-turn``; empty for ACA-Py's own refusals) are for code, not for players."""

    def __init__(self, message: str, status: int, code: str) -> None:
        super().__init__(message)
        self.status = status
        self.code = code


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
            raise _refusal(refused) from None
        except (urllib.error.URLError, TimeoutError, ConnectionError) as failed:
            reason = getattr(failed, "reason", failed)
            raise Unavailable(f"the agent's admin API at {self.url} is unreachable: {reason}") from None
        except json.JSONDecodeError:
            raise Unavailable(f"the agent at {self.url} answered with something that is not JSON") from None


def _refusal(refused: urllib.error.HTTPError) -> AgentRefused:
    """What the agent said, as a player reads it: our routes' ``error.message``, else ACA-Py's reason in a sentence."""
    text = refused.read(MAX_ANSWER).decode("utf-8", "replace")
    try:
        answer = json.loads(text)
    except json.JSONDecodeError:
        answer = None
    error = answer.get("error") if isinstance(answer, dict) else None
    if isinstance(error, dict) and isinstance(error.get("message"), str):
        return AgentRefused(printable(error["message"])[:300], refused.code, printable(str(error.get("code", ""))))
    if refused.code in (401, 403):
        said = "the agent's admin API refused this controller: give its API key with --admin-api-key"
    elif refused.code == 404:
        said = "the agent has no such game (or does not run the xo_aries plugin)"
    else:
        reason = printable(text.strip() or str(refused.reason))[:300]
        said = f"the agent refused: {reason}"
    return AgentRefused(said, refused.code, "")
