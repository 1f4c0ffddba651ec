"""Which pending batches run next, and which of the running ones may run side by side.

Pure decisions, no I/O. The chain must read as if every batch had run one after
another in arrival order; batches may still run concurrently when they cannot observe
each other: one waits for an earlier one only if one writes what the other reads or
writes. Addresses are compared exactly; a batch declaring a namespace (an input or
output shorter than a full address) is a barrier, ordered against everything, which is
always safe.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from xo_core.protobuf.batch_pb2 import Batch
from xo_core.protobuf.transaction_pb2 import TransactionHeader
from xo_devnet.merkle import ADDRESS_LENGTH


@dataclass(eq=False)
class PendingBatch:
    """A submitted batch with its transaction headers parsed once, and what the queue knows of its wait."""

    batch: Batch
    batch_id: str
    txn_ids: tuple[str, ...]
    headers: tuple[TransactionHeader, ...]
    failures: int = 0
    """Processor failures (crash, INTERNAL_ERROR, timeout) so far, across blocks."""
    arrival: int = 0
    """Its place in arrival order (set by the queue); the queue is kept in this order."""
    waiting: bool = False
    """Counted among the batches that cannot run yet (see ``pending``)."""
    unserved_since: float | None = None
    """When it was first seen waiting for a processor of its family, in this wait."""
    missing: str | None = None
    """The dependency it is parked on (not running, not committed), if it is parked."""
    missing_since: float | None = None
    """When it started waiting for ``missing`` to arrive (None once it is pending here)."""
    reads: frozenset[str] = field(init=False)
    writes: frozenset[str] = field(init=False)
    is_barrier: bool = field(init=False)

    def __post_init__(self) -> None:
        self.reads = frozenset(address for header in self.headers for address in header.inputs)
        self.writes = frozenset(address for header in self.headers for address in header.outputs)
        self.is_barrier = any(len(address) != ADDRESS_LENGTH for address in self.reads | self.writes)

    @classmethod
    def parse(cls, batch: Batch) -> PendingBatch:
        """Parse the transaction headers; ValueError if one is not a TransactionHeader."""
        headers = []
        for txn in batch.transactions:
            try:
                headers.append(TransactionHeader.FromString(txn.header))
            except Exception as error:  # protobuf raises DecodeError, a bare Exception subclass
                raise ValueError(f"transaction {txn.header_signature} has an unreadable header: {error}") from None
        return cls(
            batch=batch,
            batch_id=batch.header_signature,
            txn_ids=tuple(txn.header_signature for txn in batch.transactions),
            headers=tuple(headers),
        )


class _Footprint:
    """What a set of batches reads and writes, to tell whether a later batch could observe one of them."""

    def __init__(self) -> None:
        self._reads: set[str] = set()
        self._writes: set[str] = set()
        self._barrier = False
        self._empty = True

    def add(self, pending: PendingBatch) -> None:
        self._reads.update(pending.reads)
        self._writes.update(pending.writes)
        self._barrier = self._barrier or pending.is_barrier
        self._empty = False

    def conflicts_with(self, pending: PendingBatch) -> bool:
        if self._empty:
            return False
        if self._barrier or pending.is_barrier:
            return True
        return not (
            pending.writes.isdisjoint(self._writes)
            and pending.writes.isdisjoint(self._reads)
            and pending.reads.isdisjoint(self._writes)
        )


@dataclass
class Selection:
    """What one pass over the queue found: the batches to run now, and those that must wait and why."""

    chosen: list[PendingBatch] = field(default_factory=list)
    unserved: list[PendingBatch] = field(default_factory=list)
    """Waiting for a processor of one of their transactions' family and version."""
    missing: list[tuple[PendingBatch, str]] = field(default_factory=list)
    """Waiting for a dependency that is neither running nor committed: (batch, the first such dependency)."""


