"""Storage: what a commit writes is read back, survives reopening, and is all-or-nothing."""

import sqlite3

import pytest

from tests.xo_devnet.harness import SIGNER, address, kv_batch
from xo_core.protobuf.transaction_receipt_pb2 import TransactionReceipt
from xo_devnet.chain import build_block, genesis_block
from xo_devnet.merkle import EMPTY_NODE, EMPTY_ROOT
from xo_devnet.status import InvalidTransactionInfo
from xo_devnet.storage import CommitRecord, Storage, StorageError


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
