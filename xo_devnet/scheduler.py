"""Which pending batches run next, and which of the running ones may run side by side.

Pure decisions, no I/O. The chain must read as if every batch had run one after
another in arrival order; batches may still run concurrently when they cannot observe
each other: one waits for an earlier one only if one writes what the other reads or
writes. A transaction may declare a prefix (a namespace, BlockInfo's ``00b10c00``)
instead of a full address; a declared prefix covers every address under it, so two
declarations meet when one is a prefix of the other (``address_index``). Reading a
prefix therefore orders a batch only against the writers under it, and writing one
against everything that reads or writes under it: an rps move, which reads BlockInfo's
prefix, runs beside every other rps or XO move that shares no game with it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from xo_core.protobuf.batch_pb2 import Batch
from xo_core.protobuf.transaction_pb2 import TransactionHeader
from xo_devnet.address_index import AddressIndex
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
    cut_off_since: float | None = None
    """When it was first found unfinished at a cut and deferred for it (see ``executor``), in this run of them."""
    reads: frozenset[str] = field(init=False)
    writes: frozenset[str] = field(init=False)

    def __post_init__(self) -> None:
        self.reads = frozenset(address for header in self.headers for address in header.inputs)
        self.writes = frozenset(address for header in self.headers for address in header.outputs)

    def touches(self, prefix: str) -> bool:
        """Whether one of its inputs or outputs overlaps ``prefix`` (one is a prefix of the other)."""
        return any(
            address.startswith(prefix) or prefix.startswith(address) for address in self.reads | self.writes
        )

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
        self._reads: AddressIndex[None] = AddressIndex()
        self._writes: AddressIndex[None] = AddressIndex()

    def add(self, pending: PendingBatch) -> None:
        for address in pending.reads:
            self._reads.add(address, None)
        for address in pending.writes:
            self._writes.add(address, None)

    def conflicts_with(self, pending: PendingBatch) -> bool:
        if not self._writes and not self._reads:
            return False
        return any(self._writes.overlaps(address) for address in pending.reads | pending.writes) or any(
            self._reads.overlaps(address) for address in pending.writes
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
    Classic read/write sets, by overlap of what they declare: a batch waits for every
    running writer of what it reads or writes, and a writer for every running reader
    of what it writes. A full address written anew hides its earlier writers and
    readers (the new writer already waits for them); a written prefix keeps them,
    which waits longer than needed at worst. Explicit transaction dependencies on a
    running batch add a wait and a validity requirement. Finished batches are
    ``forget``-ten: whatever is added later has nothing to wait for there.
    """

    def __init__(self) -> None:
        self._writers: AddressIndex[int] = AddressIndex()
        self._readers: AddressIndex[int] = AddressIndex()
        self._txn_owner: dict[str, int] = {}

    def __contains__(self, txn_id: str) -> bool:
        """Whether a transaction of a running batch has this id."""
        return txn_id in self._txn_owner

    def add(self, key: int, pending: PendingBatch) -> Constraints:
        needed = {
            self._txn_owner[dep] for header in pending.headers for dep in header.dependencies if dep in self._txn_owner
        }
        waits: set[int] = set(needed)
        for address in pending.reads | pending.writes:
            waits.update(self._writers.overlapping(address))
        for address in pending.writes:
            waits.update(self._readers.overlapping(address))
        for address in pending.reads - pending.writes:
            self._readers.add(address, key)
        for address in pending.writes:
            if len(address) == ADDRESS_LENGTH:
                self._writers.replace(address, key)
                self._readers.discard(address)
            else:
                self._writers.add(address, key)
        for txn_id in pending.txn_ids:
            self._txn_owner[txn_id] = key
        return Constraints(waits_for=tuple(sorted(waits)), requires_valid=tuple(sorted(needed)))

    def forget(self, keys: set[int]) -> None:
        """Drop finished batches; a finished batch never waits for a running one, so none is left dangling."""
        if not keys:
            return
        self._writers.forget(keys)
        self._readers.forget(keys)
        self._txn_owner = {txn_id: key for txn_id, key in self._txn_owner.items() if key not in keys}
