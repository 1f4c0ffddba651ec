"""Accepted batches that nothing durable has decided yet: admission, arrival order, statuses, waiting.

A submission is admitted whole or refused (capacity, duplicate batch or transaction
ids, pending or committed). An admitted batch is PENDING until ``decide`` is called for
it, once storage holds the block or the invalid status that decides it. The queue is
the order batches are offered to blocks in, their arrival order: a batch taken for
execution leaves it and comes back to its front if it is deferred.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import OrderedDict
from collections.abc import Iterable, Sequence

from xo_core.protobuf.batch_pb2 import Batch
from xo_devnet.scheduler import PendingBatch
from xo_devnet.status import COMMITTED, INVALID, PENDING, UNKNOWN, BatchStatus
from xo_devnet.storage import Storage


class QueueFull(Exception):
    """The pending queue cannot take the submitted batches (REST: 429, code 31)."""


class DuplicateBatch(Exception):
    """A submitted batch or transaction id is already pending or committed (REST: 400, code 30)."""


class PendingBatches:
    """The accepted, undecided batches, and the queue of those not executing."""

    def __init__(self, storage: Storage, *, capacity: int) -> None:
        self._storage = storage
        self._capacity = capacity
        self._pending: dict[str, PendingBatch] = {}
        self._queue: OrderedDict[str, PendingBatch] = OrderedDict()
        self._txns: set[str] = set()
        self._changed = asyncio.Event()
        self._closed = False

    def admit(self, batches: Sequence[Batch]) -> list[PendingBatch]:
        """Queue a whole submission, or raise QueueFull or DuplicateBatch and queue none of it."""
        if len(self._pending) + len(batches) > self._capacity:
            raise QueueFull(f"{len(self._pending)} batches are pending (at most {self._capacity}); retry later")
        parsed = [PendingBatch.parse(batch) for batch in batches]
        seen_batches: set[str] = set()
        seen_txns: set[str] = set()
        for pending in parsed:
            if pending.batch_id in seen_batches or self._known_batch(pending.batch_id):
                raise DuplicateBatch(f"batch {pending.batch_id} is already pending or committed")
            seen_batches.add(pending.batch_id)
            for txn_id in pending.txn_ids:
                if txn_id in seen_txns or self._known_transaction(txn_id):
                    raise DuplicateBatch(f"transaction {txn_id} is already pending or committed")
                seen_txns.add(txn_id)
        self.restore(parsed)
        return parsed

    def restore(self, parsed: Sequence[PendingBatch]) -> None:
        """Queue batches accepted earlier (recorded before a restart), behind those already queued."""
        for pending in parsed:
            self._pending[pending.batch_id] = pending
            self._queue[pending.batch_id] = pending
            self._txns.update(pending.txn_ids)

    def withdraw(self, parsed: Sequence[PendingBatch]) -> None:
        """Forget a submission that could not be recorded: its client is told it was refused."""
        for pending in parsed:
            self._queue.pop(pending.batch_id, None)
            self._forget(pending)
        self.notify()

    def queued(self) -> Iterable[PendingBatch]:
        """The batches waiting to execute, in queue order."""
        return self._queue.values()

    def has_queued(self) -> bool:
        return bool(self._queue)

    def take(self, chosen: Iterable[PendingBatch]) -> None:
        """Remove batches from the queue for execution; they stay PENDING."""
        for pending in chosen:
            del self._queue[pending.batch_id]

    def requeue(self, deferred: Sequence[PendingBatch]) -> None:
        """Put deferred batches back at the front, in their order."""
        for pending in reversed(deferred):
            self._queue[pending.batch_id] = pending
            self._queue.move_to_end(pending.batch_id, last=False)

    def decide(self, decided: Iterable[PendingBatch]) -> None:
        """Storage now holds these batches' fate: they are no longer PENDING."""
        for pending in decided:
            self._forget(pending)

    def statuses(self, batch_ids: Sequence[str]) -> list[BatchStatus]:
        """Current status of each id, in the order asked."""
        return [self._status(batch_id) for batch_id in batch_ids]

    async def wait(self, batch_ids: Sequence[str], timeout: float) -> list[BatchStatus]:
        """Statuses as soon as none is PENDING (or on ``close``), or whatever they are at ``timeout`` seconds."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + max(timeout, 0.0)
        while any(batch_id in self._pending for batch_id in batch_ids) and not self._closed:
            remaining = deadline - loop.time()
            if remaining <= 0:
                break
            changed = self._changed
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(changed.wait(), remaining)
        return self.statuses(batch_ids)

    def notify(self) -> None:
        """Wake the waiters: statuses changed."""
        self._changed.set()
        self._changed = asyncio.Event()

    def close(self) -> None:
        """Release every waiter with the statuses as they stand (the ledger is stopping)."""
        self._closed = True
        self.notify()

    def _status(self, batch_id: str) -> BatchStatus:
        if batch_id in self._pending:
            return BatchStatus(batch_id, PENDING)
        if self._storage.has_batch(batch_id):
            return BatchStatus(batch_id, COMMITTED)
        invalid = self._storage.invalid(batch_id)
        if invalid is not None:
            return BatchStatus(batch_id, INVALID, invalid)
        return BatchStatus(batch_id, UNKNOWN)

    def _known_batch(self, batch_id: str) -> bool:
        return batch_id in self._pending or self._storage.has_batch(batch_id)

    def _known_transaction(self, txn_id: str) -> bool:
        return txn_id in self._txns or self._storage.has_transaction(txn_id)

    def _forget(self, pending: PendingBatch) -> None:
        self._pending.pop(pending.batch_id, None)
        self._txns.difference_update(pending.txn_ids)
