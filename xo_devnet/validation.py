"""Submit-time checks of a BatchList, the ones a Sawtooth validator makes before it queues a batch.

A batch that fails here never reaches the engine: a bad signature or a payload that
does not match its hash is the client's mistake, and the client should hear exactly
which batch, which transaction and what is wrong, at once, not as an INVALID status later.
Pure: no I/O, no ledger. Whether an id was already submitted is the ledger's question.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from typing import TypeVar

from google.protobuf.message import DecodeError

from xo_core.protobuf.batch_pb2 import Batch, BatchHeader
from xo_core.protobuf.transaction_pb2 import Transaction, TransactionHeader
from xo_core.signing import verify

MAX_BODY_BYTES = 10 * 1024 * 1024
"""Largest POST /batches body accepted, the limit a Sawtooth REST API applies by default."""

_SIGNATURE = re.compile(r"[0-9a-f]{128}")
_PUBLIC_KEY = re.compile(r"0[23][0-9a-f]{64}")
_Header = TypeVar("_Header", BatchHeader, TransactionHeader)


class InvalidBatch(ValueError):
    """A batch a validator would refuse; the message names the batch, the transaction and the fault."""


def short_id(identifier: str) -> str:
    """The first 16 characters of an id: enough to find it, short enough to read in a message."""
    return identifier[:16] + ("..." if len(identifier) > 16 else "")


def validate_batches(batches: Sequence[Batch]) -> None:
    """Raise InvalidBatch for the first problem found in ``batches``, in submission order.

    Ids must be unique across the whole submission, not only within one batch: two
    copies of a transaction in one BatchList would otherwise both reach the queue.
    """
    seen_batch_ids: set[str] = set()
    seen_transaction_ids: set[str] = set()
    for index, batch in enumerate(batches):
        where = f"batch {index} ({short_id(batch.header_signature) or 'no id'})"
        _check_batch(batch, where)
        if batch.header_signature in seen_batch_ids:
            raise InvalidBatch(f"{where}: the same batch appears twice in the BatchList")
        seen_batch_ids.add(batch.header_signature)
        for transaction in batch.transactions:
            if transaction.header_signature in seen_transaction_ids:
                raise InvalidBatch(
                    f"{where}: transaction {short_id(transaction.header_signature)} appears twice in the BatchList"
                )
            seen_transaction_ids.add(transaction.header_signature)


def _check_batch(batch: Batch, where: str) -> None:
    header = _parse(BatchHeader, batch.header, where, "header is not a BatchHeader")
    _check_signature(header.signer_public_key, batch.header_signature, batch.header, where)
    if not batch.transactions:
        raise InvalidBatch(f"{where}: the batch holds no transactions")
    actual_ids = [transaction.header_signature for transaction in batch.transactions]
    if list(header.transaction_ids) != actual_ids:
        raise InvalidBatch(
            f"{where}: header transaction_ids {_id_list(header.transaction_ids)} do not match "
            f"the transactions it holds, in order: {_id_list(actual_ids)}"
        )
    not_yet_run = set(actual_ids)
    for position, transaction in enumerate(batch.transactions):
        txn_where = f"{where}, transaction {position} ({short_id(transaction.header_signature) or 'no id'})"
        txn_header = _check_transaction(transaction, header.signer_public_key, txn_where)
        for dependency in txn_header.dependencies:
            if dependency in not_yet_run:
                raise InvalidBatch(
                    f"{txn_where}: depends on transaction {short_id(dependency)}, which is itself or comes after"
                    " it in the same batch, so it could never run"
                )
        not_yet_run.discard(transaction.header_signature)


def _check_transaction(transaction: Transaction, batch_signer: str, where: str) -> TransactionHeader:
    header = _parse(TransactionHeader, transaction.header, where, "header is not a TransactionHeader")
    _check_signature(header.signer_public_key, transaction.header_signature, transaction.header, where)
    if header.batcher_public_key != batch_signer:
        raise InvalidBatch(
            f"{where}: batcher_public_key {short_id(header.batcher_public_key) or '(empty)'} "
            f"is not the batch signer {short_id(batch_signer)}"
        )
    if hashlib.sha512(transaction.payload).hexdigest() != header.payload_sha512:
        raise InvalidBatch(f"{where}: payload_sha512 does not match the SHA-512 of the payload")
    return header


def _check_signature(public_key: str, signature: str, header_bytes: bytes, where: str) -> None:
    if not _PUBLIC_KEY.fullmatch(public_key):
        raise InvalidBatch(
            f"{where}: signer_public_key {short_id(public_key) or '(empty)'} is not a compressed "
            "secp256k1 public key (66 lowercase hex characters)"
        )
    if not _SIGNATURE.fullmatch(signature):
        raise InvalidBatch(f"{where}: header_signature is not 128 lowercase hex characters")
    if not verify(public_key, signature, header_bytes):
        raise InvalidBatch(f"{where}: header_signature is not a valid signature of the header by its signer")


def _parse(message_type: type[_Header], data: bytes, where: str, fault: str) -> _Header:
    message = message_type()
    try:
        message.ParseFromString(data)
    except DecodeError:
        raise InvalidBatch(f"{where}: {fault}") from None
    return message


def _id_list(ids: Sequence[str]) -> str:
    return "[" + ", ".join(short_id(identifier) for identifier in ids) + "]"
