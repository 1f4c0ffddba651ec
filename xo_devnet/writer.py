"""The ledger's one line of storage writes: submission records and blocks, in the order handed in.

With a data directory the writes run on one dedicated thread, so the event loop never
waits for SQLite's write lock or a block's fsync, and since the line is first in,
first out, no block can be written before the record of a batch it holds.

The first write that fails stops the line for good; every later one is refused. Blocks
are pipelined, so when block N's write fails, block N+1 (executed on top of N's state,
its Merkle nodes pointing at N's) may already be queued behind it: writing it would
leave a gap in the chain and a head whose state cannot be read. Likewise no block may
hold a batch whose record failed (its client was told it was refused). A restart
resumes from the last block written, with every recorded batch still pending.

Records are written without an fsync (see ``storage``); the next block commit fsyncs
them. A ledger without a processor commits no blocks, so ``sync_records`` checkpoints
records no block has fsync'd within ``sync_interval`` seconds, bounding the window in
which a power loss could drop an accepted batch. An in-memory ledger writes inline
and records nothing.
"""

from __future__ import annotations

import asyncio
import functools
import logging
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor

from xo_core.protobuf.batch_pb2 import Batch
from xo_devnet.storage import CommitRecord, Storage, StorageError

LOG = logging.getLogger(__name__)


class StorageWriter:
    """Serialises the ledger's writes to one ``Storage`` and stops at the first failure."""

    def __init__(self, storage: Storage, *, persistent: bool, sync_interval: float) -> None:
        self._storage = storage
        self._thread = ThreadPoolExecutor(1, "xo-ledger-writer") if persistent else None
        self._sync_interval = sync_interval
        self._failure: str | None = None
        """Set on the thread that ran the failing write, before its caller hears of it."""
        self._unsynced = False
        """Records written since the last fsync of the log (written on the writer thread only)."""

    def record(self, batches: Sequence[Batch]) -> asyncio.Future[None]:
        """Record accepted batches; the future completes once a crash of the process cannot lose them."""
        return self._submit(functools.partial(self._record, list(batches)))

    def commit(self, record: CommitRecord) -> asyncio.Future[None]:
        """Write a block (or a round of invalid statuses); the future completes once it is durable."""
        return self._submit(functools.partial(self._commit, record))

    async def sync_records(self) -> None:
        """Forever: fsync records that no block commit has fsync'd within ``sync_interval`` seconds."""
        if self._thread is None:
            return
        loop = asyncio.get_running_loop()
        while True:
            await asyncio.sleep(self._sync_interval)
            if self._unsynced:
                await loop.run_in_executor(self._thread, self._sync)

    def close(self) -> None:
        """Wait for the writes handed in so far; later ones are not accepted."""
        if self._thread is not None:
            self._thread.shutdown(wait=True)

    def _submit(self, write: Callable[[], None]) -> asyncio.Future[None]:
        loop = asyncio.get_running_loop()
        if self._thread is not None:
            return loop.run_in_executor(self._thread, self._guarded, write)
        done: asyncio.Future[None] = loop.create_future()
        try:
            self._guarded(write)
        except Exception as error:
            done.set_exception(error)
        else:
            done.set_result(None)
        return done

    def _guarded(self, write: Callable[[], None]) -> None:
        """On the writer thread: run one write unless an earlier one failed; a failure stops the line."""
        if self._failure is not None:
            raise StorageError(f"storage refused the write: an earlier one failed ({self._failure})")
        try:
            write()
        except Exception as error:
            self._failure = str(error) or repr(error)
            raise

    def _record(self, batches: list[Batch]) -> None:
        self._storage.add_pending(batches)
        self._unsynced = self._unsynced or bool(batches)

    def _commit(self, record: CommitRecord) -> None:
        self._storage.commit(record)
        self._unsynced = False  # a commit fsyncs the log, and with it every record before it

    def _sync(self) -> None:
        if not self._unsynced:
            return
        try:
            synced = self._storage.sync_pending()
        except StorageError as error:
            LOG.error("could not fsync the accepted batches' records (retrying): %s", error)
            return
        self._unsynced = not synced