def select_batches(
    queue: Iterable[PendingBatch],
    *,
    available: Callable[[str], bool],
    served: Callable[[str, str], bool],
    limit: int,
) -> Selection:
    """The next batches to run, in queue order, and those that wait; linear in the queue's transactions.

    A batch waits (is skipped, keeping its place) while a transaction depends on one
    that is neither ``available`` (committed, or already running) nor earlier in this
    selection, or while no processor serves one of its transactions' family and
    version. A batch waiting for a processor also holds back every later batch that
    conflicts with it (or with one held back), so none overtakes it: they run in
    arrival order once a processor registers. A batch waiting for a dependency holds
    nothing back: its dependencies, not its arrival, decide when it runs.
    """
    selection = Selection()
    chosen_txns: set[str] = set()
    held = _Footprint()
    for pending in queue:
        if len(selection.chosen) >= limit:
            break
        if unserved_transaction(pending, served) is not None:
            held.add(pending)
            selection.unserved.append(pending)
        elif held.conflicts_with(pending):
            held.add(pending)
        elif (missing := missing_dependency(pending, chosen_txns, available)) is not None:
            selection.missing.append((pending, missing))
        else:
            selection.chosen.append(pending)
            chosen_txns.update(pending.txn_ids)
    return selection


def unserved_transaction(pending: PendingBatch, served: Callable[[str, str], bool]) -> int | None:
    """The position of the first transaction whose family and version no processor serves, or None."""
    for position, header in enumerate(pending.headers):
        if not served(header.family_name, header.family_version):
            return position
    return None


def missing_dependency(pending: PendingBatch, earlier: set[str], available: Callable[[str], bool]) -> str | None:
    """The first dependency that is not available, not in ``earlier`` and not earlier in its own batch, or None."""
    own: set[str] = set()
    for txn_id, header in zip(pending.txn_ids, pending.headers, strict=True):
        for dep in header.dependencies:
            if not (dep in own or dep in earlier or available(dep)):
                return dep
        own.add(txn_id)
    return None


@dataclass(frozen=True)
class Constraints:
    """The running batches one batch must wait for, and those of them that must end valid."""

    waits_for: tuple[int, ...]
    requires_valid: tuple[int, ...]


class Planner:
    """Order constraints that keep concurrent execution equal to serial execution.

    Batches are added in arrival order under increasing keys of the caller's choosing.
    Classic read/write sets per address: a writer waits for the last writer and the
    readers since; a reader waits for the last writer. Explicit transaction
    dependencies on a running batch add a wait and a validity requirement. Finished
    batches are ``forget``-ten: whatever is added later has nothing to wait for there.
    """

    def __init__(self) -> None:
        self._last_writer: dict[str, int] = {}
        self._readers: dict[str, list[int]] = {}
        self._since_barrier: list[int] = []
        self._barrier: int | None = None
        self._txn_owner: dict[str, int] = {}

    def __contains__(self, txn_id: str) -> bool:
        """Whether a transaction of a running batch has this id."""
        return txn_id in self._txn_owner

    def add(self, key: int, pending: PendingBatch) -> Constraints:
        needed = {
            self._txn_owner[dep] for header in pending.headers for dep in header.dependencies if dep in self._txn_owner
        }
        waits: set[int] = set(needed)
        if self._barrier is not None:
            waits.add(self._barrier)
        if pending.is_barrier:
            waits.update(self._since_barrier)
            self._last_writer, self._readers, self._since_barrier, self._barrier = {}, {}, [], key
        else:
            for address in pending.reads | pending.writes:
                if address in self._last_writer:
                    waits.add(self._last_writer[address])
            for address in pending.writes:
                waits.update(self._readers.get(address, ()))
            for address in pending.reads - pending.writes:
                self._readers.setdefault(address, []).append(key)
            for address in pending.writes:
                self._last_writer[address] = key
                self._readers[address] = []
            self._since_barrier.append(key)
        for txn_id in pending.txn_ids:
            self._txn_owner[txn_id] = key
        return Constraints(waits_for=tuple(sorted(waits)), requires_valid=tuple(sorted(needed)))

    def forget(self, keys: set[int]) -> None:
        """Drop finished batches; a finished batch never waits for a running one, so none is left dangling."""
        if not keys:
            return
        self._last_writer = {address: key for address, key in self._last_writer.items() if key not in keys}
        self._readers = {
            address: kept
            for address, readers in self._readers.items()
            if (kept := [key for key in readers if key not in keys])
        }
        self._since_barrier = [key for key in self._since_barrier if key not in keys]
        if self._barrier in keys:
            self._barrier = None
        self._txn_owner = {txn_id: key for txn_id, key in self._txn_owner.items() if key not in keys}
