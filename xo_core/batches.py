"""Building signed transactions, batches and batch lists, as any Sawtooth client must.

This is the one place that knows how a header is signed and how ids are derived
(an id is the header's signature), so the CLI, the tests and the benchmarks all
produce bytes a validator accepts.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Iterable, Sequence

from xo_core.protobuf.batch_pb2 import Batch, BatchHeader, BatchList
from xo_core.protobuf.transaction_pb2 import Transaction, TransactionHeader
from xo_core.signing import Signer


def make_transaction(
    signer: Signer,
    payload: bytes,
    *,
    family_name: str,
    family_version: str,
    inputs: Sequence[str],
    outputs: Sequence[str],
    dependencies: Sequence[str] = (),
    batcher_public_key: str | None = None,
    nonce: str | None = None,
) -> Transaction:
    """Sign a transaction of any family; the batcher defaults to the signer."""
    header = TransactionHeader(
        family_name=family_name,
        family_version=family_version,
        inputs=inputs,
        outputs=outputs,
        dependencies=dependencies,
        signer_public_key=signer.public_key,
        batcher_public_key=batcher_public_key or signer.public_key,
        nonce=nonce if nonce is not None else secrets.token_hex(16),
        payload_sha512=hashlib.sha512(payload).hexdigest(),
    ).SerializeToString()
    return Transaction(header=header, header_signature=signer.sign(header), payload=payload)


def make_batch(signer: Signer, transactions: Iterable[Transaction]) -> Batch:
    """Wrap transactions in a batch signed by ``signer``, which must be their batcher."""
    transactions = list(transactions)
    header = BatchHeader(
        signer_public_key=signer.public_key,
        transaction_ids=[txn.header_signature for txn in transactions],
    ).SerializeToString()
    return Batch(header=header, header_signature=signer.sign(header), transactions=transactions)


def make_batch_list(batches: Iterable[Batch]) -> bytes:
    """Serialise batches as the ``BatchList`` body that ``POST /batches`` takes."""
    return BatchList(batches=list(batches)).SerializeToString()
