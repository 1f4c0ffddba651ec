"""Whether the nodes of one network hold one chain: the same head block, and the same state under given namespaces.

Each node is read through its own REST API, so what is compared is what each validator computed and stored.
``fetch`` (a URL to its JSON answer) is a parameter so that the comparison itself can be tested without a network.
"""

from __future__ import annotations

import base64
import json
import time
import urllib.request
from collections.abc import Callable

from tests.integration.rest import REQUEST_TIMEOUT_SECONDS

Fetch = Callable[[str], dict]


def fetch_json(url: str) -> dict:
    with urllib.request.urlopen(url, timeout=REQUEST_TIMEOUT_SECONDS) as answer:
        return json.load(answer)


def common_head(urls: list[str], seconds: float, fetch: Fetch = fetch_json, pause: float = 0.5) -> str:
    """The head block every node has once they agree; AssertionError naming the heads if they still differ."""
    deadline = time.monotonic() + seconds
    heads = [fetch(f"{url}/blocks?limit=1")["data"][0]["header_signature"] for url in urls]
    while len(set(heads)) != 1:
        assert time.monotonic() < deadline, f"the nodes' heads still differ after {seconds:g} s: {heads}"
        time.sleep(pause)
        heads = [fetch(f"{url}/blocks?limit=1")["data"][0]["header_signature"] for url in urls]
    return heads[0]


def state_under(url: str, namespace: str, block: str, fetch: Fetch = fetch_json) -> dict[str, bytes]:
    """Every entry under ``namespace`` in the state at ``block``, as the node at ``url`` holds it (all pages)."""
    found: dict[str, bytes] = {}
    page: str | None = f"{url}/state?address={namespace}&head={block}&limit=100"
    while page:
        answer = fetch(page)
        found.update({entry["address"]: base64.b64decode(entry["data"]) for entry in answer["data"]})
        page = answer.get("paging", {}).get("next")
    return found


def state_differences(
    urls: list[str], namespaces: dict[str, str], block: str, fetch: Fetch = fetch_json
) -> list[str]:
    """What differs between the first node's state at ``block`` and each other's, per family; empty when nothing."""
    differences = []
    for family, namespace in namespaces.items():
        first, *others = (state_under(url, namespace, block, fetch) for url in urls)
        for url, state in zip(urls[1:], others, strict=True):
            changed = sorted(key for key in first.keys() | state.keys() if first.get(key) != state.get(key))
            if changed:
                differences.append(f"{url} holds other {family} state than {urls[0]} at {block}: {changed}")
    return differences
