"""Storage: what a commit writes is read back, survives reopening, and is all-or-nothing."""

import contextlib
import shutil
import sqlite3

import pytest

from tests.xo_devnet.harness import SIGNER, address, kv_batch
from xo_core.protobuf.transaction_receipt_pb2 import TransactionReceipt
from xo_devnet.chain import build_block, genesis_block
from xo_devnet.merkle import EMPTY_NODE, EMPTY_ROOT
from xo_devnet.status import InvalidTransactionInfo
from xo_devnet.storage import DATABASE_NAME, SCHEMA_VERSION, CommitRecord, Storage, StorageError


def one_block_record():
    genesis = genesis_block(SIGNER, EMPTY_ROOT)
    batch = kv_batch(set={address(1): "x"})
    block = build_block(
        SIGNER, block_num=1, previous_block_id=genesis.header_signature, batches=[batch], state_root=EMPTY_ROOT
    )
    txn_id = batch.transactions[0].header_signature
    receipt = TransactionReceipt(transaction_id=txn_id, data=[b"d"]).SerializeToString()
    invalid = {"bad-batch": (InvalidTransactionInfo("bad-txn", "no", b"\x00\xff"),)}
    return genesis, block, batch, CommitRecord(
        block=block, block_num=1, receipts=[(txn_id, batch.header_signature, receipt)], invalid=invalid
    )


def fill(storage: Storage):
    genesis, block, batch, record = one_block_record()
    storage.commit(CommitRecord(block=genesis, block_num=0, nodes={("", EMPTY_ROOT): EMPTY_NODE}, meta={"k": b"v"}))
    storage.commit(record)
    return genesis, block, batch


def check(storage: Storage, genesis, block, batch):
    txn = batch.transactions[0]
    assert storage.head_block() == block
    assert storage.block_by_num(0) == genesis
    assert storage.block_by_id(block.header_signature) == block
    assert storage.batch(batch.header_signature) == batch
    assert storage.transaction(txn.header_signature) == txn
    assert storage.block_id_of_batch(batch.header_signature) == block.header_signature
    assert storage.block_id_of_transaction(txn.header_signature) == block.header_signature
    assert TransactionReceipt.FromString(storage.receipt(txn.header_signature)).data == [b"d"]
    assert storage.invalid("bad-batch") == (InvalidTransactionInfo("bad-txn", "no", b"\x00\xff"),)
    assert storage.node_bytes(("", EMPTY_ROOT)) == EMPTY_NODE
    assert storage.node_bytes_many([("", EMPTY_ROOT), ("ab", EMPTY_ROOT)]) == {("", EMPTY_ROOT): EMPTY_NODE}
    assert storage.meta("k") == b"v"


def test_an_in_memory_ledger_reads_back_what_it_committed():
    storage = Storage.open(None)
    check(storage, *fill(storage))
    assert storage.block_by_num(2) is None
    assert storage.block_by_num(-1) is None
    assert storage.block_by_num(2**70) is None
    assert storage.batch("nope") is None


def test_a_data_directory_keeps_everything_across_reopening(tmp_path):
    storage = Storage.open(tmp_path)
    parts = fill(storage)
    storage.close()
    reopened = Storage.open(tmp_path)
    try:
        check(reopened, *parts)
    finally:
        reopened.close()


def test_receipts_are_found_by_transaction_id_many_at_a_time():
    storage = Storage.open(None)
    _, _, batch = fill(storage)
    txn_id = batch.transactions[0].header_signature
    found = storage.receipts([txn_id, "unknown"] + [f"other{n}" for n in range(1200)])
    assert list(found) == [txn_id]
    assert TransactionReceipt.FromString(found[txn_id]).transaction_id == txn_id
    assert storage.receipts([]) == {}


def test_two_ledgers_cannot_share_a_data_directory(tmp_path):
    first = Storage.open(tmp_path)
    try:
        with pytest.raises(StorageError, match="in use"):
            Storage.open(tmp_path)
    finally:
        first.close()
    Storage.open(tmp_path).close()


def test_a_database_of_another_schema_version_is_refused(tmp_path):
    Storage.open(tmp_path).close()
    with sqlite3.connect(tmp_path / "ledger.sqlite3") as db:
        db.execute("PRAGMA user_version=99")
    with pytest.raises(StorageError, match="schema version 99"):
        Storage.open(tmp_path)
    Storage.open(tmp_path / "fresh").close()


def test_a_file_that_is_not_a_ledger_is_a_clear_error(tmp_path):
    (tmp_path / "ledger.sqlite3").write_bytes(b"this is not a database" * 100)
    with pytest.raises(StorageError, match="cannot open"):
        Storage.open(tmp_path)


@pytest.fixture(params=["memory", "directory"])
def storage(request, tmp_path):
    opened = Storage.open(None if request.param == "memory" else tmp_path)
    yield opened
    opened.close()


def test_a_failed_commit_leaves_nothing_behind(storage):
    genesis, block, _, record = one_block_record()
    storage.commit(CommitRecord(block=genesis, block_num=0))
    clash = CommitRecord(block=block, block_num=0, nodes={("", "ab" * 32): b"node"}, invalid=record.invalid)
    with pytest.raises(sqlite3.IntegrityError):
        storage.commit(clash)
    assert storage.node_bytes(("", "ab" * 32)) is None
    assert storage.invalid("bad-batch") is None
    assert storage.head_block() == genesis


