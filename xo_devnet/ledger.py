"""The ledger facade: the one object the REST API and the `xo-devnet` command talk to.

It runs the block loop: take the ready batches from the pending queue (``pending``),
have them executed (``executor``), cut a block from those finished, fold their writes
into the Merkle tree, sign the block (``chain``) and hand it to storage (``writer``).
Blocks are pipelined: block N+1 executes on top of block N's state while N is being
written, but a batch is reported COMMITTED only once the block holding it is durable,
and reads (chain head, blocks, state) only ever see durable blocks. Everything runs on
one asyncio loop; only the storage writes of a data-directory ledger run on the
writer's thread.

A data-directory ledger also records each submission in storage before it
acknowledges it, and re-queues those records on start, so a batch the REST API
answered 202 for is decided even if the process is killed before any block holds it.
The record goes through the same first-in-first-out writer as the blocks: a batch is
queued for execution at once, yet no block holding it can be written before its
record. The first failed write stops block production and the intake for good; a
restart resumes from the last block written with every recorded batch still pending.

Nothing a client submits can stall the ledger for good: only transaction families
the ledger accepts are taken (``families``), a batch waits for a processor of its
family or for its dependencies for a bounded time and then ends INVALID, and batches
that cannot run yet hold only a share of the queue (``pending``). Re-queued batches
are held to the same rules, so a restart never brings back a frozen queue.

Every block opens with its BlockInfo (``block_info``), as a Sawtooth validator with the
BlockInfo injector makes it: a batch signed by the node key describing the previous
block with the time the block started, applied in-process before any other batch of
the block starts. Nobody else may submit a ``block_info`` transaction, no other family
may write its namespace or the settings' (``context.LEDGER_NAMESPACES``), and the
BlockInfo is made from the chain, never from state, so nothing a processor writes can
stop blocks. Should block production stop all the same (a failed write, a bug),
``failure`` says why; submissions are refused with it and reads are still served.

Each block, once durable and the head, is published to the event subscribers
(``events``): event clients on the component endpoint and the REST API's websockets.
Publishing only queues; no subscriber can delay a commit.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import re
import time
from collections import deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import zmq

from xo_core import block_info
from xo_core.log_limits import LogLimiter
from xo_core.protobuf.batch_pb2 import Batch
from xo_core.protobuf.block_pb2 import Block
from xo_core.protobuf.transaction_pb2 import Transaction, TransactionHeader
from xo_core.protobuf.transaction_receipt_pb2 import TransactionReceipt
from xo_core.protobuf.validator_pb2 import Message
from xo_core.signing import Signer
from xo_devnet import block_info as block_opener
from xo_devnet.chain import ChainError, build_block, header_of, open_chain
from xo_devnet.component import ComponentSocket
from xo_devnet.context import TxnContext
from xo_devnet.dispatcher import Dispatcher
from xo_devnet.events.blocks import BlockEvents
from xo_devnet.events.history import StoredHistory
from xo_devnet.events.hub import EventHub
from xo_devnet.events.zmq_clients import REQUEST_TYPES as EVENT_REQUEST_TYPES
from xo_devnet.events.zmq_clients import EventClients
from xo_devnet.executor import BlockExecutor, BlockResult
from xo_devnet.families import Family, UnacceptedFamily, refusal
from xo_devnet.ledger_metrics import LedgerMetrics
from xo_devnet.merkle import ADDRESS_PATTERN, PREFIX_PATTERN, CorruptState, MerkleTree, MissingNode, NodeKey
from xo_devnet.pending import DuplicateBatch, PendingBatches, QueueFull
from xo_devnet.scheduler import PendingBatch, Selection, missing_dependency, select_batches, unserved_transaction
from xo_devnet.status import BatchStatus, InvalidTransactionInfo
from xo_devnet.storage import CommitRecord, Storage, StorageError
from xo_devnet.validation import short_id
from xo_devnet.writer import StorageWriter

__all__ = [
    "BatchStatus",
    "DuplicateBatch",
    "InvalidTransactionInfo",
    "Ledger",
    "LedgerConfig",
    "LedgerError",
    "QueueFull",
    "UnacceptedFamily",
]

LOG = logging.getLogger(__name__)

_HASH = re.compile(r"[0-9a-f]{64}")
_COMMIT_PIPELINE_DEPTH = 2
_Doomed = tuple[PendingBatch, tuple[InvalidTransactionInfo, ...]]


@dataclass(frozen=True)
class LedgerConfig:
    """How to run a ledger; `data_dir=None` keeps everything in memory (ephemeral)."""

    data_dir: Path | None
    component_endpoint: str = "tcp://127.0.0.1:4004"
    block_interval: float = 0.05
    """Seconds between the starts of two blocks while batches are pending."""
    block_time_limit: float = 1.0
    """A block is cut after this long even if some of its batches are still executing; they finish in a later one."""
    families: frozenset[Family] | None = None
    """The (family, version) pairs accepted; a batch with any other is refused at submission. None: any."""
    max_pending_batches: int = 10_000
    max_waiting_batches: int = 1_000
    """How many of the pending batches may be ones that cannot run yet (a dependency not run, no processor)."""
    processor_wait: float = 60.0
    """A batch whose family has had no processor for this long ends INVALID (what waited behind it proceeds)."""
    dependency_wait: float = 60.0
    """A batch whose dependency has not run (been executed) for this long ends INVALID, naming it."""
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
    sync_interval: float = 1.0
    """Longest an accepted batch's record waits for an fsync when no block commit comes."""
    max_subscribers: int = 256
    """Event subscribers at once: ZMQ event subscriptions and open REST API websockets together."""
    subscriber_queue: int = 64
    """Blocks a live subscriber may have waiting; one further behind continues from storage."""
    subscriber_stall_timeout: float = 10.0
    """A subscriber whose connection takes nothing for this long (it stopped reading) is dropped."""
    clock: Callable[[], float] = time.time
    """Where a block's BlockInfo timestamp comes from (Unix seconds); tests substitute their own."""
    genesis_state: Mapping[str, bytes] = field(default_factory=dict)
    """What a new chain's genesis state holds (address -> data): settings and opening balances, say."""


