"""Where the ledger keeps blocks, batches, receipts, statuses, Merkle nodes and accepted batches: SQLite.

Why SQLite (stdlib) rather than LMDB: a block touches six tables (nodes, block,
batches, transactions with receipts, invalid statuses, pending batches) and must land
all at once or not at all; one SQLite transaction gives exactly that, with indexes for
every lookup the REST API needs and no extra dependency. WAL mode with
``synchronous=FULL`` makes a commit durable when it returns (the WAL is fsync'd), lets
readers on another connection see the last committed block while the next one is being
written, and recovers by itself after ``kill -9``: an interrupted commit simply never
happened.

Accepted batches not yet in a block wait in ``pending_batches``, recorded before the
REST API answers 202 through a connection of their own with ``synchronous=NORMAL``:
the rows are in the WAL (the OS page cache) when the write returns, which survives a
crash of the process without an fsync per submission; only a power loss or an
operating-system crash before the next fsync can drop them. That is the next block
commit, or ``sync_pending`` (a checkpoint), which the ledger runs when no block came
within a second. A block removes its batches' rows in its own transaction, so after any
crash a batch is either still pending or in a block, never both.

Ephemeral ledgers use the same schema in an in-memory database, so both modes run the
same code, except that their Merkle nodes live in a plain dict (a node is written ~33
times per changed address; an in-memory B-tree only costs time there) and that they
keep no record of accepted batches (nothing would read it again).
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import sqlite3
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from google.protobuf.message import DecodeError

from xo_core.protobuf.batch_pb2 import Batch
from xo_core.protobuf.block_pb2 import Block, BlockHeader
from xo_core.protobuf.transaction_pb2 import Transaction
from xo_devnet.merkle import NodeKey
from xo_devnet.status import InvalidTransactionInfo

DATABASE_NAME = "ledger.sqlite3"
SCHEMA_VERSION = 2
LOCK_NAME = "LOCK"
_NODE_QUERY = "SELECT data FROM merkle_nodes WHERE path = ? AND hash = ?"
_CACHE_KIB = 64 * 1024
_IDS_PER_QUERY = 500
"""Ids per ``IN (...)`` lookup, well below SQLite's limit on bound parameters."""

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS merkle_nodes (
    path TEXT NOT NULL, hash BLOB NOT NULL, data BLOB NOT NULL, PRIMARY KEY (path, hash)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS blocks (num INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, header BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS batches (
    id TEXT PRIMARY KEY, block_num INTEGER NOT NULL, position INTEGER NOT NULL, data BLOB NOT NULL
);
CREATE INDEX IF NOT EXISTS batches_by_block ON batches (block_num, position);
CREATE TABLE IF NOT EXISTS transactions (
    id TEXT PRIMARY KEY, batch_id TEXT NOT NULL, block_num INTEGER NOT NULL, receipt BLOB NOT NULL
);
CREATE TABLE IF NOT EXISTS invalid_batches (id TEXT PRIMARY KEY, transactions TEXT NOT NULL);
"""
_PENDING_SCHEMA = """
CREATE TABLE IF NOT EXISTS pending_batches (seq INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, data BLOB NOT NULL);
"""


class StorageError(Exception):
    """The data directory cannot be used (locked by another ledger, unreadable, not a ledger)."""


@dataclass(frozen=True)
class CommitRecord:
    """Everything one block (or one round of invalid batches) adds, written in one transaction."""

    block: Block | None = None
    block_num: int = 0
    receipts: Sequence[tuple[str, str, bytes]] = ()
    """(transaction id, batch id, serialized TransactionReceipt) for each committed transaction."""
    nodes: Mapping[NodeKey, bytes] = field(default_factory=dict)
    invalid: Mapping[str, tuple[InvalidTransactionInfo, ...]] = field(default_factory=dict)
    meta: Mapping[str, bytes] = field(default_factory=dict)


class Storage:
    """The ledger's tables: reads on the caller's connection, commits on the writer's.

    With a data directory the writer is a separate connection meant for one writer
    thread, so a commit's fsync never blocks readers; in memory both are one connection.
    A third connection, with its own durability setting, records accepted batches;
    the ledger uses it on the writer thread too, so the two never wait for each
    other's write lock. An in-memory ledger has none: its queue dies with the process.
    """

    def __init__(
        self,
        reader: sqlite3.Connection,
        writer: sqlite3.Connection,
        lock_fd: int | None,
        queue: sqlite3.Connection | None = None,
    ) -> None:
        """Use ``Storage.open``; a ledger without a directory lock is an in-memory one."""
        self._reader = reader
        self._writer = writer
        self._queue = queue
        self._lock_fd = lock_fd
        self._memory_nodes: dict[NodeKey, bytes] | None = {} if lock_fd is None else None

    @classmethod
    def open(cls, data_dir: Path | None) -> Storage:
        """Open (creating if needed) the ledger in ``data_dir``, or an in-memory one for None."""
        if data_dir is None:
            connection = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
            _create_schema(connection)
            return cls(connection, connection, None)
        lock_fd = _lock_directory(data_dir)
        try:
            path = data_dir / DATABASE_NAME
            writer = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
            writer.execute("PRAGMA journal_mode=WAL")
            writer.execute("PRAGMA synchronous=FULL")
            _create_schema(writer)
            reader = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
            reader.execute("PRAGMA query_only=1")
            for connection in (writer, reader):
                connection.execute(f"PRAGMA cache_size=-{_CACHE_KIB}")
            queue = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
            queue.execute("PRAGMA synchronous=NORMAL")
        except sqlite3.Error as error:
            os.close(lock_fd)
            raise StorageError(f"cannot open the ledger database in {data_dir}: {error}") from None
        except StorageError:
            os.close(lock_fd)
            raise
        return cls(reader, writer, lock_fd, queue)

    def close(self) -> None:
        """Close the connections (the WAL is checkpointed) and release the directory lock."""
        if self._queue is not None:
            self._queue.close()
        self._reader.close()
        if self._writer is not self._reader:
            self._writer.close()
        if self._lock_fd is not None:
            os.close(self._lock_fd)
            self._lock_fd = None

    def commit(self, record: CommitRecord) -> None:
        """Write the record atomically; when this returns it is on disk (for a data directory)."""
        db = self._writer
        db.execute("BEGIN IMMEDIATE")
        try:
            if record.nodes and self._memory_nodes is None:
                db.executemany(
                    "INSERT OR IGNORE INTO merkle_nodes (path, hash, data) VALUES (?, ?, ?)",
                    ((path, bytes.fromhex(node_hash), data) for (path, node_hash), data in record.nodes.items()),
                )
            if record.block is not None:
                self._write_block(db, record)
            if record.invalid:
                db.executemany(
                    "INSERT OR REPLACE INTO invalid_batches (id, transactions) VALUES (?, ?)",
                    ((batch_id, _encode_invalid(infos)) for batch_id, infos in record.invalid.items()),
                )
            if self._queue is not None:
                decided = [batch.header_signature for batch in record.block.batches] if record.block else []
                decided.extend(record.invalid)
                db.executemany("DELETE FROM pending_batches WHERE id = ?", ((batch_id,) for batch_id in decided))
            if record.meta:
                db.executemany("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", record.meta.items())
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise
        if self._memory_nodes is not None:
            self._memory_nodes.update(record.nodes)

    def add_pending(self, batches: Sequence[Batch]) -> None:
        """Record accepted batches, in order, in one transaction; in the WAL (not fsync'd) when this returns.

        Raises StorageError when they cannot be recorded (the caller must then refuse them).
        """
        db = self._queue
        if db is None or not batches:
            return
        try:
            db.execute("BEGIN IMMEDIATE")
            db.executemany(
                "INSERT INTO pending_batches (id, data) VALUES (?, ?)",
                ((batch.header_signature, batch.SerializeToString()) for batch in batches),
            )
            db.execute("COMMIT")
        except sqlite3.Error as error:
            if db.in_transaction:
                db.execute("ROLLBACK")
            raise StorageError(f"cannot record the accepted batches: {error}") from None

    def sync_pending(self) -> bool:
        """Make the recorded accepted batches durable without a block commit: checkpoint the log.

        A checkpoint fsyncs the write-ahead log before copying it into the database file,
        and that file after. False when a reader kept it from completing (try again
        later). Call it where blocks are committed: it takes the write lock.
        """
        try:
            busy, _, _ = self._writer.execute("PRAGMA wal_checkpoint(FULL)").fetchone()
        except sqlite3.Error as error:
            raise StorageError(f"cannot checkpoint the ledger database: {error}") from None
        return busy == 0

    def pending_batches(self) -> list[Batch]:
        """The accepted batches no block or invalid status has decided yet, in arrival order."""
        batches = []
        for batch_id, data in self._reader.execute("SELECT id, data FROM pending_batches ORDER BY seq"):
            try:
                batches.append(Batch.FromString(data))
            except DecodeError:
                raise StorageError(f"the stored pending batch {batch_id} is unreadable") from None
        return batches

    @staticmethod
    def _write_block(db: sqlite3.Connection, record: CommitRecord) -> None:
        block = record.block
        assert block is not None
        num = record.block_num
        db.execute(
            "INSERT INTO blocks (num, id, header) VALUES (?, ?, ?)", (num, block.header_signature, block.header)
        )
        db.executemany(
            "INSERT INTO batches (id, block_num, position, data) VALUES (?, ?, ?, ?)",
            (
                (batch.header_signature, num, position, batch.SerializeToString())
                for position, batch in enumerate(block.batches)
            ),
        )
        db.executemany(
            "INSERT INTO transactions (id, batch_id, block_num, receipt) VALUES (?, ?, ?, ?)",
            ((txn_id, batch_id, num, receipt) for txn_id, batch_id, receipt in record.receipts),
        )
        db.executemany(
            "DELETE FROM invalid_batches WHERE id = ?", ((batch.header_signature,) for batch in block.batches)
        )

    def _one(self, sql: str, *args: object) -> tuple | None:
        return self._reader.execute(sql, args).fetchone()

    def meta(self, key: str) -> bytes | None:
        row = self._one("SELECT value FROM meta WHERE key = ?", key)
        return None if row is None else row[0]

    def head_block(self) -> Block | None:
        row = self._one("SELECT num, id, header FROM blocks ORDER BY num DESC LIMIT 1")
        return None if row is None else self._assemble(*row)

    def block_by_num(self, num: int) -> Block | None:
        if not 0 <= num < 2**63:
            return None
        row = self._one("SELECT num, id, header FROM blocks WHERE num = ?", num)
        return None if row is None else self._assemble(*row)

    def block_by_id(self, block_id: str) -> Block | None:
        row = self._one("SELECT num, id, header FROM blocks WHERE id = ?", block_id)
        return None if row is None else self._assemble(*row)

    def block_header(self, block_id: str) -> BlockHeader | None:
        row = self._one("SELECT header FROM blocks WHERE id = ?", block_id)
        return None if row is None else BlockHeader.FromString(row[0])

    def _assemble(self, num: int, block_id: str, header: bytes) -> Block:
        rows = self._reader.execute(
            "SELECT data FROM batches WHERE block_num = ? ORDER BY position", (num,)
        ).fetchall()
        return Block(header=header, header_signature=block_id, batches=[Batch.FromString(data) for (data,) in rows])

    def batch(self, batch_id: str) -> Batch | None:
        row = self._one("SELECT data FROM batches WHERE id = ?", batch_id)
        return None if row is None else Batch.FromString(row[0])

    def has_batch(self, batch_id: str) -> bool:
        return self._one("SELECT 1 FROM batches WHERE id = ?", batch_id) is not None

    def has_transaction(self, txn_id: str) -> bool:
        return self._one("SELECT 1 FROM transactions WHERE id = ?", txn_id) is not None

    def block_id_of_batch(self, batch_id: str) -> str | None:
        row = self._one(
            "SELECT blocks.id FROM batches JOIN blocks ON blocks.num = batches.block_num WHERE batches.id = ?", batch_id
        )
        return None if row is None else row[0]

    def block_id_of_transaction(self, txn_id: str) -> str | None:
        row = self._one(
            "SELECT blocks.id FROM transactions JOIN blocks ON blocks.num = transactions.block_num"
            " WHERE transactions.id = ?",
            txn_id,
        )
        return None if row is None else row[0]

    def transaction(self, txn_id: str) -> Transaction | None:
        row = self._one(
            "SELECT batches.data FROM transactions JOIN batches ON batches.id = transactions.batch_id"
            " WHERE transactions.id = ?",
            txn_id,
        )
        if row is None:
            return None
        return next(txn for txn in Batch.FromString(row[0]).transactions if txn.header_signature == txn_id)

    def receipt(self, txn_id: str) -> bytes | None:
        row = self._one("SELECT receipt FROM transactions WHERE id = ?", txn_id)
        return None if row is None else row[0]

    def receipts(self, txn_ids: Sequence[str]) -> dict[str, bytes]:
        """The serialized receipts of committed transactions, by id (a block's worth in a few indexed queries)."""
        found: dict[str, bytes] = {}
        for start in range(0, len(txn_ids), _IDS_PER_QUERY):
            chunk = list(txn_ids[start : start + _IDS_PER_QUERY])
            marks = ",".join("?" * len(chunk))
            found.update(self._reader.execute(f"SELECT id, receipt FROM transactions WHERE id IN ({marks})", chunk))
        return found

    def invalid(self, batch_id: str) -> tuple[InvalidTransactionInfo, ...] | None:
        row = self._one("SELECT transactions FROM invalid_batches WHERE id = ?", batch_id)
        return None if row is None else _decode_invalid(row[0])

    def node_bytes(self, key: NodeKey) -> bytes | None:
        if self._memory_nodes is not None:
            return self._memory_nodes.get(key)
        path, node_hash = key
        row = self._one(_NODE_QUERY, path, bytes.fromhex(node_hash))
        return None if row is None else row[0]

    def node_bytes_many(self, keys: Iterable[NodeKey]) -> dict[NodeKey, bytes]:
        keys = list(keys)
        if self._memory_nodes is not None:
            return {key: self._memory_nodes[key] for key in keys if key in self._memory_nodes}
        found: dict[NodeKey, bytes] = {}
        lookup = self._reader.execute
        for key in keys:
            path, node_hash = key
            row = lookup(_NODE_QUERY, (path, bytes.fromhex(node_hash))).fetchone()
            if row is not None:
                found[key] = row[0]
        return found


def _create_schema(db: sqlite3.Connection) -> None:
    """Create the tables of a new database, add the pending queue to a version 1 one; refuse any other version."""
    version = db.execute("PRAGMA user_version").fetchone()[0]
    has_tables = db.execute("SELECT count(*) FROM sqlite_master").fetchone()[0] > 0
    if version == 0 and not has_tables:
        db.executescript(_SCHEMA + _PENDING_SCHEMA)
        db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
    elif version == 1:
        db.executescript(f"BEGIN; {_PENDING_SCHEMA} PRAGMA user_version={SCHEMA_VERSION}; COMMIT;")
    elif version != SCHEMA_VERSION:
        raise StorageError(f"the ledger database has schema version {version}, this xo-devnet reads {SCHEMA_VERSION}")


def _lock_directory(data_dir: Path) -> int:
    """Hold an exclusive lock on the directory so two ledgers never write one chain.

    The kernel drops the lock when the process dies, so ``kill -9`` leaves nothing to clean.
    """
    try:
        data_dir.mkdir(parents=True, exist_ok=True)
        lock_fd = os.open(data_dir / LOCK_NAME, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as error:
        raise StorageError(f"cannot use data directory {data_dir}: {error.strerror or error}") from None
    try:
        fcntl.flock(lock_fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(lock_fd)
        raise StorageError(f"data directory {data_dir} is in use by another xo-devnet") from None
    with contextlib.suppress(OSError):
        os.ftruncate(lock_fd, 0)
        os.write(lock_fd, f"{os.getpid()}\n".encode())
    return lock_fd


def _encode_invalid(infos: tuple[InvalidTransactionInfo, ...]) -> str:
    return json.dumps([[info.id, info.message, info.extended_data.hex()] for info in infos])


def _decode_invalid(text: str) -> tuple[InvalidTransactionInfo, ...]:
    return tuple(
        InvalidTransactionInfo(txn_id, message, bytes.fromhex(data)) for txn_id, message, data in json.loads(text)
    )
