"""GET /state and /state/{address}: prefixes, address order, paging by address, heads, and error codes."""

import base64
from urllib.parse import urlsplit

import pytest

from xo_client.transactions import make_xo_transaction
from xo_core.batches import make_batch
from xo_core.signing import Signer
from xo_tp.family import NAMESPACE, game_address

MISSING_ADDRESS = NAMESPACE + "0" * 64


@pytest.fixture(scope="module")
def created(api):
    """Five new games; returns their names and the head block id from before they existed."""
    signer = Signer.generate()
    before = api.get("/blocks?limit=1").json["head"]
    names = [f"state-{signer.public_key[2:10]}-{n}" for n in range(5)]
    batch = make_batch(signer, [make_xo_transaction(signer, name, "create") for name in names])
    assert api.submit_and_wait(batch)[0]["status"] == "COMMITTED"
    return names, before


def walk(api, first: str) -> list[dict]:
    items, answer = [], api.get(first).json
    for _ in range(10_000):
        items += answer["data"]
        if "next" not in answer["paging"]:
            return items
        parts = urlsplit(answer["paging"]["next"])
        answer = api.get(f"{parts.path}?{parts.query}").json
    raise AssertionError("paging never ended")


def test_entries_under_a_prefix_come_in_address_order(api, created):
    names, _ = created
    answer = api.get(f"/state?address={NAMESPACE}").json
    addresses = [entry["address"] for entry in answer["data"]]
    assert addresses == sorted(addresses)
    assert all(address.startswith(NAMESPACE) for address in addresses)
    assert {game_address(name) for name in names} <= set(addresses)
    assert answer["paging"] == {"limit": None, "start": None}
    assert answer["link"] == (
        f"{api.url}/state?head={answer['head']}&start={addresses[0]}&limit=1000&address={NAMESPACE}"
    )


def test_entries_carry_the_game_in_base64(api, created):
    names, _ = created
    address = game_address(names[0])
    (entry,) = api.get(f"/state?address={address}").json["data"]
    game = base64.b64encode(f"{names[0]},---------,P1-NEXT,,".encode()).decode()
    assert entry == {"address": address, "data": game}


@pytest.mark.parametrize("limit", [1, 2, 4])
def test_state_pages_cover_every_entry_once(api, created, limit):
    everything = api.get(f"/state?address={NAMESPACE}").json["data"]
    assert walk(api, f"/state?address={NAMESPACE}&limit={limit}") == everything
    assert walk(api, f"/state?address={NAMESPACE}&limit={limit}&reverse") == list(reversed(everything))


def test_a_state_page_starts_at_the_address_named(api, created):
    everything = api.get(f"/state?address={NAMESPACE}").json["data"]
    start = everything[2]["address"]
    answer = api.get(f"/state?address={NAMESPACE}&start={start}&limit=2").json
    assert answer["data"] == everything[2:4]
    assert answer["paging"]["start"] == start


def test_without_a_prefix_all_state_is_listed(api, created):
    everything = api.get("/state").json["data"]
    assert [entry["address"] for entry in everything] == sorted(entry["address"] for entry in everything)
    assert len(everything) >= 5


def test_a_prefix_with_nothing_under_it_lists_nothing(api, created):
    answer = api.get("/state?address=ffff").json
    assert answer["data"] == []
    assert "next" not in answer["paging"]


def test_an_older_head_lists_state_as_it_was(api, created):
    names, before = created
    addresses = {entry["address"] for entry in api.get(f"/state?address={NAMESPACE}&head={before}").json["data"]}
    assert game_address(names[0]) not in addresses
    assert api.get(f"/state/{game_address(names[0])}?head={before}").error_code == 75


@pytest.mark.parametrize(
    ("query", "code"),
    [
        ("address=5b734", 62),
        ("address=XYZ", 62),
        ("address=" + "ab" * 36, 62),
        (f"address={NAMESPACE}&start={MISSING_ADDRESS}", 54),
        (f"address=ff&start={game_address('x')}", 54),
        ("start=nope", 54),
        ("limit=-1", 53),
        ("reverse=address", 57),
        ("head=zz", 60),
        (f"head={'0d' * 64}", 70),  # Block Not Found, as Sawtooth answers it here (not 50, as on /blocks)
    ],
)
def test_bad_state_list_queries_have_their_codes(api, created, query, code):
    assert api.get(f"/state?{query}").error_code == code


def test_one_address_answers_its_data_head_and_link(api, created):
    names, _ = created
    address = game_address(names[1])
    answer = api.get(f"/state/{address}").json
    assert base64.b64decode(answer["data"]) == f"{names[1]},---------,P1-NEXT,,".encode()
    assert answer["link"] == f"{api.url}/state/{address}?head={answer['head']}"
    assert answer["head"] == api.get("/blocks?limit=1").json["head"]


def test_one_address_errors(api, created):
    answer = api.get(f"/state/{MISSING_ADDRESS}")
    assert (answer.status, answer.error_code) == (404, 75)
    assert api.get(f"/state/{NAMESPACE}").error_code == 62
    assert api.get(f"/state/{MISSING_ADDRESS.upper()}").error_code == 62
    assert api.get(f"/state/{MISSING_ADDRESS}?head={'0d' * 64}").error_code == 70


def test_an_address_with_braces_reaches_the_route_and_is_error_62(api):
    assert api.get("/state/%7Baddress%7D").error_code == 62
