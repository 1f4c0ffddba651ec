"""A key's durable store of channel states: every state this player signs or accepts, written before it is sent.

One SQLite database per key, shared by every process of that key (``chips play``,
``chips challenge``, ``chips show`` may run at once): WAL mode so readers never block
the writer, a busy timeout so writers queue instead of failing, and ``synchronous=FULL``
so a commit is on disk (fsync) before the caller goes on to publish or acknowledge. The
file is created 0600: the rps proposer's salts and throws live in it until revealed,
and losing or leaking it can lose chips. States a peer sent that were refused are kept
as evidence, at most :data:`EVIDENCE_KEPT` per channel and only under the channel the
state names, so that nobody replaying states of other channels can flush a channel's
evidence. The schema's version is SQLite's ``user_version``; an older store is migrated
when it is opened, keeping its states (:func:`_migrate`).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import sqlite3
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Final, NamedTuple

from chips_client.messages import state_channel
from chips_tp.channel import Fixed
from chips_tp.ops import SignedState
from client_core.errors import InvalidInput

#: Refused messages kept per channel, newest first; older ones are deleted.
EVIDENCE_KEPT: Final = 50
#: The schema written here (SQLite's ``user_version``): 0 before evidence was filed by its own channel.
SCHEMA_VERSION: Final = 1
#: How long a writer waits for another process of the same key to finish (milliseconds).
BUSY_TIMEOUT_MS: Final = 10_000
STORE_DIR_NAME: Final = "chips"

_SCHEMA: Final = """
CREATE TABLE IF NOT EXISTS channels (
    id TEXT PRIMARY KEY, name TEXT NOT NULL, participant0 TEXT NOT NULL, participant1 TEXT NOT NULL,
    app TEXT NOT NULL, stake INTEGER NOT NULL, deposit0 INTEGER NOT NULL, deposit1 INTEGER NOT NULL,
    duration INTEGER NOT NULL, nonce TEXT NOT NULL, rounds INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS states (
    channel TEXT NOT NULL, turn INTEGER NOT NULL, data BLOB NOT NULL, signature0 BLOB, signature1 BLOB,
    PRIMARY KEY (channel, turn)
);
CREATE TABLE IF NOT EXISTS secrets (
    channel TEXT NOT NULL, round INTEGER NOT NULL, throw TEXT NOT NULL, salt BLOB NOT NULL,
    PRIMARY KEY (channel, round)
);
CREATE TABLE IF NOT EXISTS evidence (
    seq INTEGER PRIMARY KEY AUTOINCREMENT, channel TEXT NOT NULL, received REAL NOT NULL, data BLOB NOT NULL,
    reason TEXT NOT NULL, digest BLOB
);
"""
#: After any migration: one row per message and channel, and the per-channel bound found by index.
_INDEXES: Final = """
CREATE UNIQUE INDEX IF NOT EXISTS evidence_once ON evidence (channel, digest);
CREATE INDEX IF NOT EXISTS evidence_by_channel ON evidence (channel, seq);
"""


class NewerStore(InvalidInput):
    """A store written by a newer ``chips``, whose schema this one does not know: it is left untouched."""


class ChannelTerms(NamedTuple):
    """A channel as this player knows it: the name the players chose, its fixed terms, and the rounds to play."""

    name: str
    fixed: Fixed
    rounds: int


class Secret(NamedTuple):
    """An rps proposer's throw and salt for one round, kept until revealed."""

    throw: str
    salt: bytes


def default_path(key_dir: Path, public_key: str) -> Path:
    """``<key dir>/../chips/<public key>.sqlite``: beside the keys, one file per key whatever it is named."""
    return key_dir.expanduser().resolve().parent / STORE_DIR_NAME / f"{public_key}.sqlite"


class Store:
    """The states, rps secrets and evidence of one key's channels."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        with contextlib.suppress(FileExistsError):
            os.close(os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))
        self.path = path
        self._lock = threading.RLock()
        self._committing = threading.Lock()
        self._open = False
        self._generation = 1
        """The transaction writes go into now; each commit starts the next."""
        self._committed = 0
        self._failed = 0
        self.commits = 0
        """How many commits (each an fsync) the store made: fewer than its writes when writes come at once."""
        self._db = sqlite3.connect(path, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None, check_same_thread=False)
        self._db.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        self._db.execute("PRAGMA journal_mode = WAL")
        self._db.execute("PRAGMA synchronous = FULL")
        with self._write():
            version = self._db.execute("PRAGMA user_version").fetchone()[0]
            if version > SCHEMA_VERSION:
                raise NewerStore(f"the store {path} has schema {version}, newer than this chips knows "
                                 f"({SCHEMA_VERSION}): use the chips that wrote it")  # fmt: skip
            for statement in _statements(_SCHEMA):
                self._db.execute(statement)
            if version < SCHEMA_VERSION:
                _migrate(self._db)
            for statement in _statements(_INDEXES):
                self._db.execute(statement)
            self._db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        for suffix in ("-wal", "-shm"):
            with contextlib.suppress(FileNotFoundError):
                os.chmod(f"{path}{suffix}", 0o600)

    def close(self) -> None:
        """Close the database; the store is unusable afterwards."""
        self._db.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    @contextlib.contextmanager
    def _write(self, durable: bool = True) -> Iterator[int]:
        """One write, on disk when the block ends: its statements run inside the store's open transaction (a
        savepoint of their own, so a write that fails leaves the others), and the block ends once a commit that
        holds them is done.

        A house's matches write at once, and each commit waits for the disk (``synchronous=FULL``): so writes that
        come while a commit waits join the next transaction, and one commit (one fsync) makes them all durable,
        instead of one fsync each, one after another. The transaction is taken at once (``BEGIN IMMEDIATE``) so
        two processes never deadlock upgrading, and the connection is used by one thread at a time.

        Not ``durable``, the block ends at once, its write in the open transaction: the caller passes the transaction
        it yielded to :meth:`sync` before it sends or acknowledges what it wrote (so a state received and the answer to
        it are made durable by one commit).
        """
        failure: BaseException | None = None
        with self._lock:
            if not self._open:
                self._db.execute("BEGIN IMMEDIATE")
                self._open = True
            self._db.execute("SAVEPOINT one_write")
            mine = self._generation
            try:
                yield mine
            except BaseException as error:
                self._db.execute("ROLLBACK TO one_write")
                failure = error
            self._db.execute("RELEASE one_write")
        if durable or failure is not None:  # a failed write too: the transaction must not hold the file for others
            self._commit_through(mine)
        if failure is not None:
            raise failure

    def sync(self, transaction: int) -> None:
        """Return once ``transaction`` (what a write that was not durable yielded; 0 for none) is on disk."""
        if transaction:
            self._commit_through(transaction)

    def _commit_through(self, generation: int) -> None:
        """Return once the transaction ``generation`` is committed: by this thread, or by one that came first."""
        with self._committing:
            if self._committed >= generation:
                return  # another write's commit held this one's statements
            if self._failed >= generation:
                raise sqlite3.OperationalError(f"the store {self.path} could not commit this write (see the first "
                                               "error): it is not on disk")  # fmt: skip
            with self._lock:
                self._generation += 1
                self._open = False
                try:
                    self._db.execute("COMMIT")
                except BaseException:
                    with contextlib.suppress(sqlite3.Error):
                        self._db.execute("ROLLBACK")
                    self._failed = generation
                    raise
                self._committed = generation
                self.commits += 1

    def _rows(self, sql: str, parameters: tuple[object, ...]) -> list[tuple]:
        """Every row ``sql`` selects, read whole under the lock, so no thread's transaction is open in between."""
        with self._lock:
            return self._db.execute(sql, parameters).fetchall()

    def remember_channel(self, channel_id: bytes, terms: ChannelTerms) -> None:
        """Record a channel's terms (once; a channel's terms never change)."""
        fixed = terms.fixed
        with self._write():
            self._db.execute(
                "INSERT OR IGNORE INTO channels VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    channel_id.hex(), terms.name, *fixed.participants, fixed.app, fixed.stake, *fixed.deposits,
                    fixed.duration, str(fixed.nonce), terms.rounds,
                ),
            )  # fmt: skip

    def channel(self, channel_id: bytes) -> ChannelTerms | None:
        """The terms recorded for ``channel_id``, or None."""
        rows = self._rows("SELECT * FROM channels WHERE id = ?", (channel_id.hex(),))
        return _terms(rows[0]) if rows else None

    def channels(self) -> dict[bytes, ChannelTerms]:
        """Every channel recorded, by id."""
        return {bytes.fromhex(row[0]): _terms(row) for row in self._rows("SELECT * FROM channels", ())}

    def save_state(self, channel_id: bytes, turn: int, signed: SignedState, durable: bool = True) -> int:
        """Write (or add signatures to) the state of ``turn``; on disk when this returns, unless not ``durable``: then
        :meth:`sync` the transaction returned before sending or acknowledging it. Other bytes for a turn replace
        what was held with their own signatures only: a signature never moves to bytes it did not sign."""
        sig0, sig1 = signed.signatures
        with self._write(durable) as transaction:
            self._db.execute(
                "INSERT INTO states VALUES (?, ?, ?, ?, ?) ON CONFLICT (channel, turn) DO UPDATE SET "
                "data = excluded.data, "
                "signature0 = CASE WHEN data = excluded.data THEN coalesce(excluded.signature0, signature0) "
                "ELSE excluded.signature0 END, "
                "signature1 = CASE WHEN data = excluded.data THEN coalesce(excluded.signature1, signature1) "
                "ELSE excluded.signature1 END",
                (channel_id.hex(), turn, signed.state, sig0, sig1),
            )
        return transaction

    def states(self, channel_id: bytes, last: int = 2) -> list[tuple[int, SignedState]]:
        """The ``last`` newest states of the channel, oldest first, with their turns."""
        rows = self._rows(
            "SELECT turn, data, signature0, signature1 FROM states WHERE channel = ? ORDER BY turn DESC LIMIT ?",
            (channel_id.hex(), last),
        )
        return [(row[0], SignedState(row[1], (row[2], row[3]))) for row in reversed(rows)]

    def all_states(self, channel_id: bytes) -> list[bytes]:
        """Every state's bytes of the channel, oldest first: the match's history."""
        rows = self._rows("SELECT data FROM states WHERE channel = ? ORDER BY turn", (channel_id.hex(),))
        return [row[0] for row in rows]

    def save_secret(self, channel_id: bytes, round_: int, secret: Secret, durable: bool = True) -> int:
        """Keep the throw and salt of a round this player proposes, before its commitment is sent (durable as
        :meth:`save_state` is)."""
        with self._write(durable) as transaction:
            self._db.execute("INSERT OR REPLACE INTO secrets VALUES (?, ?, ?, ?)", (channel_id.hex(), round_, *secret))
        return transaction

    def secret(self, channel_id: bytes, round_: int) -> Secret | None:
        """The throw and salt this player committed to in ``round_`` of the channel, or None if none was kept."""
        rows = self._rows("SELECT throw, salt FROM secrets WHERE channel = ? AND round = ?", (channel_id.hex(), round_))
        return Secret(rows[0][0], rows[0][1]) if rows else None

    def keep_evidence(self, channel_id: bytes, data: bytes, reason: str) -> bool:
        """Keep a refused message of the channel and why (True), dropping the oldest beyond :data:`EVIDENCE_KEPT`.

        Only a message whose state names ``channel_id`` is evidence of it: a state of another
        channel, genuine or not, proves nothing here and anyone can replay one, so it is not
        kept (False), and nor is a message kept already. So no message about one channel ever
        evicts another's evidence, and replaying one message cannot flush the rest.
        """
        if state_channel(data) != channel_id:
            return False
        with self._write():
            added = self._db.execute(
                "INSERT OR IGNORE INTO evidence (channel, received, data, reason, digest) VALUES (?, ?, ?, ?, ?)",
                (channel_id.hex(), time.time(), data, reason, hashlib.sha256(data).digest()),
            ).rowcount
            _bound(self._db, channel_id.hex())
        return added == 1

    def evidence(self, channel_id: bytes) -> list[tuple[bytes, str]]:
        """The refused messages kept for the channel, oldest first, with the reasons."""
        rows = self._rows("SELECT data, reason FROM evidence WHERE channel = ? ORDER BY seq", (channel_id.hex(),))
        return [(row[0], row[1]) for row in rows]


