"""The three-node check's comparison fails on divergence: nodes whose heads never agree, or whose state differs."""

from __future__ import annotations

import base64

import pytest

from tests.integration.convergence import common_head, state_differences

NAMESPACES = {"xo": "5b7349", "chips": "7d3d52"}


def node(index: int, head: str, state: dict[str, bytes]) -> dict[str, dict]:
    """The answers of node ``index``'s REST API, by URL path: its head block, and its state one entry a page."""
    answers: dict[str, dict] = {"/blocks?limit=1": {"data": [{"header_signature": head}]}}
    for namespace in NAMESPACES.values():
        entries = sorted((address, data) for address, data in state.items() if address.startswith(namespace))
        pages = [entries[start : start + 1] for start in range(max(len(entries), 1))]
        first = f"/state?address={namespace}&head={head}&limit=100"
        for number, page in enumerate(pages):
            answer: dict = {"data": [{"address": a, "data": base64.b64encode(d).decode()} for a, d in page]}
            if number + 1 < len(pages):
                answer["paging"] = {"next": f"http://n{index}{first}&page={number + 1}"}
            answers[first + (f"&page={number}" if number else "")] = answer
    return answers


def network(*nodes: dict[str, dict]):
    """A fetch over ``nodes``, at http://n0, http://n1, ..."""

    def fetch(url: str) -> dict:
        host, _, path = url.removeprefix("http://").partition("/")
        return nodes[int(host.removeprefix("n"))]["/" + path]

    return fetch


URLS = ["http://n0", "http://n1", "http://n2"]
GAME = "5b7349" + "ab" * 32
CHANNEL = "7d3d52" + "cd" * 32
STATE = {GAME: b"game,X--------,P2-NEXT,k1,", CHANNEL: b"\xa1channel"}


def test_nodes_on_one_head_with_one_state_agree():
    fetch = network(*(node(index, "h1", STATE) for index in range(3)))
    assert common_head(URLS, 1, fetch) == "h1"
    assert state_differences(URLS, NAMESPACES, "h1", fetch) == []


def test_heads_that_never_agree_fail_naming_them():
    fetch = network(node(0, "h1", STATE), node(1, "h2", STATE), node(2, "h1", STATE))
    with pytest.raises(AssertionError, match=r"heads still differ after 0.2 s: \['h1', 'h2', 'h1'\]"):
        common_head(URLS, 0.2, fetch, pause=0.05)


def test_a_node_with_other_state_at_the_same_head_is_named_with_the_family_and_address():
    other = {**STATE, CHANNEL: b"\xa1other", "7d3d52" + "ef" * 32: b"\xa1extra"}
    fetch = network(node(0, "h1", STATE), node(1, "h1", STATE), node(2, "h1", other))
    assert state_differences(URLS, NAMESPACES, "h1", fetch) == [
        f"http://n2 holds other chips state than http://n0 at h1: {[CHANNEL, '7d3d52' + 'ef' * 32]}"
    ]
