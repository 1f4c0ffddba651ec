"""Executes scheduled batches, each atomically, concurrently where the planner allows.

The outcome equals serial execution in arrival order (see ``scheduler``). A batch is
VALID when all its transactions are, INVALID as soon as one is (its writes vanish),
DEFERRED (back to the queue, still PENDING) when no processor serves it any more, when
a transaction it depends on did not end valid, or when an earlier batch it waits for
was deferred: it must not overtake that one.

Execution is continuous; blocks are cut from it. ``cut`` takes every finished batch
out, as the next block's content, while the unfinished ones keep running and land in
a later block, so one slow or stuck transaction delays only the batches that must
wait for it. A cut is always consistent: a finished batch never waits for an
unfinished one, and the unfinished ones read committed state through
``read_committed``, which the caller advances past the cut batches in the same step.

Every block opens with a batch the ledger makes itself (its BlockInfo), executed
in-process by ``open_block`` before any batch added after it starts, and first in the
block it opens. A batch that could see what that batch writes (``bound_to_block``: its
inputs or outputs overlap the BlockInfo namespace) must observe the opener of the block
it lands in, so it may not carry over from one block into the next: unfinished at a
cut, it is cancelled and deferred, to run again after the next opener, with every
batch that waits for it. The batches still running at the next opener therefore cannot
see it, and it needs to wait for none of them. A batch cut off this way again and again
for ``cut_off_limit`` seconds (a processor that never answers) ends INVALID, as a stuck
transaction does after its retries.

Processor failures are retried with back-off, to another processor when there is one,
up to a bound after which the batch is INVALID with a message naming the failing
processor family.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
from collections.abc import Callable
from dataclasses import dataclass, field

from xo_core.log_limits import LogLimiter
from xo_core.protobuf.processor_pb2 import TpProcessResponse
from xo_core.protobuf.transaction_pb2 import Transaction, TransactionHeader
from xo_core.protobuf.transaction_receipt_pb2 import TransactionReceipt
from xo_core.text import duration
from xo_devnet.context import Reader, TxnContext, layered_reader
from xo_devnet.dispatcher import Dispatcher, NoProcessor, ProcessorFailed
from xo_devnet.scheduler import PendingBatch, Planner
from xo_devnet.status import InvalidTransactionInfo

LOG = logging.getLogger(__name__)
_MAX_RETRY_DELAY = 1.0


class _Deferred(Exception):
    """The batch cannot run now; it goes back to the queue."""


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


@dataclass(eq=False)
class _Entry:
    """One scheduled batch; ``done`` holds its outcome, None when deferred."""

    pending: PendingBatch
    waits: list[_Entry]
    requires_valid: list[_Entry]
    done: asyncio.Future[_Outcome | None]
    task: asyncio.Task[None] | None = None
    position: int = 0
    """The transaction it is running, or waiting to run (its own batch's earlier ones done)."""
    started: bool = False
    """Whether it stopped waiting for earlier batches and began its own transactions."""

    @property
    def deferred(self) -> bool:
        return self.done.done() and self.done.result() is None


Opener = Callable[[Transaction, TransactionHeader, TxnContext], None]
"""Executes one transaction of a block's opening batch in-process; raises to refuse it."""


class BlockExecutor:
    """Runs batches through the dispatcher with a bounded retry policy, and cuts blocks from them."""

    def __init__(
        self,
        dispatcher: Dispatcher,
        read_committed: Reader,
        *,
        max_attempts: int,
        retry_delay: float,
        bound_to_block: Callable[[PendingBatch], bool] = lambda _: False,
        cut_off_limit: float = float("inf"),
    ) -> None:
        self._dispatcher = dispatcher
        self._read_committed = read_committed
        self._max_attempts = max_attempts
        self._retry_delay = retry_delay
        self._bound_to_block = bound_to_block
        self._cut_off_limit = cut_off_limit
        self._planner = Planner()
        self._keys = itertools.count()
        self._entries: dict[int, _Entry] = {}
        self._overlay: dict[str, bytes | None] = {}
        """Writes of the finished valid batches not cut yet (the opener's included)."""
        self._opener: tuple[PendingBatch, list[TransactionReceipt]] | None = None
        self._log_limiter = LogLimiter()
        """A client can submit many transactions a processor fails on: one line per interval, and the count."""

    @property
    def running(self) -> int:
        """How many batches are scheduled and not yet cut."""
        return len(self._entries)

    def has_transaction(self, txn_id: str) -> bool:
        """Whether a scheduled batch holds this transaction (a later batch may then depend on it)."""
        return txn_id in self._planner

    def add(self, batches: list[PendingBatch]) -> None:
        """Schedule batches that arrived after every batch already scheduled, and start them."""
        for pending in batches:
            key = next(self._keys)
            constraints = self._planner.add(key, pending)
            entry = _Entry(
                pending,
                waits=[self._entries[earlier] for earlier in constraints.waits_for],
                requires_valid=[self._entries[earlier] for earlier in constraints.requires_valid],
                done=asyncio.get_running_loop().create_future(),
            )
            self._entries[key] = entry
            entry.task = asyncio.create_task(self._run(entry), name=f"xo-batch-{pending.batch_id[:16]}")

    def open_block(self, pending: PendingBatch, execute: Opener) -> None:
        """Execute the batch that opens the next block, at once, on the state the next block builds on.

        Batches added from now on see its writes, and the next cut puts it first. It
        must not be observable by a batch still running (``bound_to_block`` ones are
        never left running at a cut), so it waits for nothing. Whatever ``execute``
        raises propagates: the block cannot be opened.
        """
        if any(self._bound_to_block(entry.pending) for entry in self._entries.values()):
            raise RuntimeError("a batch bound to its block is still running from an earlier block")
        writes: dict[str, bytes | None] = {}
        read = layered_reader((writes, self._overlay), self._read_committed)
        receipts = []
        for txn, header in zip(pending.batch.transactions, pending.headers, strict=True):
            context = TxnContext(header.inputs, header.outputs, read)
            execute(txn, header, context)
            writes.update(context.writes)
            receipts.append(context.receipt(txn.header_signature))
        self._overlay.update(writes)
        self._opener = (pending, receipts)

    async def settle(self, timeout: float) -> None:
        """Wait until every scheduled batch has finished, or for ``timeout`` seconds."""
        unfinished = [entry.done for entry in self._entries.values() if not entry.done.done()]
        if unfinished:
            await asyncio.wait(unfinished, timeout=max(timeout, 0.0))

    def cut(self, now: float = 0.0) -> BlockResult:
        """Take every finished batch out of the schedule, in arrival order, with the state they wrote.

        The block's opener comes first. A running batch that waits for a deferred one is
        deferred now too (it would be at its next step), so both go back to the queue in
        their order; so is one bound to its block (``now`` dates that cut-off). Without
        any other valid batch there is no block: the opener and its writes are dropped
        (the next block opens afresh).
        """
        result = BlockResult()
        taken: set[int] = set()
        for key, entry in self._entries.items():
            if not entry.done.done():
                bound = self._bound_to_block(entry.pending)
                if not (bound or any(earlier.deferred for earlier in entry.waits)):
                    continue
                entry.done.set_result(self._cut_off(entry, now) if bound else None)
                if entry.task is not None:
                    entry.task.cancel()
            taken.add(key)
            outcome = entry.done.result()
            if outcome is None:
                result.deferred.append(entry.pending)
            elif outcome.receipts is not None:
                result.valid.append((entry.pending, outcome.receipts))
            else:
                result.invalid.append((entry.pending, outcome.invalid))
        for key in taken:
            del self._entries[key]
        self._planner.forget(taken)
        if result.valid:
            if self._opener is not None:
                result.valid.insert(0, self._opener)
            result.changes = dict(self._overlay)
        self._opener = None
        self._overlay.clear()
        return result

    def _cut_off(self, entry: _Entry, now: float) -> _Outcome | None:
        """A batch bound to its block, unfinished at a cut: deferred (None), or INVALID once that went on too long."""
        pending = entry.pending
        if pending.cut_off_since is None:
            pending.cut_off_since = now
        if now - pending.cut_off_since < self._cut_off_limit:
            self._log_limiter.log(  # as many a block as clients send slow BlockInfo readers: one line and a count
                LOG, "cut off", logging.INFO,
                "batch %s reads what opens each block and is unfinished at a cut: it runs again in the next block",
                pending.batch_id[:16],
            )  # fmt: skip
            return None
        header = pending.headers[entry.position]
        doing = (
            f"{header.family_name} {header.family_version} was processing its transaction {entry.position}"
            if entry.started
            else "it was waiting for an earlier batch it conflicts with"
        )
        reason = (
            f"the batch did not finish within one block in {duration(self._cut_off_limit)} of trying; it reads"
            f" BlockInfo, so it must finish in the block it starts in (last: {doing})"
        )
        return _Outcome(invalid=(InvalidTransactionInfo(pending.txn_ids[entry.position], reason, b""),))

    async def close(self) -> None:
        """Stop every running batch (the ledger is stopping; they stay pending)."""
        tasks = [entry.task for entry in self._entries.values() if entry.task is not None]
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        self._entries.clear()
        self._log_limiter.flush()

    async def _run(self, entry: _Entry) -> None:
        outcome: _Outcome | None = None
        try:
            for earlier in entry.waits:
                await asyncio.shield(earlier.done)
            if not any(earlier.deferred for earlier in entry.waits) and all(
                _succeeded(required) for required in entry.requires_valid
            ):
                entry.started = True
                outcome = await self._run_batch(entry)
        except _Deferred:
            outcome = None
        except Exception:
            LOG.exception("executing batch %s failed; it stays pending", entry.pending.batch_id)
            outcome = None
        finally:
            if not entry.done.done():
                entry.done.set_result(outcome)

    async def _run_batch(self, entry: _Entry) -> _Outcome:
        pending = entry.pending
        batch_writes: dict[str, bytes | None] = {}
        read = layered_reader((batch_writes, self._overlay), self._read_committed)
        receipts = []
        for position, (txn, header) in enumerate(zip(pending.batch.transactions, pending.headers, strict=True)):
            entry.position = position
            context = await self._run_transaction(pending, txn, header, read)
            if isinstance(context, InvalidTransactionInfo):
                return _Outcome(invalid=(context,))
            batch_writes.update(context.writes)
            receipts.append(context.receipt(txn.header_signature))
        self._overlay.update(batch_writes)
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
            self._log_limiter.log(
                LOG, "attempt-failed", logging.WARNING, "transaction %s (%s %s): attempt %d failed: %s",
                txn.header_signature[:16], header.family_name, header.family_version, pending.failures, reason,
            )  # fmt: skip
            if pending.failures >= self._max_attempts:
                return InvalidTransactionInfo(
                    txn.header_signature,
                    f"transaction processor failed: {header.family_name} {header.family_version} could not process"
                    f" this transaction in {pending.failures} attempts (last: {reason})",
                    b"",
                )
            await asyncio.sleep(min(self._retry_delay * 2 ** (pending.failures - 1), _MAX_RETRY_DELAY))


def _succeeded(entry: _Entry) -> bool:
    outcome = entry.done.result()
    return outcome is not None and outcome.receipts is not None


def _internal_error(response: TpProcessResponse) -> str:
    detail = f": {response.message}" if response.message else ""
    if response.status == TpProcessResponse.INTERNAL_ERROR:
        return f"processor reported an internal error{detail}"
    return f"processor answered with an unknown status {response.status}{detail}"
