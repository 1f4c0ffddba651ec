"""The ledger facade: the one object the REST API and the `xo-devnet` command talk to.

It owns the pending queue and the block loop: take the ready batches, execute them
(``executor``), fold their writes into the Merkle tree, sign a block (``chain``) and
hand it to storage. Blocks are pipelined: block N+1 executes on top of block N's
state while N is being written, but a batch is reported COMMITTED only once the
block holding it is durable, and reads (chain head, blocks, state) only ever see
durable blocks. Everything runs on one asyncio loop; only the storage commits of a
data-directory ledger run on a dedicated writer thread.

A data-directory ledger also records each submission in storage before it
acknowledges it, and re-queues those records on start, so a batch the REST API
answered 202 for is decided even if the process is killed before any block holds it.
The record is written by the writer thread, in the same first-in-first-out line as
the blocks: a batch is queued for execution at once, yet no block holding it can be
written before its record, and the event loop never waits for a block's write lock.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import re
from collections import OrderedDict, deque
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import zmq

from xo_core.protobuf.batch_pb2 import Batch
from xo_core.protobuf.block_pb2 import Block, BlockHeader
from xo_core.protobuf.transaction_pb2 import Transaction
from xo_core.protobuf.transaction_receipt_pb2 import TransactionReceipt
from xo_core.signing import InvalidKey, Signer
from xo_devnet.chain import build_block, genesis_block, header_of
from xo_devnet.component import ComponentSocket
from xo_devnet.dispatcher import Dispatcher
from xo_devnet.executor import BlockExecutor, BlockResult
from xo_devnet.merkle import (
    ADDRESS_PATTERN,
    EMPTY_NODE,
    EMPTY_ROOT,
    PREFIX_PATTERN,
    CorruptState,
    MerkleTree,
    MissingNode,
    NodeKey,
)
from xo_devnet.scheduler import PendingBatch, plan_block, select_batches
from xo_devnet.status import COMMITTED, INVALID, PENDING, UNKNOWN, BatchStatus, InvalidTransactionInfo
from xo_devnet.storage import CommitRecord, Storage, StorageError

__all__ = [
    "BatchStatus",
    "DuplicateBatch",
    "InvalidTransactionInfo",
    "Ledger",
    "LedgerConfig",
    "LedgerError",
    "QueueFull",
]

LOG = logging.getLogger(__name__)

_NODE_KEY = "node_private_key"
_HASH = re.compile(r"[0-9a-f]{64}")
_COMMIT_PIPELINE_DEPTH = 2


@dataclass(frozen=True)
class LedgerConfig:
    """How to run a ledger; `data_dir=None` keeps everything in memory (ephemeral)."""

    data_dir: Path | None
    component_endpoint: str = "tcp://127.0.0.1:4004"
    block_interval: float = 0.05
    """Seconds between the starts of two blocks while batches are pending."""
    max_pending_batches: int = 10_000
    max_batches_per_block: int = 1_000
    ping_interval: float = 1.0
    """A processor silent this long is pinged..."""
    ping_timeout: float = 5.0
    """...and dropped (its work re-sent) if it does not answer within this."""
    process_timeout: float = 30.0
    """An unanswered TP_PROCESS_REQUEST counts as a failed attempt after this long."""
    max_attempts: int = 5
    """Processor failures (crash, INTERNAL_ERROR, timeout) before a batch is INVALID."""
    retry_delay: float = 0.05
    """First back-off after a failure; doubles per failure, capped at one second."""


class LedgerError(Exception):
    """The ledger cannot start: data directory locked or corrupt, endpoint not bindable."""


class QueueFull(Exception):
    """The pending queue cannot take the submitted batches (REST: 429, code 31)."""


class DuplicateBatch(Exception):
    """A submitted batch or transaction id is already pending or committed (REST: 400, code 30)."""


class _Nodes:
    """Merkle nodes: those of blocks not yet durable, then storage."""

    def __init__(self, storage: Storage) -> None:
        self._storage = storage
        self.unsaved: dict[NodeKey, bytes] = {}

    def node_bytes(self, key: NodeKey) -> bytes | None:
        return self.unsaved.get(key) or self._storage.node_bytes(key)

    def node_bytes_many(self, keys: Iterable[NodeKey]) -> dict[NodeKey, bytes]:
        wanted = list(keys)
        found = self._storage.node_bytes_many(key for key in wanted if key not in self.unsaved)
        found.update((key, self.unsaved[key]) for key in wanted if key in self.unsaved)
        return found


class Ledger:
    """A single-node Sawtooth-compatible ledger."""

    def __init__(self, config: LedgerConfig, storage: Storage, signer: Signer, head: Block) -> None:
        self._config = config
        self._storage = storage
        self._signer = signer
        self._nodes = _Nodes(storage)
        self._tree = MerkleTree(self._nodes)
        self._head = head
        self._head_header = header_of(head)
        self._exec_block_id = head.header_signature
        self._exec_num = self._head_header.block_num
        self._exec_root = self._head_header.state_root_hash
        self._pending: dict[str, PendingBatch] = {}
        self._queue: OrderedDict[str, PendingBatch] = OrderedDict()
        self._pending_txns: set[str] = set()
        self._executed_txns: set[str] = set()
        self._wake = asyncio.Event()
        self._status_changed = asyncio.Event()
        self._commits: deque[asyncio.Future[None]] = deque()
        self._writer = ThreadPoolExecutor(1, "xo-ledger-writer") if config.data_dir is not None else None
        self._failure: str | None = None
        self._record_failed = False
        self._stopped = False
        self._last_block_at = float("-inf")
        self._dispatcher = Dispatcher(
            self._send,
            ping_interval=config.ping_interval,
            ping_timeout=config.ping_timeout,
            process_timeout=config.process_timeout,
            on_processors_changed=self._wake.set,
        )
        self._socket = ComponentSocket(self._dispatcher.handle)
        self._executor = BlockExecutor(
            self._dispatcher, max_attempts=config.max_attempts, retry_delay=config.retry_delay
        )
        self._tasks: list[asyncio.Task[None]] = []

    def _send(self, identity: bytes, message_type: int, content: bytes, correlation_id: str) -> bool:
        return self._socket.send(identity, message_type, content, correlation_id)

    @classmethod
    async def start(cls, config: LedgerConfig) -> Ledger:
        """Open (or recover) storage, create genesis if new, bind the ROUTER, start producing blocks.

        Must be awaited inside a running asyncio loop; the head's state root is re-verified on open.
        Raises LedgerError when the data directory or the endpoint cannot be used.
        """
        try:
            storage = Storage.open(config.data_dir)
        except StorageError as error:
            raise LedgerError(str(error)) from None
        try:
            signer, head = _open_chain(storage)
            ledger = cls(config, storage, signer, head)
            ledger._verify_head()
            ledger._restore_pending()
            try:
                ledger._socket.bind(config.component_endpoint)
            except zmq.ZMQError as error:
                ledger._socket.close()
                raise LedgerError(f"cannot bind the component endpoint {config.component_endpoint}: {error}") from None
        except BaseException:
            storage.close()
            raise
        ledger._tasks = [
            asyncio.create_task(ledger._produce(), name="xo-ledger-blocks"),
            asyncio.create_task(ledger._dispatcher.watch(), name="xo-ledger-liveness"),
        ]
        LOG.info(
            "ledger ready: head block %d %s, component endpoint %s",
            ledger._head_header.block_num,
            head.header_signature[:16],
            ledger.component_endpoint,
        )
        return ledger

    def _verify_head(self) -> None:
        root = self._head_header.state_root_hash
        try:
            leaves = self._tree.verify(root)
        except CorruptState as error:
            number = self._head_header.block_num
            raise LedgerError(f"the state of head block {number} does not verify: {error}") from None
        LOG.info("state root %s of block %d verified (%d entries)", root, self._head_header.block_num, leaves)

    def _restore_pending(self) -> None:
        """Re-queue the batches accepted before the last stop or crash, in arrival order, ahead of new ones."""
        try:
            restored = [PendingBatch.parse(batch) for batch in self._storage.pending_batches()]
        except (StorageError, ValueError) as error:
            raise LedgerError(f"the stored pending batches cannot be re-queued: {error}") from None
        self._enqueue(restored)
        if restored:
            LOG.info("re-queued %d batches accepted before the last stop", len(restored))

    async def stop(self) -> None:
        """Stop block production and the endpoint; storage is left consistent and closed."""
        if self._stopped:
            return
        self._stopped = True
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        while self._commits:
            with contextlib.suppress(Exception):
                await self._commits.popleft()
        self._dispatcher.close()
        self._socket.close()
        if self._writer is not None:
            self._writer.shutdown(wait=True)
        self._storage.close()
        self._notify()
        LOG.info("ledger stopped at block %d", self._head_header.block_num)

    @property
    def component_endpoint(self) -> str:
        """The endpoint actually bound (a `:0` port resolved to the real one)."""
        return self._socket.endpoint

    @property
    def node_public_key(self) -> str:
        """The hex compressed public key that signs this node's blocks."""
        return self._signer.public_key

    # Submitting and following batches.

    def submit(self, batches: Sequence[Batch]) -> asyncio.Future[None]:
        """Take already-validated batches, all or nothing; raises QueueFull or DuplicateBatch at once.

        They are PENDING and queued from now on. The returned future completes once a
        crash can no longer lose them: at once in memory; with a data directory once
        storage has recorded them (one write, no fsync). It fails with QueueFull if they
        cannot be recorded. Acknowledge a submission to its client only after awaiting it.
        """
        if self._stopped or self._failure is not None:
            raise QueueFull(f"the ledger is not accepting batches: {self._failure or 'it is stopping'}")
        if len(self._pending) + len(batches) > self._config.max_pending_batches:
            raise QueueFull(
                f"{len(self._pending)} batches are pending (at most {self._config.max_pending_batches}); retry later"
            )
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
        self._enqueue(parsed)
        loop = asyncio.get_running_loop()
        acknowledged = loop.create_future()
        if self._writer is None:
            acknowledged.set_result(None)
        else:
            recorded = loop.run_in_executor(self._writer, self._record, list(batches))
            recorded.add_done_callback(functools.partial(self._recorded, parsed, acknowledged))
        return acknowledged

    def _record(self, batches: list[Batch]) -> None:
        """On the writer thread: record one submission.

        After a failure no later block may be written (``_write`` refuses): one could
        hold these batches, whose client is told they were not accepted.
        """
        try:
            self._storage.add_pending(batches)
        except StorageError:
            self._record_failed = True
            raise

    def _recorded(
        self, parsed: list[PendingBatch], acknowledged: asyncio.Future[None], future: asyncio.Future[None]
    ) -> None:
        try:
            future.result()
        except Exception as error:
            self._halt(f"storage failed to record accepted batches: {error!r}")
            for pending in parsed:
                self._queue.pop(pending.batch_id, None)
                self._forget(pending)
            _settle(acknowledged, QueueFull(f"the ledger could not record the batches: {error}"))
            self._notify()
        else:
            _settle(acknowledged)

    def _enqueue(self, parsed: Sequence[PendingBatch]) -> None:
        for pending in parsed:
            self._pending[pending.batch_id] = pending
            self._queue[pending.batch_id] = pending
            self._pending_txns.update(pending.txn_ids)
        if parsed:
            self._wake.set()

    def _known_batch(self, batch_id: str) -> bool:
        return batch_id in self._pending or self._storage.has_batch(batch_id)

    def _known_transaction(self, txn_id: str) -> bool:
        return txn_id in self._pending_txns or self._storage.has_transaction(txn_id)

    def batch_statuses(self, batch_ids: Sequence[str]) -> list[BatchStatus]:
        """Current status of each id, in the order asked."""
        return [self._status(batch_id) for batch_id in batch_ids]

    def _status(self, batch_id: str) -> BatchStatus:
        if batch_id in self._pending:
            return BatchStatus(batch_id, PENDING)
        if self._storage.has_batch(batch_id):
            return BatchStatus(batch_id, COMMITTED)
        invalid = self._storage.invalid(batch_id)
        if invalid is not None:
            return BatchStatus(batch_id, INVALID, invalid)
        return BatchStatus(batch_id, UNKNOWN)

    async def wait_for_batches(self, batch_ids: Sequence[str], timeout: float) -> list[BatchStatus]:
        """Statuses as soon as none is PENDING, or whatever they are at `timeout` seconds."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + max(timeout, 0.0)
        while any(batch_id in self._pending for batch_id in batch_ids) and not self._stopped:
            remaining = deadline - loop.time()
            if remaining <= 0:
                break
            changed = self._status_changed
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(changed.wait(), remaining)
        return self.batch_statuses(batch_ids)

    def _notify(self) -> None:
        self._status_changed.set()
        self._status_changed = asyncio.Event()

    # Reading the chain (durable blocks only).

    def chain_head(self) -> Block:
        """The newest durable block (genesis on a new ledger)."""
        return self._head

    def block_by_id(self, block_id: str) -> Block | None:
        if block_id == self._head.header_signature:
            return self._head
        return self._storage.block_by_id(block_id)

    def block_by_num(self, block_num: int) -> Block | None:
        if block_num == self._head_header.block_num:
            return self._head
        if block_num > self._head_header.block_num:
            return None
        return self._storage.block_by_num(block_num)

    def batch_by_id(self, batch_id: str) -> Batch | None:
        """A committed batch (pending or invalid ones are not returned)."""
        return self._storage.batch(batch_id)

    def transaction_by_id(self, txn_id: str) -> Transaction | None:
        return self._storage.transaction(txn_id)

    def block_id_of_batch(self, batch_id: str) -> str | None:
        return self._storage.block_id_of_batch(batch_id)

    def block_id_of_transaction(self, txn_id: str) -> str | None:
        return self._storage.block_id_of_transaction(txn_id)

    def receipt(self, txn_id: str) -> TransactionReceipt | None:
        data = self._storage.receipt(txn_id)
        return None if data is None else TransactionReceipt.FromString(data)

    def state_root_of(self, block_id: str) -> str | None:
        if block_id == self._head.header_signature:
            return self._head_header.state_root_hash
        header = self._storage.block_header(block_id)
        return None if header is None else header.state_root_hash

    def state_get(self, address: str, state_root: str) -> bytes | None:
        """The value at `address` in the state with root `state_root`; None if absent or unknown."""
        if not ADDRESS_PATTERN.fullmatch(address) or not _HASH.fullmatch(state_root):
            return None
        try:
            return self._tree.get(state_root, address)
        except MissingNode:
            return None

    def state_list(
        self, prefix: str, state_root: str, start: str | None, limit: int
    ) -> tuple[list[tuple[str, bytes]], str | None]:
        """Entries under `prefix` in address order, from `start` (inclusive), at most `limit`.

        The second item is the `start` of the next page, or None on the last page. An
        unknown root lists nothing; a malformed prefix, start or limit is a ValueError.
        """
        if not PREFIX_PATTERN.fullmatch(prefix):
            raise ValueError(f"not an address prefix (up to 70 lowercase hex characters): {prefix!r}")
        if start is not None and not ADDRESS_PATTERN.fullmatch(start):
            raise ValueError(f"not an address (70 lowercase hex characters): {start!r}")
        if limit < 1:
            raise ValueError(f"limit must be at least 1, got {limit}")
        if not _HASH.fullmatch(state_root):
            return [], None
        entries: list[tuple[str, bytes]] = []
        try:
            for entry in self._tree.leaves(state_root, prefix, start):
                if len(entries) == limit:
                    return entries, entry[0]
                entries.append(entry)
        except MissingNode:
            return [], None
        return entries, None

    def processors(self) -> list[tuple[str, str]]:
        """Registered (family, version) pairs, for /status."""
        return self._dispatcher.processors()

    # Producing blocks.

    async def _produce(self) -> None:
        try:
            await self._produce_blocks()
        except Exception as error:
            self._failure = f"block production failed: {error!r}"
            LOG.exception("block production failed; no further blocks will be produced")

    async def _produce_blocks(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            await self._wake.wait()
            self._wake.clear()
            delay = self._last_block_at + self._config.block_interval - loop.time()
            if delay > 0:
                await asyncio.sleep(delay)
            chosen = select_batches(
                self._queue.values(),
                txn_committed=self._txn_committed,
                served=self._dispatcher.served,
                limit=self._config.max_batches_per_block,
            )
            if not chosen:
                continue
            self._last_block_at = loop.time()
            for pending in chosen:
                del self._queue[pending.batch_id]
            read_committed = functools.partial(self._tree.get, self._exec_root)
            result = await self._executor.execute(plan_block(chosen), read_committed)
            self._requeue(result.deferred)
            record = self._seal(result)
            if record is not None:
                await self._commit(record, result)
            if self._queue:
                self._wake.set()

    def _txn_committed(self, txn_id: str) -> bool:
        return txn_id in self._executed_txns or self._storage.has_transaction(txn_id)

    def _requeue(self, deferred: list[PendingBatch]) -> None:
        """Put deferred batches back at the front, in their original order."""
        for pending in reversed(deferred):
            self._queue[pending.batch_id] = pending
            self._queue.move_to_end(pending.batch_id, last=False)

    def _seal(self, result: BlockResult) -> CommitRecord | None:
        """Turn an executed block into what storage writes; advance the execution head."""
        invalid = {pending.batch_id: infos for pending, infos in result.invalid}
        if not result.valid:
            return CommitRecord(invalid=invalid) if invalid else None
        root, nodes = self._tree.update(self._exec_root, result.changes)
        block = build_block(
            self._signer,
            block_num=self._exec_num + 1,
            previous_block_id=self._exec_block_id,
            batches=[pending.batch for pending, _ in result.valid],
            state_root=root,
        )
        receipts = [
            (receipt.transaction_id, pending.batch_id, receipt.SerializeToString())
            for pending, batch_receipts in result.valid
            for receipt in batch_receipts
        ]
        self._nodes.unsaved.update(nodes)
        self._exec_root, self._exec_num, self._exec_block_id = root, self._exec_num + 1, block.header_signature
        for pending, _ in result.valid:
            self._executed_txns.update(pending.txn_ids)
        return CommitRecord(
            block=block, block_num=self._exec_num, receipts=receipts, nodes=nodes, invalid=invalid
        )

    async def _commit(self, record: CommitRecord, result: BlockResult) -> None:
        """Hand the record to storage; report its batches once it is durable. Keeps a short pipeline."""
        loop = asyncio.get_running_loop()
        if self._writer is None:
            done: asyncio.Future[None] = loop.create_future()
            try:
                self._storage.commit(record)
                done.set_result(None)
            except Exception as error:
                done.set_exception(error)
        else:
            done = loop.run_in_executor(self._writer, self._write, record)
        done.add_done_callback(lambda future: self._committed(future, record, result))
        self._commits.append(done)
        while len(self._commits) > _COMMIT_PIPELINE_DEPTH or (self._commits and self._commits[0].done()):
            oldest = self._commits.popleft()
            with contextlib.suppress(Exception):
                await asyncio.shield(oldest)

    def _write(self, record: CommitRecord) -> None:
        """On the writer thread: commit a block, unless a submission it may hold was not recorded."""
        if self._record_failed:
            raise StorageError("an earlier submission could not be recorded")
        self._storage.commit(record)

    def _committed(self, future: asyncio.Future[None], record: CommitRecord, result: BlockResult) -> None:
        if future.cancelled() or future.exception() is not None:
            error = "cancelled" if future.cancelled() else repr(future.exception())
            self._halt(f"storage failed to commit a block: {error}")
            return
        for pending, _ in result.valid:
            self._forget(pending)
            self._executed_txns.difference_update(pending.txn_ids)
        for pending, infos in result.invalid:
            self._forget(pending)
            LOG.info("batch %s is invalid: %s", pending.batch_id[:16], "; ".join(info.message for info in infos))
        if record.block is not None:
            for key in record.nodes:
                self._nodes.unsaved.pop(key, None)
            self._head = record.block
            self._head_header = header_of(record.block)
            LOG.debug(
                "block %d committed: %d batches, state root %s",
                self._head_header.block_num,
                len(record.block.batches),
                self._head_header.state_root_hash,
            )
        self._notify()

    def _halt(self, failure: str) -> None:
        """Stop producing blocks and taking batches after a storage failure; a restart recovers."""
        if self._failure is not None:
            return
        self._failure = failure
        LOG.error("%s; no further blocks will be produced", failure)
        if self._tasks:
            self._tasks[0].cancel()

    def _forget(self, pending: PendingBatch) -> None:
        self._pending.pop(pending.batch_id, None)
        self._pending_txns.difference_update(pending.txn_ids)


def _settle(acknowledged: asyncio.Future[None], error: Exception | None = None) -> None:
    """Complete a submission's future unless its waiter gave up (a client that went away)."""
    if acknowledged.done():
        return
    if error is None:
        acknowledged.set_result(None)
    else:
        acknowledged.set_exception(error)


def _open_chain(storage: Storage) -> tuple[Signer, Block]:
    """The node key and head block, creating both (atomically) on first use."""
    head = storage.head_block()
    key = storage.meta(_NODE_KEY)
    if head is None:
        signer = Signer.from_hex(key.decode()) if key is not None else Signer.generate()
        genesis = genesis_block(signer, EMPTY_ROOT)
        storage.commit(
            CommitRecord(
                block=genesis,
                block_num=0,
                nodes={("", EMPTY_ROOT): EMPTY_NODE},
                meta={_NODE_KEY: signer.private_key_hex.encode()},
            )
        )
        LOG.info("created genesis block %s", genesis.header_signature[:16])
        return signer, genesis
    if key is None:
        raise LedgerError("the ledger database has blocks but no node key; it is not an xo-devnet ledger")
    try:
        signer = Signer.from_hex(key.decode("ascii", "replace"))
    except InvalidKey as error:
        raise LedgerError(f"the stored node key is unusable: {error}") from None
    header: BlockHeader = header_of(head)
    if header.signer_public_key != signer.public_key:
        raise LedgerError("the head block was not signed by this ledger's node key")
    return signer, head
