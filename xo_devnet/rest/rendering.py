"""Protobuf records rendered as the JSON objects the Sawtooth REST API returns.

Headers travel as bytes on the wire but Sawtooth clients read them expanded, with
every field present (empty lists, false, "") and 64-bit integers as strings, the way
protobuf's JSON mapping writes them. Bytes become standard base64.
"""

from __future__ import annotations

import base64
from typing import Any

from xo_core.protobuf.batch_pb2 import Batch, BatchHeader
from xo_core.protobuf.block_pb2 import Block, BlockHeader
from xo_core.protobuf.events_pb2 import Event
from xo_core.protobuf.transaction_pb2 import Transaction, TransactionHeader
from xo_core.protobuf.transaction_receipt_pb2 import StateChange, TransactionReceipt
from xo_devnet.ledger import BatchStatus

JsonObject = dict[str, Any]


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def block_header(header_bytes: bytes) -> BlockHeader:
    header = BlockHeader()
    header.ParseFromString(header_bytes)
    return header


def render_block(block: Block) -> JsonObject:
    header = block_header(block.header)
    return {
        "batches": [render_batch(batch) for batch in block.batches],
        "header": {
            "batch_ids": list(header.batch_ids),
            "block_num": str(header.block_num),
            "consensus": b64(header.consensus),
            "previous_block_id": header.previous_block_id,
            "signer_public_key": header.signer_public_key,
            "state_root_hash": header.state_root_hash,
        },
        "header_signature": block.header_signature,
    }


def render_batch(batch: Batch) -> JsonObject:
    header = BatchHeader()
    header.ParseFromString(batch.header)
    return {
        "header": {
            "signer_public_key": header.signer_public_key,
            "transaction_ids": list(header.transaction_ids),
        },
        "header_signature": batch.header_signature,
        "trace": batch.trace,
        "transactions": [render_transaction(transaction) for transaction in batch.transactions],
    }


def render_transaction(transaction: Transaction) -> JsonObject:
    header = TransactionHeader()
    header.ParseFromString(transaction.header)
    return {
        "header": {
            "batcher_public_key": header.batcher_public_key,
            "dependencies": list(header.dependencies),
            "family_name": header.family_name,
            "family_version": header.family_version,
            "inputs": list(header.inputs),
            "nonce": header.nonce,
            "outputs": list(header.outputs),
            "payload_sha512": header.payload_sha512,
            "signer_public_key": header.signer_public_key,
        },
        "header_signature": transaction.header_signature,
        "payload": b64(transaction.payload),
    }


def render_receipt(receipt: TransactionReceipt) -> JsonObject:
    """A receipt as /receipts lists it: the transaction id under "id", empty strings left out."""
    return _without_empty_strings(
        {
            "data": [b64(item) for item in receipt.data],
            "events": [_render_event(event) for event in receipt.events],
            "id": receipt.transaction_id,
            "state_changes": [_render_state_change(change) for change in receipt.state_changes],
        }
    )


def render_batch_status(status: BatchStatus) -> JsonObject:
    """A status as /batch_statuses lists it; an empty message or extended_data is left out, as Sawtooth does."""
    return _without_empty_strings(
        {
            "id": status.batch_id,
            "invalid_transactions": [
                {"id": info.id, "message": info.message, "extended_data": b64(info.extended_data)}
                for info in status.invalid_transactions
            ],
            "status": status.status,
        }
    )


def _render_event(event: Event) -> JsonObject:
    return {
        "attributes": [{"key": attribute.key, "value": attribute.value} for attribute in event.attributes],
        "data": b64(event.data),
        "event_type": event.event_type,
    }


def _render_state_change(change: StateChange) -> JsonObject:
    return {"address": change.address, "type": StateChange.Type.Name(change.type), "value": b64(change.value)}


def _without_empty_strings(item: Any) -> Any:
    if isinstance(item, list):
        return [_without_empty_strings(element) for element in item]
    if isinstance(item, dict):
        return {key: _without_empty_strings(value) for key, value in item.items() if value != ""}
    return item