def _statements(script: str) -> list[str]:
    return [statement.strip() for statement in script.split(";") if statement.strip()]


def _bound(db: sqlite3.Connection, channel: str) -> None:
    """Keep the newest :data:`EVIDENCE_KEPT` rows of evidence of ``channel`` (lowercase hex), and no more."""
    db.execute(
        "DELETE FROM evidence WHERE channel = ? AND seq NOT IN "
        "(SELECT seq FROM evidence WHERE channel = ? ORDER BY seq DESC LIMIT ?)",
        (channel, channel, EVIDENCE_KEPT),
    )


def _migrate(db: sqlite3.Connection) -> None:
    """Bring a store of schema 0 to :data:`SCHEMA_VERSION`, in the caller's transaction; states, terms, secrets kept.

    Schema 0 filed evidence under the channel a message arrived on, whatever channel its
    state named, and kept copies: each row is now kept only if its state names its
    channel, once, within the per-channel bound.
    """
    if "digest" not in {row[1] for row in db.execute("PRAGMA table_info(evidence)")}:
        db.execute("ALTER TABLE evidence ADD COLUMN digest BLOB")
    seen: set[tuple[str, bytes]] = set()
    for seq, channel, data in db.execute("SELECT seq, channel, data FROM evidence ORDER BY seq DESC").fetchall():
        digest = hashlib.sha256(data).digest()
        named = state_channel(data)
        if named is None or named.hex() != channel or (channel, digest) in seen:
            db.execute("DELETE FROM evidence WHERE seq = ?", (seq,))
            continue
        seen.add((channel, digest))
        db.execute("UPDATE evidence SET digest = ? WHERE seq = ?", (digest, seq))
    for (channel,) in db.execute("SELECT DISTINCT channel FROM evidence").fetchall():
        _bound(db, channel)


def _terms(row: tuple) -> ChannelTerms:
    return ChannelTerms(row[1], Fixed((row[2], row[3]), row[4], row[5], (row[6], row[7]), row[8], int(row[9])), row[10])