def test_committing_a_once_invalid_batch_clears_its_invalid_status(storage):
    genesis, _, batch, record = one_block_record()
    storage.commit(CommitRecord(block=genesis, block_num=0))
    storage.commit(CommitRecord(invalid={batch.header_signature: (InvalidTransactionInfo("t", "m", b""),)}))
    assert storage.invalid(batch.header_signature) is not None
    storage.commit(record)
    assert storage.invalid(batch.header_signature) is None
    assert storage.has_batch(batch.header_signature)


def test_accepted_batches_are_kept_in_arrival_order_until_a_block_or_an_invalid_status_decides_them(tmp_path):
    genesis, _, batch, record = one_block_record()
    invalid, waiting = kv_batch(set={address(2): "y"}), kv_batch(set={address(3): "z"})
    storage = Storage.open(tmp_path)
    try:
        storage.commit(CommitRecord(block=genesis, block_num=0))
        storage.add_pending([waiting])
        storage.add_pending([batch, invalid])
        assert storage.pending_batches() == [waiting, batch, invalid]
        storage.commit(CommitRecord(invalid={invalid.header_signature: (InvalidTransactionInfo("t", "m", b""),)}))
        storage.commit(record)
        assert storage.pending_batches() == [waiting]
    finally:
        storage.close()
    reopened = Storage.open(tmp_path)
    try:
        assert reopened.pending_batches() == [waiting]
    finally:
        reopened.close()


def test_a_failed_block_commit_leaves_its_batches_pending(tmp_path):
    storage = Storage.open(tmp_path)
    try:
        genesis, block, batch, _ = one_block_record()
        storage.commit(CommitRecord(block=genesis, block_num=0))
        storage.add_pending([batch])
        with pytest.raises(sqlite3.IntegrityError):
            storage.commit(CommitRecord(block=block, block_num=0))
        assert storage.pending_batches() == [batch]
        assert not storage.has_batch(batch.header_signature)
    finally:
        storage.close()


def test_a_submission_that_cannot_be_recorded_records_none_of_its_batches(tmp_path):
    storage = Storage.open(tmp_path)
    try:
        first, second = kv_batch(set={address(1): "a"}), kv_batch(set={address(2): "b"})
        storage.add_pending([first])
        with pytest.raises(StorageError, match="cannot record"):
            storage.add_pending([second, first])
        assert storage.pending_batches() == [first]
    finally:
        storage.close()


def test_syncing_the_accepted_batches_puts_them_in_the_database_file_itself(tmp_path):
    """A checkpoint: SQLite fsyncs the log, copies it into the database file and fsyncs that."""
    batch = kv_batch(set={address(1): "a"})
    copy = tmp_path / "copy"
    copy.mkdir()

    def recorded_in_database_file() -> list[tuple[str]]:
        shutil.copyfile(tmp_path / DATABASE_NAME, copy / DATABASE_NAME)
        with contextlib.closing(sqlite3.connect(copy / DATABASE_NAME)) as db:
            if not db.execute("SELECT 1 FROM sqlite_master WHERE name = 'pending_batches'").fetchall():
                return []
            return db.execute("SELECT id FROM pending_batches").fetchall()

    storage = Storage.open(tmp_path)
    try:
        storage.commit(CommitRecord(block=genesis_block(SIGNER, EMPTY_ROOT), block_num=0))
        storage.add_pending([batch])
        assert recorded_in_database_file() == []
        assert storage.sync_pending()
        assert recorded_in_database_file() == [(batch.header_signature,)]
        assert storage.pending_batches() == [batch]
    finally:
        storage.close()


def test_an_in_memory_ledger_keeps_no_record_of_accepted_batches():
    storage = Storage.open(None)
    storage.add_pending([kv_batch(set={address(1): "a"})])
    assert storage.pending_batches() == []


def test_an_unreadable_pending_batch_is_a_clear_error(tmp_path):
    Storage.open(tmp_path).close()
    with sqlite3.connect(tmp_path / "ledger.sqlite3") as db:
        db.execute("INSERT INTO pending_batches (id, data) VALUES ('garbled', x'ffff')")
    storage = Storage.open(tmp_path)
    try:
        with pytest.raises(StorageError, match="garbled"):
            storage.pending_batches()
    finally:
        storage.close()


def test_a_version_1_database_gains_the_pending_queue_and_keeps_its_chain(tmp_path):
    written = Storage.open(tmp_path)
    parts = fill(written)
    written.close()
    with sqlite3.connect(tmp_path / "ledger.sqlite3") as db:  # as the first xo-devnet left it: no pending queue
        db.execute("DROP TABLE pending_batches")
        db.execute("PRAGMA user_version=1")
    upgraded = Storage.open(tmp_path)
    try:
        check(upgraded, *parts)
        waiting = kv_batch(set={address(5): "w"})
        upgraded.add_pending([waiting])
        assert upgraded.pending_batches() == [waiting]
    finally:
        upgraded.close()
    with sqlite3.connect(tmp_path / "ledger.sqlite3") as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 2
