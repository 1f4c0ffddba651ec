"""Accepted batches that nothing durable has decided yet: admission, arrival order, waits, statuses.

A submission is admitted whole or refused (room, duplicate batch or transaction ids,
pending or committed). An admitted batch is PENDING until ``decide`` is called for it,
once storage holds the block or the invalid status that decides it.

Where a pending batch is:

- in the queue, the batches offered to blocks, kept in arrival order; a batch taken
  for execution leaves it and returns to its place if it is deferred;
- parked on a dependency that is neither running nor committed: out of the queue, so
  that no pass over the queue pays for it, until a batch holding that transaction is
  taken for execution or leaves (then it returns to the queue), or until it has been
  parked for the dependency wait (``expired``: the ledger makes it INVALID);
- running (taken), or settling: expired, about to be decided INVALID.

Room. Batches that cannot run yet (waiting for a dependency that has not run, or for a
processor of their family) are counted apart: they may hold at most
``waiting_capacity`` places, and never count for more than that against the room of
the batches that can run, so a flood of batches that can never run (a dependency that
will never exist) cannot stop runnable batches from being accepted. Who submitted them
does not matter: keys are free to make and one machine's clients share one address, so
no identity a client shows would bound a hostile one; what they are, whether they can
run, does.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
from collections.abc import Iterable, Sequence

from xo_core.text import counted
from xo_devnet.scheduler import PendingBatch
from xo_devnet.status import COMMITTED, INVALID, PENDING, UNKNOWN, BatchStatus
from xo_devnet.storage import Storage


class QueueFull(Exception):
    """The pending queue cannot take the submitted batches (REST: 429, code 31)."""


class DuplicateBatch(Exception):
    """A submitted batch or transaction id is already pending or committed (REST: 400, code 30)."""


class PendingBatches:
    """The accepted, undecided batches: the queue, the parked ones, and the room they leave."""

    def __init__(self, storage: Storage, *, capacity: int, waiting_capacity: int) -> None:
        self._storage = storage
        self._capacity = capacity
        self._waiting_share = min(waiting_capacity, capacity)
        self._pending: dict[str, PendingBatch] = {}
        self._queue: dict[str, PendingBatch] = {}
        self._txns: dict[str, PendingBatch] = {}
        self._parked: dict[str, list[PendingBatch]] = {}
        self._clocks: dict[str, PendingBatch] = {}
        """Parked batches by batch id, in the order their dependency wait started (so, of their deadlines)."""
        self._waiting = 0
        self._arrivals = itertools.count()
        self._changed = asyncio.Event()
        self._closed = False

    def admit(self, parsed: Sequence[PendingBatch], waiting: Sequence[bool]) -> None:
        """Queue a whole submission, or raise QueueFull or DuplicateBatch and queue none of it.

        ``waiting[i]`` says whether ``parsed[i]`` cannot run yet (see the module docstring).
        """
        self._check_room(sum(waiting), len(parsed) - sum(waiting))
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
        for pending, cannot_run in zip(parsed, waiting, strict=True):
            if cannot_run:
                self._count_waiting(pending)

    def _check_room(self, waiting: int, runnable: int) -> None:
        share = self._waiting_share
        if waiting and self._waiting + waiting > share:
            raise QueueFull(
                f"{counted(self._waiting, 'batch', 'batches')} that cannot run yet (waiting for a dependency or for a"
                f" processor) pending and {waiting} more in this submission would be over the {share} places the"
                " queue keeps for such batches; submit what they depend on first, or retry later"
            )
        runnable_now = len(self._pending) - self._waiting
        if runnable_now + runnable + min(self._waiting + waiting, share) > self._capacity:
            raise QueueFull(f"{len(self._pending)} batches are pending (at most {self._capacity}); retry later")

    def restore(self, parsed: Sequence[PendingBatch]) -> None:
        """Queue batches accepted earlier (recorded before a restart), behind those already queued."""
        for pending in parsed:
            pending.arrival = next(self._arrivals)
            self._pending[pending.batch_id] = pending
            self._queue[pending.batch_id] = pending
            for txn_id in pending.txn_ids:
                self._txns[txn_id] = pending

    def withdraw(self, parsed: Sequence[PendingBatch]) -> None:
        """Forget a submission that could not be recorded: its client is told it was refused."""
        for pending in parsed:
            self._forget(pending)
        self.notify()

    @property
    def count(self) -> int:
        """Batches accepted and not decided yet: queued, parked on a dependency, or executing."""
        return len(self._pending)

    @property
    def capacity(self) -> int:
        """The most batches that may be pending at once; past it a submission is refused as busy."""
        return self._capacity

    @property
    def waiting_count(self) -> int:
        """Pending batches that cannot run yet (a dependency not run, no processor for their family)."""
        return self._waiting

    @property
    def waiting_capacity(self) -> int:
        """The places such batches may hold at most."""
        return self._waiting_share

    def queued(self) -> Iterable[PendingBatch]:
        """The batches waiting to execute, in queue order."""
        return self._queue.values()

    def has_queued(self) -> bool:
        return bool(self._queue)

    def take(self, chosen: Iterable[PendingBatch]) -> None:
        """Remove batches from the queue for execution; they stay PENDING, and what was parked on them returns."""
        released: list[PendingBatch] = []
        for pending in chosen:
            del self._queue[pending.batch_id]
            self._uncount_waiting(pending)
            pending.unserved_since = None
            for txn_id in pending.txn_ids:
                released.extend(self._unpark(txn_id))
        self._enqueue(released)

    def requeue(self, deferred: Sequence[PendingBatch]) -> None:
        """Put deferred batches back in the queue, at their places in arrival order."""
        self._enqueue(deferred)

    def park(self, pending: PendingBatch, dependency: str, now: float) -> None:
        """Take a batch out of the queue until ``dependency`` runs (or leaves), starting its dependency wait."""
        del self._queue[pending.batch_id]
        pending.missing = dependency
        if pending.missing_since is None:
            pending.missing_since = now
        self._parked.setdefault(dependency, []).append(pending)
        self._clocks[pending.batch_id] = pending
        self._count_waiting(pending)

    def mark_unserved(self, pending: PendingBatch, now: float) -> float:
        """Note that no processor serves a queued batch; returns since when that has been so."""
        self._count_waiting(pending)
        if pending.unserved_since is None:
            pending.unserved_since = now
        return pending.unserved_since

    def expired(self, deadline: float) -> list[tuple[PendingBatch, str]]:
        """The parked batches whose dependency wait started at or before ``deadline``, with that dependency.

        They leave the parking and settle: the caller decides them INVALID.
        """
        found = []
        for pending in self._clocks.values():
            if pending.missing is None or pending.missing_since is None or pending.missing_since > deadline:
                break
            found.append((pending, pending.missing))
        for pending, _ in found:
            self._unpark_one(pending)
        return found

    def next_wait_start(self) -> float | None:
        """When the oldest running dependency wait started (it ends first), or None."""
        oldest = next(iter(self._clocks.values()), None)
        return None if oldest is None else oldest.missing_since

    def settle(self, batches: Iterable[PendingBatch]) -> None:
        """Take queued batches out of the queue: they are about to be decided INVALID."""
        for pending in batches:
            self._queue.pop(pending.batch_id, None)

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

    def _enqueue(self, batches: Sequence[PendingBatch]) -> None:
        """Put batches into the queue at their places in arrival order."""
        if not batches:
            return
        ordered = sorted(batches, key=_arrival)
        last = next(reversed(self._queue.values()), None)
        if last is None or last.arrival < ordered[0].arrival:
            self._queue.update((pending.batch_id, pending) for pending in ordered)
            return
        merged = sorted([*self._queue.values(), *ordered], key=_arrival)
        self._queue = {pending.batch_id: pending for pending in merged}

    def _unpark(self, txn_id: str) -> list[PendingBatch]:
        """The batches parked on ``txn_id``, out of the parking; their dependency wait ends."""
        released = self._parked.pop(txn_id, [])
        for pending in released:
            self._clocks.pop(pending.batch_id, None)
            pending.missing = pending.missing_since = None
        return released

    def _unpark_one(self, pending: PendingBatch) -> None:
        self._clocks.pop(pending.batch_id, None)
        if pending.missing is not None:
            parked = self._parked.get(pending.missing, [])
            with contextlib.suppress(ValueError):
                parked.remove(pending)
            if not parked:
                self._parked.pop(pending.missing, None)
        pending.missing = pending.missing_since = None

    def _count_waiting(self, pending: PendingBatch) -> None:
        if not pending.waiting:
            pending.waiting = True
            self._waiting += 1

    def _uncount_waiting(self, pending: PendingBatch) -> None:
        if pending.waiting:
            pending.waiting = False
            self._waiting -= 1

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
        """It leaves for good: whatever was parked on its transactions returns to the queue."""
        if self._pending.pop(pending.batch_id, None) is None:
            return
        self._queue.pop(pending.batch_id, None)
        self._unpark_one(pending)
        self._uncount_waiting(pending)
        released: list[PendingBatch] = []
        for txn_id in pending.txn_ids:
            self._txns.pop(txn_id, None)
            released.extend(self._unpark(txn_id))
        self._enqueue([batch for batch in released if batch.batch_id in self._pending])


def _arrival(pending: PendingBatch) -> int:
    return pending.arrival
