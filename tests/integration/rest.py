"""Direct reads of a Sawtooth REST API, for what the tests check beneath the `xo` command."""

from __future__ import annotations

import base64
import hashlib
import json
import time
import urllib.error
import urllib.request

REQUEST_TIMEOUT_SECONDS = 10.0


def xo_address(game: str) -> str:
    """The state address of a game, computed here from the XO specification, independently of the code."""
    return hashlib.sha512(b"xo").hexdigest()[:6] + hashlib.sha512(game.encode("utf-8")).hexdigest()[:64]


def state_at(url: str, address: str) -> bytes | None:
    """The bytes stored at ``address`` in the current state, or None when nothing is there."""
    try:
        with urllib.request.urlopen(f"{url}/state/{address}", timeout=REQUEST_TIMEOUT_SECONDS) as answer:
            return base64.b64decode(json.load(answer)["data"])
    except urllib.error.HTTPError as error:
        if error.code == 404:
            return None
        raise


def wait_until_serving(url: str, timeout: float) -> None:
    """Wait until the REST API answers with a chain (a genesis block at least): a network may still be starting."""
    deadline = time.monotonic() + timeout
    last_problem = "no answer yet"
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"{url}/blocks?limit=1", timeout=REQUEST_TIMEOUT_SECONDS) as answer:
                if json.load(answer).get("data"):
                    return
                last_problem = "no block yet"
        except (OSError, ValueError) as error:
            last_problem = str(error)
        time.sleep(1.0)
    raise RuntimeError(f"the REST API at {url} did not serve a chain within {timeout:g} s: {last_problem}")
