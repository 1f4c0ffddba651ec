"""Reading blocks, receipts and websocket messages: Sawtooth's own answers read right, anything else a server error.

The captures of a real Sawtooth 1.0.5 REST API (tests/xo_devnet/rest/sawtooth_1_0_5) are read
as they are; arbitrary answers and messages end in a value or in exit 3, never in a crash.
"""

import base64
import itertools
import json
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from client_core.answers import Answers, Response, StateChange
from client_core.blocks import (
    BlockChanges,
    ChainAnswers,
    ChainBlock,
    ChainTransaction,
    ServerNote,
    may_write_under,
    squash,
)
from client_core.errors import UNAVAILABLE, CommandError
from tests.client_core.test_answers import responses, shaped

CHAIN = ChainAnswers(Answers("http://h:8008"))
CAPTURES = Path(__file__).parents[1] / "xo_devnet" / "rest" / "sawtooth_1_0_5"
ADDRESS = "5b7349" + "1" * 64


def capture(name: str) -> Response:
    return Response(200, "application/json", (CAPTURES / name).read_bytes())


def test_sawtooth_s_block_list_is_read_newest_first_with_its_transactions():
    blocks, next_query = CHAIN.blocks_page(capture("16_blocks_list.json"), "/blocks")
    assert [block.block_num for block in blocks] == [3, 2, 1, 0]
    assert next_query is None
    assert all(newer.previous_block_id == older.block_id for newer, older in itertools.pairwise(blocks))
    assert blocks[-1].previous_block_id == "0000000000000000"
    [create] = blocks[0].transactions
    assert (create.family_name, create.family_version, create.payload) == ("xo", "1.0", b"cap1795268788,create,")
    assert create.outputs == create.inputs and create.signer.startswith("03")


def test_sawtooth_s_block_list_is_read_with_signers_and_batches_for_xo_chain():
    listed, next_query = CHAIN.listed_blocks_page(capture("16_blocks_list.json"), "/blocks")
    plain, _ = CHAIN.blocks_page(capture("16_blocks_list.json"), "/blocks")
    assert next_query is None
    assert [(block.block_id, block.block_num, block.transactions) for block in listed] == [
        (block.block_id, block.block_num, block.transactions) for block in plain
    ]
    assert all(len(block.signer) == 66 for block in listed), "each block names the validator that signed it"
    [batch] = listed[0].batches
    assert len(batch.batch_id) == 128 and batch.signer == batch.transactions[0].signer


def test_sawtooth_s_receipts_are_read_by_transaction():
    [(transaction_id, changes)] = CHAIN.receipts(capture("22_receipts_by_txn_id.json"), "/receipts").items()
    assert transaction_id.startswith("8457dcb7")
    assert changes == [StateChange(changes[0].address, "SET", b"cap1795268788,---------,P1-NEXT,,")]


def test_a_websocket_message_is_a_block_s_changes_or_a_note():
    message = {
        "block_id": "ab" * 64, "block_num": "12", "previous_block_id": "cd" * 64,
        "state_changes": [
            {"address": ADDRESS, "value": base64.b64encode(b"g1,---------,P1-NEXT,,").decode(), "type": "SET"},
            {"address": ADDRESS[:-1] + "2", "type": "DELETE", "value": ""},
        ],
    }  # fmt: skip
    block = CHAIN.message(json.dumps(message))
    assert block == BlockChanges(
        "ab" * 64, 12, "cd" * 64,
        (StateChange(ADDRESS, "SET", b"g1,---------,P1-NEXT,,"), StateChange(ADDRESS[:-1] + "2", "DELETE", b"")),
    )  # fmt: skip
    warning = ServerNote("warning", "Validator unavailable")
    assert CHAIN.message(json.dumps({"warning": "Validator unavailable"})) == warning
    assert CHAIN.message('{"error": "Unknown block"}') == ServerNote("error", "Unknown block")


def test_a_block_s_changes_are_the_last_one_per_address_under_the_prefixes():
    def transaction(number: int, outputs=(ADDRESS,)) -> ChainTransaction:
        return ChainTransaction(str(number), "xo", "1.0", "02", outputs, outputs, b"")

    block = ChainBlock("ab" * 64, 5, "cd" * 64, (transaction(1), transaction(2), transaction(3, ("ff",))))
    receipts = {
        "1": [StateChange(ADDRESS, "SET", b"first"), StateChange("ff" + "0" * 68, "SET", b"elsewhere")],
        "2": [StateChange(ADDRESS, "DELETE", b"")],
    }
    assert squash(block, receipts, ["5b7349"]).changes == (StateChange(ADDRESS, "DELETE", b""),)
    assert len(squash(block, receipts, []).changes) == 2
    assert may_write_under(transaction(4, ("5b73",)), [ADDRESS]), "an output may be a prefix of the address"
    assert not may_write_under(transaction(3, ("ff",)), ["5b7349"])


def read_every_way(response: Response):
    for reader in (
        lambda: CHAIN.blocks_page(response, "/blocks"),
        lambda: CHAIN.listed_blocks_page(response, "/blocks"),
        lambda: CHAIN.receipts(response, "/receipts"),
        lambda: CHAIN.message(response.body.decode("utf-8", "replace")),
    ):
        try:
            reader()
        except CommandError as error:
            yield error
        else:
            yield None


block_keys = st.sampled_from(
    ["data", "header", "header_signature", "block_num", "previous_block_id", "batches", "transactions", "payload",
     "family_name", "inputs", "outputs", "signer_public_key", "state_changes", "block_id", "id", "error", "warning"]
)
block_shaped = st.recursive(
    shaped | st.sampled_from(["ab" * 64, "12", "0000000000000000"]),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(block_keys, children, max_size=6),
    max_leaves=40,
)


@settings(max_examples=150, deadline=None)
@given(responses)
def test_any_answer_is_read_or_refused_as_a_server_error(response):
    for error in read_every_way(response):
        assert error is None or error.exit_code == UNAVAILABLE, error.message


@settings(max_examples=200, deadline=None)
@given(block_shaped)
def test_any_block_shaped_answer_or_message_is_read_or_refused_as_a_server_error(value):
    for error in read_every_way(Response(200, "application/json", json.dumps(value).encode())):
        assert error is None or error.exit_code == UNAVAILABLE, error.message
