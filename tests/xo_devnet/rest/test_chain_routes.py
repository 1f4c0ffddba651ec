"""GET /blocks, /batches, /transactions and /receipts: Sawtooth's order, paging, filters and error codes."""

import base64
from urllib.parse import urlsplit

import pytest

from xo_client.transactions import make_xo_transaction
from xo_core.batches import make_batch
from xo_core.signing import Signer
from xo_tp.family import game_address

MISSING = "0e" * 64


@pytest.fixture(scope="module")
def games(api):
    """A create, a move and a delete, each in its own submission, so the chain has several blocks."""
    signer = Signer.generate()
    name = f"chain-{signer.public_key[2:14]}"
    batches = []
    for action, space in (("create", None), ("take", 5), ("delete", None)):
        batch = make_batch(signer, [make_xo_transaction(signer, name, action, space)])
        assert api.submit_and_wait(batch)[0]["status"] == "COMMITTED"
        batches.append(batch)
    return name, batches


def target(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.path}?{parts.query}"


def walk(api, first: str) -> list[dict]:
    """Every item of a listing, following paging.next until it is absent (bounded)."""
    items, answer = [], api.get(first).json
    for _ in range(10_000):
        items += answer["data"]
        if "next" not in answer["paging"]:
            return items
        answer = api.get(target(answer["paging"]["next"])).json
    raise AssertionError("paging never ended")


def block_nums(blocks: list[dict]) -> list[int]:
    return [int(block["header"]["block_num"]) for block in blocks]


def test_blocks_are_listed_newest_first_from_the_head(api, games):
    answer = api.get("/blocks").json
    nums = block_nums(answer["data"])
    assert nums == list(range(nums[0], -1, -1))
    assert answer["head"] == answer["data"][0]["header_signature"]
    assert answer["paging"] == {"limit": None, "start": None}
    assert answer["link"] == f"{api.url}/blocks?head={answer['head']}&start=0x{nums[0]:016x}&limit=1000"


def test_a_limited_block_page_links_to_the_next(api, games):
    answer = api.get("/blocks?limit=1").json
    head_num = block_nums(answer["data"])[0]
    assert answer["paging"]["limit"] == 1
    assert answer["paging"]["next_position"] == f"0x{head_num - 1:016x}"
    assert answer["paging"]["next"] == (
        f"{api.url}/blocks?head={answer['head']}&start=0x{head_num - 1:016x}&limit=1"
    )


@pytest.mark.parametrize("limit", [1, 2, 3])
def test_following_next_visits_every_block_once(api, games, limit):
    everything = api.get("/blocks").json["data"]
    assert walk(api, f"/blocks?limit={limit}") == everything


def test_reverse_lists_blocks_from_genesis_up(api, games):
    everything = api.get("/blocks").json["data"]
    assert walk(api, "/blocks?reverse&limit=2") == list(reversed(everything))
    assert api.get("/blocks?reverse=false").json["data"] == everything


def test_a_block_page_can_start_anywhere(api, games):
    answer = api.get("/blocks?start=0x0000000000000001").json
    assert block_nums(answer["data"]) == [1, 0]
    assert answer["paging"]["start"] == "0x0000000000000001"


def test_an_older_head_shows_the_chain_as_it_was(api, games):
    blocks = api.get("/blocks").json["data"]
    older = blocks[1]["header_signature"]
    answer = api.get(f"/blocks?head={older}").json
    assert answer["head"] == older
    assert answer["data"] == blocks[1:]


@pytest.mark.parametrize(
    ("query", "code"),
    [
        ("limit=0", 53),
        ("limit=many", 53),
        ("start=0xzz", 54),
        ("start=0x7fffffffffffffff", 54),
        ("reverse=nonce", 57),
        ("head=abc", 60),
        (f"head={MISSING}", 50),
        ("id=abc", 60),
    ],
)
def test_bad_block_list_queries_have_their_codes(api, games, query, code):
    assert api.get(f"/blocks?{query}").error_code == code


def test_blocks_can_be_picked_by_id(api, games):
    blocks = api.get("/blocks").json["data"]
    ids = [blocks[2]["header_signature"], MISSING, blocks[0]["header_signature"]]
    answer = api.get(f"/blocks?id={','.join(ids)}").json
    assert answer["data"] == [blocks[2], blocks[0]]


def test_picked_blocks_are_paged_by_block_id_like_batches(api, games):
    blocks = api.get("/blocks").json["data"]
    picked = [blocks[2], blocks[0], blocks[1]]
    ids = ",".join(block["header_signature"] for block in picked)
    first_page = api.get(f"/blocks?id={ids}&limit=1").json
    assert first_page["data"] == picked[:1]
    assert first_page["paging"]["next_position"] == picked[1]["header_signature"]
    assert walk(api, f"/blocks?id={ids}&limit=2") == picked
    assert walk(api, f"/blocks?id={ids}&limit=1&reverse") == list(reversed(picked))
    started = api.get(f"/blocks?id={ids}&start={picked[1]['header_signature']}").json
    assert (started["data"], started["paging"]["start"]) == (picked[1:], picked[1]["header_signature"])