RESERVED_FAMILY = (
    f"transaction family {block_info.FAMILY_NAME} is written only by the ledger itself: the BlockInfo at the start"
    " of every block"
)
"""Why a submitted ``block_info`` transaction is refused, whatever families are accepted."""

class LedgerError(Exception):
    """The ledger cannot start: data directory locked or corrupt, endpoint not bindable."""


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
        self._exec_header = self._head_header
        self._exec_num = self._head_header.block_num
        self._exec_root = self._head_header.state_root_hash
        self._exec_timestamp = block_opener.timestamp_in(head) or 0
        """The BlockInfo timestamp of the block being executed on, from the chain: the next may not be earlier."""
        self._open_timestamp = self._exec_timestamp
        self._batches = PendingBatches(
            storage, capacity=config.max_pending_batches, waiting_capacity=config.max_waiting_batches
        )
        self._doomed: list[_Doomed] = []
        """Batches to decide INVALID with the next block: refused families found on restart."""
        self._deadline: asyncio.TimerHandle | None = None
        self._executed_txns: set[str] = set()
        self._wake = asyncio.Event()
        self._draining = asyncio.Event()
        """Set by :meth:`drain`: the next block is cut without waiting out the block interval."""
        self._commits: deque[asyncio.Future[None]] = deque()
        self._writer = StorageWriter(
            storage, persistent=config.data_dir is not None, sync_interval=config.sync_interval
        )
        self._failure: str | None = None
        self._log_limiter = LogLimiter()
        """Clients can submit invalid batches over and over: one line per interval, and the count."""
        self._stopped = False
        self.metrics = LedgerMetrics()
        """Batches decided, blocks built, commit latency: served by the REST API's /metrics."""
        self._last_block_at = float("-inf")
        self._dispatcher = Dispatcher(
            self._send,
            ping_interval=config.ping_interval,
            ping_timeout=config.ping_timeout,
            process_timeout=config.process_timeout,
            on_processors_changed=self._wake.set,
        )
        self._socket = ComponentSocket(self._route)
        self._events = EventHub(
            StoredHistory(storage),
            self._head_header.block_num,
            max_subscribers=config.max_subscribers,
            queue_limit=config.subscriber_queue,
            stall_timeout=config.subscriber_stall_timeout,
        )
        self._event_clients = EventClients(self._events, self._send, self._socket.send_tracked)
        self._executor = BlockExecutor(
            self._dispatcher,
            self._read_executed,
            max_attempts=config.max_attempts,
            retry_delay=config.retry_delay,
            bound_to_block=_reads_block_info,
            cut_off_limit=config.max_attempts * config.process_timeout,
        )
        self._tasks: list[asyncio.Task[None]] = []

    def _send(self, identity: bytes, message_type: int, content: bytes, correlation_id: str) -> bool:
        return self._socket.send(identity, message_type, content, correlation_id)

    def _route(self, identity: bytes, message: Message) -> None:
        """Event clients and processors share the component endpoint; the message type tells them apart."""
        if message.message_type in EVENT_REQUEST_TYPES:
            self._event_clients.handle(identity, message)
        else:
            self._dispatcher.handle(identity, message)

    def _read_executed(self, address: str) -> bytes | None:
        """State after the newest executed block, durable or not: what running batches build on."""
        return self._tree.get(self._exec_root, address)

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
            try:
                signer, head = open_chain(storage, config.genesis_state)
            except ChainError as error:
                raise LedgerError(str(error)) from None
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
            asyncio.create_task(ledger._writer.sync_records(), name="xo-ledger-record-sync"),
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
        """Re-queue the batches accepted before the last stop or crash, in arrival order, ahead of new ones.

        They are held to today's rules: one with a family no longer accepted ends INVALID
        with the first block, and the others wait for processors and dependencies for
        no longer than new ones do.
        """
        try:
            restored = [PendingBatch.parse(batch) for batch in self._storage.pending_batches()]
        except (StorageError, ValueError) as error:
            raise LedgerError(f"the stored pending batches cannot be re-queued: {error}") from None
        self._batches.restore(restored)
        for pending in restored:
            for txn_id, header in zip(pending.txn_ids, pending.headers, strict=True):
                reason = self._refusal(header)
                if reason is not None:
                    self._doomed.append((pending, (InvalidTransactionInfo(txn_id, reason, b""),)))
                    break
        self._batches.settle(pending for pending, _ in self._doomed)
        if restored:
            self._wake.set()
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
        if self._deadline is not None:
            self._deadline.cancel()
        await self._executor.close()
        while self._commits:
            with contextlib.suppress(Exception):
                await self._commits.popleft()
        await self._events.close()
        await self._event_clients.close()
        self._dispatcher.close()
        self._socket.close()
        self._writer.close()
        self._storage.close()
        self._batches.close()
        self._log_limiter.flush()
        LOG.info("ledger stopped at block %d", self._head_header.block_num)

    @property
    def component_endpoint(self) -> str:
        """The endpoint actually bound (a `:0` port resolved to the real one)."""
        return self._socket.endpoint

    @property
    def pending_batches(self) -> PendingBatches:
        """The accepted, undecided batches (read-only use: how many, how many cannot run yet)."""
        return self._batches

    @property
    def events(self) -> EventHub:
        """The committed blocks' events, for subscribers (the REST API's websockets use it in-process)."""
        return self._events

    @property
    def failure(self) -> str | None:
        """Why blocks cannot be produced now (batches are refused, reads still served); None while they can."""
        return self._failure

    @property
    def node_public_key(self) -> str:
        """The hex compressed public key that signs this node's blocks."""
        return self._signer.public_key

    # Submitting and following batches.

    def submit(self, batches: Sequence[Batch]) -> asyncio.Future[None]:
        """Take already-validated batches, all or nothing; raises UnacceptedFamily, QueueFull or DuplicateBatch at once.

        They are PENDING and queued from now on. The returned future completes once a
        crash can no longer lose them: at once in memory; with a data directory once
        storage has recorded them (one write, no fsync). It fails with QueueFull if they
        cannot be recorded. Acknowledge a submission to its client only after awaiting it.
        """
        if self._stopped or self._failure is not None:
            raise QueueFull(f"the ledger is not accepting batches: {self._failure or 'it is stopping'}")
        parsed = [PendingBatch.parse(batch) for batch in batches]
        self._check_families(parsed)
        self._batches.admit(parsed, self._unable_to_run(parsed))
        self._wake.set()
        loop = asyncio.get_running_loop()
        self.metrics.submitted((pending.batch_id for pending in parsed), loop.time())
        acknowledged = loop.create_future()
        recorded = self._writer.record(batches)
        recorded.add_done_callback(functools.partial(self._recorded, parsed, acknowledged))
        return acknowledged

    def _check_families(self, parsed: Sequence[PendingBatch]) -> None:
        for pending in parsed:
            for txn_id, header in zip(pending.txn_ids, pending.headers, strict=True):
                reason = self._refusal(header)
                if reason is not None:
                    where = f"batch {short_id(pending.batch_id)}, transaction {short_id(txn_id)}"
                    raise UnacceptedFamily(f"{where}: {reason}")

    def _refusal(self, header: TransactionHeader) -> str | None:
        """Why a transaction cannot be taken: its family is not accepted, or it is BlockInfo's; None if it can."""
        if header.family_name == block_info.FAMILY_NAME:
            return RESERVED_FAMILY
        return refusal(header.family_name, header.family_version, self._config.families)

    def _unable_to_run(self, parsed: Sequence[PendingBatch]) -> list[bool]:
        """Which batches of a submission cannot run yet: no processor for a family, or a dependency not run.

        A dependency on an earlier batch of the same submission that can run is fine:
        both are chosen for the same block, in order.
        """
        earlier: set[str] = set()
        unable = []
        for pending in parsed:
            waits = (
                unserved_transaction(pending, self._dispatcher.served) is not None
                or missing_dependency(pending, earlier, self._txn_available) is not None
            )
            unable.append(waits)
            if not waits:
                earlier.update(pending.txn_ids)
        return unable

    def _recorded(
        self, parsed: list[PendingBatch], acknowledged: asyncio.Future[None], future: asyncio.Future[None]
    ) -> None:
        try:
            future.result()
        except Exception as error:
            self._halt(f"storage failed to record accepted batches: {error}")
            self._batches.withdraw(parsed)
            self.metrics.withdrawn(pending.batch_id for pending in parsed)
            _settle(acknowledged, QueueFull(f"the ledger could not record the batches: {error}"))
        else:
            _settle(acknowledged)

    def batch_statuses(self, batch_ids: Sequence[str]) -> list[BatchStatus]:
        """Current status of each id, in the order asked."""
        return self._batches.statuses(batch_ids)

    async def wait_for_batches(self, batch_ids: Sequence[str], timeout: float) -> list[BatchStatus]:
        """Statuses as soon as none is PENDING, or whatever they are at `timeout` seconds."""
        return await self._batches.wait(batch_ids, timeout)

    async def drain(self, batch_ids: Sequence[str], timeout: float) -> list[BatchStatus]:
        """Like :meth:`wait_for_batches`, for a stop: from now on blocks no longer wait out the block interval, so
        the batches accepted are decided at once (an interval of seconds would otherwise delay the stop by that)."""
        self._draining.set()
        self._wake.set()
        return await self.wait_for_batches(batch_ids, timeout)

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
            if self._failure is None:
                self._failure = f"block production failed at block {self._exec_num + 1}: {error}"
                LOG.exception("%s; no further blocks will be produced until a restart", self._failure)

    async def _produce_blocks(self) -> None:
        """Start the ready batches, wait for the running ones (bounded), cut a block from those finished."""
        loop = asyncio.get_running_loop()
        while True:
            await self._wake.wait()
            self._wake.clear()
            delay = self._last_block_at + self._config.block_interval - loop.time()
            if delay > 0 and not self._draining.is_set():
                with contextlib.suppress(TimeoutError):  # not wait_for: before 3.12 it can swallow the stop's cancel
                    async with asyncio.timeout(delay):
                        await self._draining.wait()
            selection = select_batches(
                self._batches.queued(),
                available=self._txn_available,
                served=self._dispatcher.served,
                limit=self._config.max_batches_per_block - self._executor.running,
            )
            doomed = self._waits_over(selection, loop.time())
            chosen = selection.chosen
            if not chosen and not self._executor.running and not doomed:
                continue
            self._last_block_at = loop.time()
            self._open_block()
            self._batches.take(chosen)
            self._executor.add(chosen)
            await self._executor.settle(self._config.block_time_limit)
            result = self._executor.cut(loop.time())
            self._batches.requeue(result.deferred)
            result.invalid.extend(doomed)
            record = self._seal(result)
            if record is not None:
                await self._commit(record, result)
            if self._batches.has_queued() or self._executor.running:
                self._wake.set()

    def _open_block(self) -> None:
        """Start the next block with its BlockInfo: the block being executed on, at the time now.

        The time never goes backwards: while the clock is behind the newest BlockInfo's,
        the block keeps that one's. Both come from the chain, never from state a
        processor could have written. A BlockInfo the built-in processor refuses is a bug:
        block production stops (``_produce`` says why).
        """
        self.metrics.block_started(self._exec_num + 1, asyncio.get_running_loop().time())
        timestamp = max(int(self._config.clock()), self._exec_timestamp)
        self._open_timestamp = timestamp
        batch = block_opener.injected_batch(self._signer, self._exec_header, self._exec_block_id, timestamp)
        try:
            self._executor.open_block(PendingBatch.parse(batch), _apply_block_info)
        except block_opener.BlockInfoRefused as error:
            raise RuntimeError(f"the BlockInfo of block {self._exec_num + 1} cannot be applied: {error}") from None

    def _waits_over(self, selection: Selection, now: float) -> list[_Doomed]:
        """Note what waits and since when; the batches whose wait is over, to decide INVALID now.

        Batches waiting for a dependency are parked (out of the queue, so they cost no
        pass over it) until it runs; batches waiting for a processor stay in the queue,
        holding back what conflicts with them, until one registers. Either wait is
        bounded; a timer wakes the block loop when the next one ends.
        """
        config = self._config
        doomed, self._doomed = self._doomed, []
        for pending, dependency in selection.missing:
            self._batches.park(pending, dependency, now)
        next_end = float("inf")
        for pending in selection.unserved:
            ends = self._batches.mark_unserved(pending, now) + config.processor_wait
            if ends > now:
                next_end = min(next_end, ends)
            else:
                self._batches.settle([pending])
                doomed.append((pending, (self._no_processor(pending),)))
        for pending, dependency in self._batches.expired(now - config.dependency_wait):
            doomed.append((pending, (self._dependency_missing(pending, dependency),)))
        started = self._batches.next_wait_start()
        if started is not None:
            next_end = min(next_end, started + config.dependency_wait)
        self._wake_at(next_end)
        return doomed

    def _no_processor(self, pending: PendingBatch) -> InvalidTransactionInfo:
        position = unserved_transaction(pending, self._dispatcher.served) or 0
        header = pending.headers[position]
        reason = (
            f"no transaction processor for {header.family_name} {header.family_version}"
            f" registered within {self._config.processor_wait:g} s"
        )
        return InvalidTransactionInfo(pending.txn_ids[position], reason, b"")

    def _dependency_missing(self, pending: PendingBatch, dependency: str) -> InvalidTransactionInfo:
        txn_id = next(
            txn_id
            for txn_id, header in zip(pending.txn_ids, pending.headers, strict=True)
            if dependency in header.dependencies
        )
        reason = (
            f"dependency {dependency} did not run within {self._config.dependency_wait:g} s"
            " (it was not submitted, it ended INVALID, or it could not run itself)"
        )
        return InvalidTransactionInfo(txn_id, reason, b"")

    def _wake_at(self, when: float) -> None:
        """Have the block loop run again at ``when`` (loop time; infinity: never), however quiet it is."""
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None
        if when != float("inf"):
            self._deadline = asyncio.get_running_loop().call_at(when, self._wake.set)

    def _txn_available(self, txn_id: str) -> bool:
        """Whether a batch may depend on this transaction now: executed, executing, or committed."""
        return (
            txn_id in self._executed_txns
            or self._executor.has_transaction(txn_id)
            or self._storage.has_transaction(txn_id)
        )

    def _seal(self, result: BlockResult) -> CommitRecord | None:
        """Turn a cut into what storage writes; advance the execution head (in the same step as the cut)."""
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
        self._exec_header = header_of(block)
        self._exec_timestamp = self._open_timestamp
        for pending, _ in result.valid:
            self._executed_txns.update(pending.txn_ids)
        return CommitRecord(block=block, block_num=self._exec_num, receipts=receipts, nodes=nodes, invalid=invalid)

    async def _commit(self, record: CommitRecord, result: BlockResult) -> None:
        """Hand the record to storage; report its batches once it is durable. Keeps a short pipeline."""
        done = self._writer.commit(record)
        done.add_done_callback(lambda future: self._committed(future, record, result))
        self._commits.append(done)
        while len(self._commits) > _COMMIT_PIPELINE_DEPTH or (self._commits and self._commits[0].done()):
            oldest = self._commits.popleft()
            with contextlib.suppress(Exception):
                await asyncio.shield(oldest)

    def _committed(self, future: asyncio.Future[None], record: CommitRecord, result: BlockResult) -> None:
        if future.cancelled() or future.exception() is not None:
            error = "cancelled" if future.cancelled() else str(future.exception())
            self._halt(f"storage failed to commit a block: {error}")
            return
        self._batches.decide(pending for pending, _ in result.valid)
        for pending, _ in result.valid:
            self._executed_txns.difference_update(pending.txn_ids)
        self._batches.decide(pending for pending, _ in result.invalid)
        for pending, infos in result.invalid:
            self._log_limiter.log(
                LOG, "invalid", logging.INFO, "batch %s is invalid: %s", pending.batch_id[:16],
                "; ".join(info.message for info in infos),
            )  # fmt: skip
        self.metrics.decided(
            [pending.batch_id for pending, _ in result.valid if not _is_block_info(pending)],
            [pending.batch_id for pending, _ in result.invalid],
            None if record.block is None else record.block_num,
            asyncio.get_running_loop().time(),
        )
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
            receipts = [receipt for _, batch_receipts in result.valid for receipt in batch_receipts]
            self._events.publish(BlockEvents.of(record.block, receipts))
        self._batches.notify()
        if self._batches.has_queued():
            self._wake.set()  # deciding a batch returns what was parked on it to the queue

    def _halt(self, failure: str) -> None:
        """Stop producing blocks and taking batches after a storage failure; a restart recovers.

        The writer refuses every write after the failed one, so nothing queued behind it
        lands; the batches it held stay recorded as pending (and PENDING here).
        """
        if self._failure is not None:
            return
        self._failure = failure
        LOG.error("%s; no further blocks will be produced until a restart", failure)
        if self._tasks:
            self._tasks[0].cancel()


def _reads_block_info(pending: PendingBatch) -> bool:
    """Whether a batch could see a block's BlockInfo: then it must finish in the block it starts in."""
    return pending.touches(block_info.NAMESPACE)


def _is_block_info(pending: PendingBatch) -> bool:
    """Whether a batch is a block's BlockInfo (the ledger's own; nobody may submit one): not a batch submitted."""
    return pending.headers[0].family_name == block_info.FAMILY_NAME


def _apply_block_info(txn: Transaction, header: TransactionHeader, context: TxnContext) -> None:
    """The built-in block_info processor: it writes only under BlockInfo's namespace, like any processor its own."""
    context.restrict_writes((block_info.NAMESPACE,), block_info.FAMILY_NAME, block_info.FAMILY_VERSION)
    block_opener.apply(txn.payload, context)


def _settle(acknowledged: asyncio.Future[None], error: Exception | None = None) -> None:
    """Complete a submission's future unless its waiter gave up (a client that went away)."""
    if acknowledged.done():
        return
    if error is None:
        acknowledged.set_result(None)
    else:
        acknowledged.set_exception(error)
