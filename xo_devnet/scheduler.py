"""Which pending batches go into the next block, and which of them may run side by side.

Pure decisions, no I/O. A block's outcome must equal executing its batches one after
another in arrival order; batches may still run concurrently when they cannot observe
each other: one waits for an earlier one only if one writes what the other reads or
writes. Addresses are compared exactly; a batch declaring a namespace (an input or
output shorter than a full address) is a barrier, run alone, which is always safe.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from xo_core.protobuf.batch_pb2 import Batch
from xo_core.protobuf.transaction_pb2 import TransactionHeader
from xo_devnet.merkle import ADDRESS_LENGTH


@dataclass(eq=False)
class PendingBatch:
    """A submitted batch with its transaction headers parsed once, and its failure count."""

    batch: Batch
    batch_id: str
    txn_ids: tuple[str, ...]
    headers: tuple[TransactionHeader, ...]
    failures: int = 0
    """Processor failures (crash, INTERNAL_ERROR, timeout) so far, across blocks."""
    reads: frozenset[str] = field(init=False)
    writes: frozenset[str] = field(init=False)

    def __post_init__(self) -> None:
        self.reads = frozenset(address for header in self.headers for address in header.inputs)
        self.writes = frozenset(address for header in self.headers for address in header.outputs)

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

    @property
    def is_barrier(self) -> bool:
        return any(len(address) != ADDRESS_LENGTH for address in self.reads | self.writes)


def select_batches(
    queue: Iterable[PendingBatch],
    *,
    txn_committed: Callable[[str], bool],
    served: Callable[[str, str], bool],
    limit: int,
) -> list[PendingBatch]:
    """The next block's batches, in queue order.

    A batch waits (is skipped, keeping its place) while a transaction depends on one
    neither committed nor earlier in this block, or while no processor serves one of
    its transactions' family and version.
    """
    chosen: list[PendingBatch] = []
    included: set[str] = set()
    for pending in queue:
        if len(chosen) >= limit:
            break
        if not all(served(header.family_name, header.family_version) for header in pending.headers):
            continue
        earlier = set(included)
        ready = True
        for txn_id, header in zip(pending.txn_ids, pending.headers, strict=True):
            if not all(dep in earlier or txn_committed(dep) for dep in header.dependencies):
                ready = False
                break
            earlier.add(txn_id)
        if ready:
            chosen.append(pending)
            included = earlier
    return chosen


@dataclass(frozen=True)
class BlockPlan:
    """For each batch of a block: the earlier batches it must wait for, and those that must be valid."""

    batches: list[PendingBatch]
    waits_for: list[tuple[int, ...]]
    requires_valid: list[tuple[int, ...]]


def plan_block(batches: list[PendingBatch]) -> BlockPlan:
    """Order constraints that keep concurrent execution equal to serial execution.

    Classic read/write sets per address: a writer waits for the last writer and the
    readers since; a reader waits for the last writer. Explicit transaction
    dependencies inside the block add a wait and a validity requirement.
    """
    last_writer: dict[str, int] = {}
    readers: dict[str, list[int]] = {}
    since_barrier: list[int] = []
    barrier: int | None = None
    txn_owner: dict[str, int] = {}
    waits_for: list[tuple[int, ...]] = []
    requires_valid: list[tuple[int, ...]] = []
    for index, pending in enumerate(batches):
        needed = {
            txn_owner[dep]
            for header in pending.headers
            for dep in header.dependencies
            if dep in txn_owner and txn_owner[dep] != index
        }
        waits: set[int] = set(needed)
        if pending.is_barrier:
            waits.update(since_barrier)
            if barrier is not None:
                waits.add(barrier)
            last_writer, readers, since_barrier, barrier = {}, {}, [], index
        else:
            if barrier is not None:
                waits.add(barrier)
            for address in pending.reads | pending.writes:
                if address in last_writer:
                    waits.add(last_writer[address])
            for address in pending.writes:
                waits.update(readers.get(address, ()))
            for address in pending.reads - pending.writes:
                readers.setdefault(address, []).append(index)
            for address in pending.writes:
                last_writer[address] = index
                readers[address] = []
            since_barrier.append(index)
        for txn_id in pending.txn_ids:
            txn_owner[txn_id] = index
        waits_for.append(tuple(sorted(waits)))
        requires_valid.append(tuple(sorted(needed)))
    return BlockPlan(batches=batches, waits_for=waits_for, requires_valid=requires_valid)