@pytest.mark.parametrize(("query", "code"), [("start=zzz", 54), (f"start={MISSING}", 54), ("limit=0", 53)])
def test_bad_paging_of_picked_blocks_has_its_codes(api, games, query, code):
    head = api.get("/blocks?limit=1").json["head"]
    assert api.get(f"/blocks?id={head}&{query}").error_code == code


def test_one_block_by_id(api, games):
    head = api.get("/blocks?limit=1").json["data"][0]
    answer = api.get(f"/blocks/{head['header_signature']}")
    assert answer.json == {"data": head, "link": f"{api.url}/blocks/{head['header_signature']}"}
    assert api.get(f"/blocks/{MISSING}").error_code == 70
    assert api.get("/blocks/not-an-id").error_code == 60


def test_batches_are_listed_newest_block_first(api, games):
    _, batches = games
    answer = api.get("/batches").json
    listed = [batch["header_signature"] for batch in answer["data"]]
    positions = [listed.index(batch.header_signature) for batch in batches]
    assert positions == sorted(positions, reverse=True)
    head_block = api.get("/blocks?limit=1").json["data"][0]
    assert listed[: len(head_block["batches"])] == [batch["header_signature"] for batch in head_block["batches"]]


@pytest.mark.parametrize("limit", [1, 2])
def test_batch_pages_start_at_a_batch_id(api, games, limit):
    everything = api.get("/batches").json["data"]
    first_page = api.get(f"/batches?limit={limit}").json
    assert first_page["paging"]["next_position"] == everything[limit]["header_signature"]
    assert walk(api, f"/batches?limit={limit}") == everything
    assert walk(api, f"/batches?limit={limit}&reverse") == list(reversed(everything))


def test_batches_can_be_picked_and_fetched_by_id(api, games):
    _, batches = games
    ids = [batches[2].header_signature, MISSING, batches[0].header_signature]
    picked = api.get(f"/batches?id={','.join(ids)}").json["data"]
    assert [batch["header_signature"] for batch in picked] == [ids[0], ids[2]]
    one = api.get(f"/batches/{batches[1].header_signature}").json
    assert one["data"]["header"]["transaction_ids"] == [batches[1].transactions[0].header_signature]
    assert one["link"] == f"{api.url}/batches/{batches[1].header_signature}"


def test_batch_errors(api, games):
    assert api.get(f"/batches/{MISSING}").error_code == 71
    assert api.get("/batches/xyz").error_code == 60
    assert api.get(f"/batches?start={MISSING}").error_code == 54
    assert api.get(f"/batches?head={MISSING}").error_code == 50


def test_transactions_are_listed_and_paged_by_id(api, games):
    everything = api.get("/transactions").json["data"]
    assert walk(api, "/transactions?limit=2") == everything
    _, batches = games
    transaction = batches[1].transactions[0]
    answer = api.get(f"/transactions/{transaction.header_signature}").json
    assert answer["data"]["payload"] == base64.b64encode(transaction.payload).decode()
    assert answer["data"]["header"]["inputs"] == [game_address(games[0])]
    picked = api.get(f"/transactions?id={transaction.header_signature}").json["data"]
    assert picked == [answer["data"]]


def test_transaction_errors(api, games):
    assert api.get(f"/transactions/{MISSING}").error_code == 72
    assert api.get("/transactions/xyz").error_code == 60
    assert api.get(f"/transactions?start={MISSING}").error_code == 54


def test_receipts_show_each_transactions_state_changes(api, games):
    name, batches = games
    create, _, delete = (batch.transactions[0].header_signature for batch in batches)
    answer = api.get(f"/receipts?id={create},{delete}").json
    assert answer["link"] == f"{api.url}/receipts?id={create},{delete}"
    created, deleted = answer["data"]
    assert created["id"] == create
    new_game = base64.b64encode(f"{name},---------,P1-NEXT,,".encode()).decode()
    assert created["state_changes"] == [{"address": game_address(name), "type": "SET", "value": new_game}]
    assert deleted["state_changes"] == [{"address": game_address(name), "type": "DELETE"}]
    assert api.post_json("/receipts", [create]).json == {"data": [created]}


def test_receipt_errors(api, games):
    assert api.get("/receipts").error_code == 83
    answer = api.get(f"/receipts?id={MISSING}")
    assert (answer.status, answer.error_code) == (404, 80)
    assert MISSING in answer.json["error"]["message"]
    assert api.get("/receipts?id=bad").error_code == 60
    assert api.post("/receipts", b"[]", "text/plain").error_code == 81
    assert api.post("/receipts", b"{}", "application/json").error_code == 82
    assert api.post_json("/receipts", [MISSING]).error_code == 80


@pytest.mark.parametrize("resource", ["blocks", "batches", "transactions"])
def test_ids_with_braces_reach_the_route_and_are_error_60(api, resource):
    assert api.get(f"/{resource}/%7B").error_code == 60
    assert api.get(f"/{resource}/%7Bid%7D").error_code == 60
