"""List envelopes and links compared with a real Sawtooth 1.0.5 REST API's answers, byte for byte.

For each captured answer the same request is rebuilt, given the page Sawtooth served
(its items, and the markers of its first item and of the next page), and our envelope
(``data``, ``head``, ``link``, ``paging``) must print exactly as Sawtooth's did. The one
difference allowed is the documented default page size in ``link`` (1000 here, 100 there).
"""

import json
from pathlib import Path

import pytest
from aiohttp.test_utils import make_mocked_request

from xo_devnet.rest.listing import block_marker
from xo_devnet.rest.paging import DEFAULT_LIMIT, Page, paged_envelope, paging_controls
from xo_devnet.rest.responses import dumps
from xo_devnet.rest.urls import build_url

SAWTOOTH = Path(__file__).parent / "sawtooth_1_0_5"
SAWTOOTH_DEFAULT_LIMIT = 100
HOST = {"Host": "127.0.0.1:8008"}


def first_marker(item: dict) -> str:
    """The paging marker Sawtooth gives an item: a block's number, else a state entry's address."""
    return block_marker(int(item["header"]["block_num"])) if "header" in item else item["address"]


@pytest.mark.parametrize(
    ("target", "sort_key", "name"),
    [
        ("/blocks?limit=1", "block_num", "08_blocks_limit1.json"),
        ("/blocks", "block_num", "16_blocks_list.json"),
        ("/state?address=5b7349", "default", "05_state_list_prefix_5b7349.json"),
        ("/state", "default", "17_state_list_no_filter.json"),
    ],
)
def test_a_list_envelope_prints_as_sawtooths(target, sort_key, name):
    text = (SAWTOOTH / name).read_text(encoding="utf-8")
    captured = json.loads(text)
    request = make_mocked_request("GET", target, headers=HOST)
    controls = paging_controls(request.query, sort_key)
    page = Page(captured["data"], first_marker(captured["data"][0]), captured["paging"].get("next_position"))
    envelope = paged_envelope(request, controls, page, captured["data"], captured["head"])
    if controls.limit is None:
        assert f"&limit={SAWTOOTH_DEFAULT_LIMIT}" in captured["link"]
        text = text.replace(f"&limit={SAWTOOTH_DEFAULT_LIMIT}", f"&limit={DEFAULT_LIMIT}")
    assert dumps(envelope) == text


def test_a_status_link_repeats_the_query_as_sawtooths_does():
    captured = json.loads((SAWTOOTH / "02_batch_statuses_committed.json").read_text(encoding="utf-8"))
    request = make_mocked_request("GET", captured["link"].removeprefix("http://127.0.0.1:8008"), headers=HOST)
    assert build_url(request) == captured["link"]


def test_a_state_item_link_pins_the_head_as_sawtooths_does():
    captured = json.loads((SAWTOOTH / "06_state_get_address.json").read_text(encoding="utf-8"))
    path = captured["link"].split("?")[0].removeprefix("http://127.0.0.1:8008")
    assert build_url(make_mocked_request("GET", path, headers=HOST), head=captured["head"]) == captured["link"]
