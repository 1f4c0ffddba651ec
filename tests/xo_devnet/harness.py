"""Shared test scaffolding: a running in-memory ledger, kv transactions and batches."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any

from tests.xo_devnet.fake_processor import KV_NAMESPACE, FakeProcessor, Handler, kv_handler, kv_payload
from xo_core import block_info
from xo_core.batches import make_batch, make_transaction
from xo_core.protobuf.batch_pb2 import Batch
from xo_core.protobuf.block_info_pb2 import BlockInfoTxn
from xo_core.protobuf.block_pb2 import Block
from xo_core.protobuf.transaction_pb2 import Transaction, TransactionHeader
from xo_core.signing import Signer
from xo_devnet.chain import header_of
from xo_devnet.ledger import Ledger, LedgerConfig

SIGNER = Signer.generate()
NAMESPACE = KV_NAMESPACE


def address(name: object) -> str:
    """A 70-hex address in the kv namespace."""
    return NAMESPACE + hashlib.sha512(str(name).encode()).hexdigest()[:68]


def _mentioned(ops: dict[str, Any]) -> list[str]:
    found = [*ops.get("set", {}), *ops.get("delete", [])]
    found += [ops[key] for key in ("add", "require") if key in ops]
    return sorted(set(found))


def kv_txn(
    inputs: Sequence[str] | None = None,
    outputs: Sequence[str] | None = None,
    dependencies: Sequence[str] = (),
    family: str = "kv",
    version: str = "1.0",
    **ops: Any,
) -> Transaction:
    """A kv transaction whose inputs and outputs default to the addresses its operations name."""
    mentioned = _mentioned(ops)
    return make_transaction(
        SIGNER,
        kv_payload(**ops),
        family_name=family,
        family_version=version,
        inputs=mentioned if inputs is None else inputs,
        outputs=mentioned if outputs is None else outputs,
        dependencies=dependencies,
    )


def batch_of(*transactions: Transaction) -> Batch:
    return make_batch(SIGNER, transactions)


def kv_batch(**ops: Any) -> Batch:
    return batch_of(kv_txn(**ops))


@contextlib.asynccontextmanager
async def running_ledger(data_dir: Path | None = None, **overrides: Any) -> AsyncIterator[Ledger]:
    config = LedgerConfig(data_dir=data_dir, component_endpoint="tcp://127.0.0.1:0", **overrides)
    ledger = await Ledger.start(config)
    try:
        yield ledger
    finally:
        await ledger.stop()


@contextlib.asynccontextmanager
async def connected(ledger: Ledger, handler: Handler = kv_handler, **options: Any) -> AsyncIterator[FakeProcessor]:
    processor = FakeProcessor(ledger.component_endpoint, handler, **options)
    try:
        response = await processor.start()
        assert response.status == response.OK
        yield processor
    finally:
        await processor.close()


async def commit(ledger: Ledger, *batches: Batch, timeout: float = 20.0) -> list[str]:
    """Submit and wait; return the statuses in order."""
    await ledger.submit(batches)
    statuses = await ledger.wait_for_batches([batch.header_signature for batch in batches], timeout)
    return [status.status for status in statuses]


async def eventually(condition: Callable[[], object], timeout: float = 10.0) -> None:
    """Wait (bounded) for something the ledger does in the background."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not condition():
        assert loop.time() < deadline, "condition not reached in time"
        await asyncio.sleep(0.02)


def run(scenario: Callable[[], Awaitable[object]], timeout: float = 60.0) -> None:
    """Run an async test scenario on a fresh loop, failing it rather than hanging after ``timeout`` seconds."""
    asyncio.run(asyncio.wait_for(scenario(), timeout))


def head_value(ledger: Ledger, address_: str) -> bytes | None:
    """The value at ``address_`` as of the durable chain head: what a client reading state would see."""
    return ledger.state_get(address_, header_of(ledger.chain_head()).state_root_hash)


def described_by(batch: Batch) -> int | None:
    """The number of the block a BlockInfo batch describes; None for any other batch."""
    [txn] = batch.transactions if len(batch.transactions) == 1 else [None]
    if txn is None or TransactionHeader.FromString(txn.header).family_name != block_info.FAMILY_NAME:
        return None
    return BlockInfoTxn.FromString(txn.payload).block.block_num


def submitted_batches(block: Block) -> list[Batch]:
    """A block's batches after its BlockInfo, checking that it opens with the BlockInfo of the block before it."""
    number = header_of(block).block_num
    if number == 0:
        return list(block.batches)
    opener, *rest = block.batches
    assert described_by(opener) == number - 1, f"block {number} does not open with the BlockInfo of block {number - 1}"
    assert all(described_by(batch) is None for batch in rest), f"block {number} has a second BlockInfo"
    return rest
