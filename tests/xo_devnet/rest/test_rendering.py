"""Rendering protobuf records as JSON: compared byte for byte with a real Sawtooth REST API's answers."""

import base64
import json
from pathlib import Path

import pytest

from xo_core.protobuf.batch_pb2 import Batch, BatchHeader
from xo_core.protobuf.block_pb2 import Block, BlockHeader
from xo_core.protobuf.events_pb2 import Event
from xo_core.protobuf.transaction_pb2 import Transaction, TransactionHeader
from xo_core.protobuf.transaction_receipt_pb2 import StateChange, TransactionReceipt
from xo_devnet.ledger import BatchStatus, InvalidTransactionInfo
from xo_devnet.rest.errors import ApiError
from xo_devnet.rest.rendering import (
    render_batch,
    render_batch_status,
    render_block,
    render_receipt,
    render_transaction,
)
from xo_devnet.rest.responses import dumps

SAWTOOTH = Path(__file__).parent / "sawtooth_1_0_5"


def captured(name: str) -> tuple[str, dict]:
    text = (SAWTOOTH / name).read_text(encoding="utf-8")
    return text, json.loads(text)


def transaction_from(rendered: dict) -> Transaction:
    header = TransactionHeader(**rendered["header"])
    return Transaction(
        header=header.SerializeToString(),
        header_signature=rendered["header_signature"],
        payload=base64.b64decode(rendered["payload"]),
    )


def batch_from(rendered: dict) -> Batch:
    return Batch(
        header=BatchHeader(**rendered["header"]).SerializeToString(),
        header_signature=rendered["header_signature"],
        trace=rendered["trace"],
        transactions=[transaction_from(item) for item in rendered["transactions"]],
    )


def block_from(rendered: dict) -> Block:
    fields = dict(rendered["header"])
    fields["block_num"] = int(fields["block_num"])
    fields["consensus"] = base64.b64decode(fields["consensus"])
    return Block(
        header=BlockHeader(**fields).SerializeToString(),
        header_signature=rendered["header_signature"],
        batches=[batch_from(item) for item in rendered["batches"]],
    )


def test_a_block_renders_byte_for_byte_as_sawtooth_renders_it():
    text, answer = captured("23_get_block_by_id.json")
    assert dumps({"data": render_block(block_from(answer["data"])), "link": answer["link"]}) == text


def test_a_batch_renders_byte_for_byte_as_sawtooth_renders_it():
    text, answer = captured("20_get_batch_by_id.json")
    assert dumps({"data": render_batch(batch_from(answer["data"])), "link": answer["link"]}) == text


def test_a_transaction_renders_byte_for_byte_as_sawtooth_renders_it():
    text, answer = captured("21_get_transaction_by_id.json")
    assert dumps({"data": render_transaction(transaction_from(answer["data"])), "link": answer["link"]}) == text


def test_a_block_list_page_renders_as_sawtooth_renders_it():
    text, answer = captured("08_blocks_limit1.json")
    rebuilt = dict(answer, data=[render_block(block_from(item)) for item in answer["data"]])
    assert dumps(rebuilt) == text


def test_a_receipt_renders_with_its_transaction_id_as_id():
    text, answer = captured("22_receipts_by_txn_id.json")
    change = answer["data"][0]["state_changes"][0]
    receipt = TransactionReceipt(
        transaction_id=answer["data"][0]["id"],
        state_changes=[
            StateChange(address=change["address"], value=base64.b64decode(change["value"]), type=StateChange.SET)
        ],
    )
    assert dumps({"data": [render_receipt(receipt)], "link": answer["link"]}) == text


def test_a_delete_state_change_and_empty_event_data_are_left_out_like_sawtooth():
    receipt = TransactionReceipt(
        transaction_id="ab" * 64,
        state_changes=[StateChange(address="5b7349" + "00" * 32, type=StateChange.DELETE)],
        events=[Event(event_type="xo/game", attributes=[Event.Attribute(key="name", value="g1")])],
        data=[b"\x01"],
    )
    assert render_receipt(receipt) == {
        "data": ["AQ=="],
        "events": [{"attributes": [{"key": "name", "value": "g1"}], "event_type": "xo/game"}],
        "id": "ab" * 64,
        "state_changes": [{"address": "5b7349" + "00" * 32, "type": "DELETE"}],
    }


def test_batch_statuses_render_as_sawtooth_renders_them():
    text, answer = captured("15_batch_statuses_post_json.json")
    committed, invalid = answer["data"]
    reason = invalid["invalid_transactions"][0]
    statuses = [
        BatchStatus(committed["id"], "COMMITTED"),
        BatchStatus(invalid["id"], "INVALID", (InvalidTransactionInfo(reason["id"], reason["message"], b""),)),
    ]
    assert dumps({"data": [render_batch_status(status) for status in statuses]}) == text


def test_extended_data_is_shown_in_base64_when_there_is_some():
    status = BatchStatus("cd" * 64, "INVALID", (InvalidTransactionInfo("ab" * 64, "", b"\x00\xff"),))
    assert render_batch_status(status)["invalid_transactions"] == [{"id": "ab" * 64, "extended_data": "AP8="}]


@pytest.mark.parametrize(
    ("code", "name"),
    [
        (35, "09_post_batches_garbage_400.json"),
        (42, "10_post_batches_wrong_content_type.json"),
        (34, "11_post_batches_empty_body.json"),
        (66, "13_batch_statuses_no_id.json"),
        (62, "14_state_get_bad_address_400.json"),
        (75, "07_state_get_missing_404.json"),
        (70, "24_get_block_missing_404.json"),
        (71, "25_get_batch_missing_404.json"),
    ],
)
def test_error_bodies_are_byte_for_byte_sawtooths(code, name):
    text, _ = captured(name)
    assert dumps(ApiError(code).body) == text
