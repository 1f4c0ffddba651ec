"""Executes a planned block: every batch atomically, concurrently where the plan allows.

The outcome equals serial execution in block order (see ``scheduler``). A batch is
VALID when all its transactions are, INVALID as soon as one is (its writes vanish),
DEFERRED (back to the queue, still PENDING) when no processor serves it any more or
a transaction it depends on did not make it into the block. Processor failures are
retried with back-off, to another processor when there is one, up to a bound after
which the batch is INVALID with a message naming the failing processor family.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field

from xo_core.protobuf.processor_pb2 import TpProcessResponse
from xo_core.protobuf.transaction_pb2 import Transaction, TransactionHeader
from xo_core.protobuf.transaction_receipt_pb2 import TransactionReceipt
from xo_devnet.context import Reader, TxnContext, layered_reader
from xo_devnet.dispatcher import Dispatcher, NoProcessor, ProcessorFailed
from xo_devnet.scheduler import BlockPlan, PendingBatch
from xo_devnet.status import InvalidTransactionInfo

LOG = logging.getLogger(__name__)
_MAX_RETRY_DELAY = 1.0


class _Deferred(Exception):
    """The batch cannot run in this block; it stays queued."""


@dataclass
class BlockResult:
    valid: list[tuple[PendingBatch, list[TransactionReceipt]]] = field(default_factory=list)
    invalid: list[tuple[PendingBatch, tuple[InvalidTransactionInfo, ...]]] = field(default_factory=list)
    deferred: list[PendingBatch] = field(default_factory=list)
    changes: dict[str, bytes | None] = field(default_factory=dict)
    """Every address the valid batches wrote (None: deleted), to apply to the Merkle tree."""


@dataclass
class _Outcome:
    receipts: list[TransactionReceipt] | None = None
    invalid: tuple[InvalidTransactionInfo, ...] = ()

    @property
    def valid(self) -> bool:
        return self.receipts is not None


class BlockExecutor:
    """Runs blocks through the dispatcher with a bounded retry policy."""

    def __init__(self, dispatcher: Dispatcher, *, max_attempts: int, retry_delay: float) -> None:
        self._dispatcher = dispatcher
        self._max_attempts = max_attempts
        self._retry_delay = retry_delay

    async def execute(self, plan: BlockPlan, read_committed: Reader) -> BlockResult:
        overlay: dict[str, bytes | None] = {}
        loop = asyncio.get_running_loop()
        done: list[asyncio.Future[_Outcome | None]] = [loop.create_future() for _ in plan.batches]

        async def run(index: int) -> None:
            outcome: _Outcome | None = None
            try:
                for earlier in plan.waits_for[index]:
                    await asyncio.shield(done[earlier])
                if all(_succeeded(done[required]) for required in plan.requires_valid[index]):
                    outcome = await self._run_batch(plan.batches[index], overlay, read_committed)
            except _Deferred:
                outcome = None
            except Exception:
                LOG.exception("executing batch %s failed; it stays pending", plan.batches[index].batch_id)
                outcome = None
            finally:
                if not done[index].done():
                    done[index].set_result(outcome)

        tasks = [asyncio.create_task(run(index)) for index in range(len(plan.batches))]
        try:
            await asyncio.gather(*tasks)
        finally:
            for task in tasks:
                task.cancel()
        result = BlockResult(changes=overlay)
        for pending, future in zip(plan.batches, done, strict=True):
            outcome = future.result()
            if outcome is None:
                result.deferred.append(pending)
            elif outcome.receipts is not None:
                result.valid.append((pending, outcome.receipts))
            else:
                result.invalid.append((pending, outcome.invalid))
        return result

    async def _run_batch(
        self, pending: PendingBatch, overlay: dict[str, bytes | None], read_committed: Reader
    ) -> _Outcome:
        batch_writes: dict[str, bytes | None] = {}
        read = layered_reader((batch_writes, overlay), read_committed)
        receipts = []
        for txn, header in zip(pending.batch.transactions, pending.headers, strict=True):
            context = await self._run_transaction(pending, txn, header, read)
            if isinstance(context, InvalidTransactionInfo):
                return _Outcome(invalid=(context,))
            batch_writes.update(context.writes)
            receipts.append(context.receipt(txn.header_signature))
        overlay.update(batch_writes)
        return _Outcome(receipts=receipts)

    async def _run_transaction(
        self, pending: PendingBatch, txn: Transaction, header: TransactionHeader, read: Reader
    ) -> TxnContext | InvalidTransactionInfo:
        avoid: bytes | None = None
        while True:
            context = TxnContext(header.inputs, header.outputs, read)
            try:
                response, processor = await self._dispatcher.process(txn, header, context, avoid)
            except NoProcessor:
                raise _Deferred from None
            except ProcessorFailed as failure:
                reason, avoid, counts = str(failure), failure.connection, failure.counts
            else:
                if response.status == TpProcessResponse.OK:
                    return context
                if response.status == TpProcessResponse.INVALID_TRANSACTION:
                    return InvalidTransactionInfo(txn.header_signature, response.message, response.extended_data)
                reason, avoid, counts = _internal_error(response), processor, True
            if not counts:
                continue
            pending.failures += 1
            LOG.warning(
                "transaction %s (%s %s): attempt %d failed: %s",
                txn.header_signature[:16],
                header.family_name,
                header.family_version,
                pending.failures,
                reason,
            )
            if pending.failures >= self._max_attempts:
                return InvalidTransactionInfo(
                    txn.header_signature,
                    f"transaction processor failed: {header.family_name} {header.family_version} could not process"
                    f" this transaction in {pending.failures} attempts (last: {reason})",
                    b"",
                )
            await asyncio.sleep(min(self._retry_delay * 2 ** (pending.failures - 1), _MAX_RETRY_DELAY))


def _succeeded(done: asyncio.Future[_Outcome | None]) -> bool:
    outcome = done.result()
    return outcome is not None and outcome.valid


def _internal_error(response: TpProcessResponse) -> str:
    detail = f": {response.message}" if response.message else ""
    if response.status == TpProcessResponse.INTERNAL_ERROR:
        return f"processor reported an internal error{detail}"
    return f"processor answered with an unknown status {response.status}{detail}"
