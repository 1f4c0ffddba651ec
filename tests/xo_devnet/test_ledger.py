"""The ledger as its users see it: atomic batches, ordering, dependencies, statuses, chain and state reads."""

import asyncio
import contextlib
import logging
import shutil
import sqlite3
import threading
import time

import aiohttp
import pytest

from tests.xo_devnet.harness import (
    NAMESPACE,
    address,
    batch_of,
    commit,
    connected,
    eventually,
    head_value,
    kv_batch,
    kv_txn,
    run,
    running_ledger,
    submitted_batches,
)
from xo_core.protobuf.batch_pb2 import BatchList
from xo_core.signing import verify
from xo_devnet import block_info as block_opener
from xo_devnet.chain import header_of
from xo_devnet.ledger import DuplicateBatch, Ledger, LedgerConfig, LedgerError, QueueFull
from xo_devnet.merkle import EMPTY_ROOT
from xo_devnet.rest.server import start_rest_server
from xo_devnet.storage import DATABASE_NAME, Storage, StorageError

A, B, C = address("a"), address("b"), address("c")


def head_root(ledger) -> str:
    return header_of(ledger.chain_head()).state_root_hash


def test_a_new_ledger_starts_at_a_signed_genesis_with_empty_state():
    async def scenario():
        async with running_ledger() as ledger:
            head = ledger.chain_head()
            header = header_of(head)
            assert (header.block_num, header.state_root_hash, header.consensus) == (0, EMPTY_ROOT, b"Genesis")
            assert verify(ledger.node_public_key, head.header_signature, head.header)
            assert ledger.block_by_num(0) == head == ledger.block_by_id(head.header_signature)
            assert ledger.component_endpoint.startswith("tcp://127.0.0.1:")
            assert not ledger.component_endpoint.endswith(":0")

    run(scenario)


def test_a_batch_is_all_or_nothing():
    async def scenario():
        async with running_ledger() as ledger, connected(ledger):
            good, bad = kv_txn(set={A: "written"}), kv_txn(invalid="second one fails")
            batch = batch_of(good, bad)
            assert await commit(ledger, batch) == ["INVALID"]
            [status] = ledger.batch_statuses([batch.header_signature])
            assert [info.id for info in status.invalid_transactions] == [bad.header_signature]
            assert head_value(ledger, A) is None
            assert ledger.batch_by_id(batch.header_signature) is None
            assert ledger.transaction_by_id(good.header_signature) is None
            assert ledger.receipt(good.header_signature) is None

    run(scenario)


def test_batches_in_one_block_behave_as_if_run_one_after_another():
    async def scenario():
        async with running_ledger() as ledger, connected(ledger):
            counting = [kv_batch(add=A) for _ in range(40)]
            mixed = [kv_batch(set={B: "1"}), kv_batch(require=B, set={C: "seen b"}), kv_batch(delete=[B])]
            assert set(await commit(ledger, *counting, *mixed)) == {"COMMITTED"}
            assert header_of(ledger.chain_head()).block_num == 1
            assert head_value(ledger, A) == b"40"
            assert head_value(ledger, B) is None
            assert head_value(ledger, C) == b"seen b"

    run(scenario)


def test_a_later_batch_may_depend_on_an_earlier_one_in_the_same_block_but_not_on_an_invalid_one():
    async def scenario():
        async with running_ledger() as ledger, connected(ledger):
            first = kv_txn(set={A: "1"})
            failed = kv_txn(invalid="nope")
            after_first = batch_of(kv_txn(set={B: "1"}, dependencies=[first.header_signature]))
            after_failed = batch_of(kv_txn(set={C: "1"}, dependencies=[failed.header_signature]))
            ledger.submit([batch_of(first), batch_of(failed), after_first, after_failed])
            statuses = await ledger.wait_for_batches([after_first.header_signature], 20)
            assert statuses[0].status == "COMMITTED"
            await asyncio.sleep(0.2)
            assert ledger.batch_statuses([after_failed.header_signature])[0].status == "PENDING"

    run(scenario)


def test_a_batch_waits_until_its_dependency_is_committed():
    async def scenario():
        async with running_ledger() as ledger, connected(ledger):
            dependency = kv_txn(set={A: "first"})
            dependent = batch_of(kv_txn(require=A, set={B: "second"}, dependencies=[dependency.header_signature]))
            ledger.submit([dependent])
            assert (await ledger.wait_for_batches([dependent.header_signature], 0.3))[0].status == "PENDING"
            assert await commit(ledger, batch_of(dependency)) == ["COMMITTED"]
            assert (await ledger.wait_for_batches([dependent.header_signature], 20))[0].status == "COMMITTED"
            assert head_value(ledger, B) == b"second"

    run(scenario)


def test_duplicates_are_refused_naming_the_id_and_nothing_is_enqueued():
    async def scenario():
        async with running_ledger() as ledger, connected(ledger):
            batch = kv_batch(set={A: "1"})
            assert await commit(ledger, batch) == ["COMMITTED"]
            with pytest.raises(DuplicateBatch, match=batch.header_signature):
                ledger.submit([batch])
            reused = batch_of(batch.transactions[0], kv_txn(set={C: "1"}))
            with pytest.raises(DuplicateBatch, match=batch.transactions[0].header_signature):
                ledger.submit([reused])
            fresh = kv_batch(set={B: "1"})
            with pytest.raises(DuplicateBatch, match=fresh.header_signature):
                ledger.submit([fresh, fresh])
            assert ledger.batch_statuses([fresh.header_signature])[0].status == "UNKNOWN"

    run(scenario)


def test_a_full_queue_refuses_the_whole_submission():
    async def scenario():
        async with running_ledger(max_pending_batches=3) as ledger:
            ledger.submit([kv_batch(set={A: "1"}), kv_batch(set={B: "1"})])
            extra = [kv_batch(set={C: "1"}), kv_batch(set={address(9): "1"})]
            with pytest.raises(QueueFull):
                ledger.submit(extra)
            assert [status.status for status in ledger.batch_statuses([b.header_signature for b in extra])] == [
                "UNKNOWN",
                "UNKNOWN",
            ]

    run(scenario)


def test_waiting_returns_at_the_timeout_with_what_is_known():
    async def scenario():
        async with running_ledger() as ledger:
            batch = kv_batch(set={A: "1"})
            ledger.submit([batch])
            loop = asyncio.get_running_loop()
            started = loop.time()
            statuses = await ledger.wait_for_batches([batch.header_signature, "unknown-id"], 0.3)
            assert 0.25 <= loop.time() - started < 5
            assert [s.status for s in statuses] == ["PENDING", "UNKNOWN"]
            assert (await ledger.wait_for_batches(["unknown-id"], 30))[0].status == "UNKNOWN"

    run(scenario)


def test_an_invalid_batch_may_be_submitted_again_and_then_succeed():
    async def scenario():
        async with running_ledger() as ledger, connected(ledger):
            conditional = kv_batch(require=A, set={B: "1"})
            assert await commit(ledger, conditional) == ["INVALID"]
            assert await commit(ledger, kv_batch(set={A: "now set"})) == ["COMMITTED"]
            assert await commit(ledger, conditional) == ["COMMITTED"]
            assert ledger.batch_statuses([conditional.header_signature])[0].invalid_transactions == ()

    run(scenario)


def test_blocks_chain_up_and_every_committed_item_can_be_found():
    async def scenario():
        async with running_ledger() as ledger, connected(ledger):
            batches = [kv_batch(set={address(n): str(n)}) for n in range(3)]
            for batch in batches:
                assert await commit(ledger, batch) == ["COMMITTED"]
            head = header_of(ledger.chain_head())
            assert head.block_num == 3
            for number in range(1, 4):
                block = ledger.block_by_num(number)
                header = header_of(block)
                assert header.previous_block_id == ledger.block_by_num(number - 1).header_signature
                assert verify(ledger.node_public_key, block.header_signature, block.header)
                assert header.consensus == b"Devmode"
                assert ledger.state_root_of(block.header_signature) == header.state_root_hash
                batch = batches[number - 1]
                txn = batch.transactions[0]
                assert submitted_batches(block) == [batch]
                assert list(header.batch_ids) == [each.header_signature for each in block.batches]
                assert ledger.batch_by_id(batch.header_signature) == batch
                assert ledger.transaction_by_id(txn.header_signature) == txn
                assert ledger.block_id_of_batch(batch.header_signature) == block.header_signature
                assert ledger.block_id_of_transaction(txn.header_signature) == block.header_signature
                assert ledger.receipt(txn.header_signature).transaction_id == txn.header_signature
            assert ledger.block_by_num(4) is None
            first_root = ledger.state_root_of(ledger.block_by_num(1).header_signature)
            assert ledger.state_get(address(2), first_root) is None
            assert ledger.state_get(address(2), head.state_root_hash) == b"2"

    run(scenario)


def test_state_lists_by_prefix_in_pages():
    async def scenario():
        async with running_ledger() as ledger, connected(ledger):
            written = {address(n): str(n).encode() for n in range(7)}
            ops = {address_: data.decode() for address_, data in written.items()}
            assert await commit(ledger, kv_batch(set=ops)) == ["COMMITTED"]
            root = head_root(ledger)
            pages, start = [], None
            for _ in range(10):
                entries, start = ledger.state_list(NAMESPACE, root, start, 3)
                pages.append(entries)
                if start is None:
                    break
            assert [len(page) for page in pages] == [3, 3, 1]
            assert [entry for page in pages for entry in page] == sorted(written.items())
            assert ledger.state_list("ab", root, None, 10) == ([], None)
            assert ledger.state_list(NAMESPACE, "ab" * 32, None, 10) == ([], None)
            with pytest.raises(ValueError, match="prefix"):
                ledger.state_list("XY", root, None, 10)

    run(scenario)


def test_a_data_directory_ledger_restarts_where_it_stopped(tmp_path):
    async def scenario():
        async with running_ledger(tmp_path) as ledger, connected(ledger):
            assert await commit(ledger, kv_batch(set={A: "kept"})) == ["COMMITTED"]
            invalid = kv_batch(invalid="still invalid after restart")
            assert await commit(ledger, invalid) == ["INVALID"]
            head, key = ledger.chain_head(), ledger.node_public_key
        async with running_ledger(tmp_path) as ledger, connected(ledger):
            assert ledger.chain_head() == head
            assert ledger.node_public_key == key
            assert head_value(ledger, A) == b"kept"
            [status] = ledger.batch_statuses([invalid.header_signature])
            assert status.invalid_transactions[0].message == "still invalid after restart"
            assert await commit(ledger, kv_batch(set={B: "more"})) == ["COMMITTED"]
            assert header_of(ledger.chain_head()).previous_block_id == head.header_signature

    run(scenario)


def test_a_second_ledger_on_the_same_data_directory_is_refused(tmp_path):
    async def scenario():
        async with running_ledger(tmp_path):
            with pytest.raises(LedgerError, match="in use"):
                await Ledger.start(LedgerConfig(tmp_path, component_endpoint="tcp://127.0.0.1:0"))

    run(scenario)


def test_an_endpoint_that_cannot_be_bound_is_a_clear_error(tmp_path):
    async def scenario():
        async with running_ledger() as first:
            with pytest.raises(LedgerError, match="cannot bind"):
                await Ledger.start(LedgerConfig(tmp_path, component_endpoint=first.component_endpoint))
        async with running_ledger(tmp_path):
            pass

    run(scenario)


def test_accepted_batches_outlive_a_stop_and_run_first_in_arrival_order_after_a_restart(tmp_path):
    first, second = kv_batch(set={A: "first"}), kv_batch(require=A, set={A: "second", B: "1"})

    async def scenario():
        async with running_ledger(tmp_path) as ledger:
            await ledger.submit([first])
            await ledger.submit([second])
        async with running_ledger(tmp_path) as ledger:
            restored = [first.header_signature, second.header_signature]
            assert [status.status for status in ledger.batch_statuses(restored)] == ["PENDING", "PENDING"]
            newcomer = kv_batch(set={A: "newcomer"})
            await ledger.submit([newcomer])
            async with connected(ledger):
                statuses = await ledger.wait_for_batches([*restored, newcomer.header_signature], 20)
            assert [status.status for status in statuses] == ["COMMITTED"] * 3
            assert (head_value(ledger, A), head_value(ledger, B)) == (b"newcomer", b"1")

    run(scenario)


def test_duplicates_are_refused_across_a_restart_whether_pending_or_committed(tmp_path):
    pending, committed = kv_batch(set={A: "1"}), kv_batch(set={B: "1"})

    async def scenario():
        async with running_ledger(tmp_path) as ledger:
            async with connected(ledger):
                assert await commit(ledger, committed) == ["COMMITTED"]
            await ledger.submit([pending])
        async with running_ledger(tmp_path) as ledger:
            for batch in (pending, committed):
                with pytest.raises(DuplicateBatch, match=batch.header_signature):
                    ledger.submit([batch])
                with pytest.raises(DuplicateBatch, match=batch.transactions[0].header_signature):
                    ledger.submit([batch_of(batch.transactions[0], kv_txn(set={C: "1"}))])

    run(scenario)


def test_a_committed_batch_is_not_run_again_after_a_restart(tmp_path):
    counted = kv_batch(add=C)

    async def scenario():
        async with running_ledger(tmp_path) as ledger, connected(ledger):
            assert await commit(ledger, counted) == ["COMMITTED"]
            head = ledger.chain_head()
        async with running_ledger(tmp_path) as ledger, connected(ledger):
            assert await commit(ledger, kv_batch(set={A: "later"})) == ["COMMITTED"]
            assert header_of(ledger.chain_head()).block_num == header_of(head).block_num + 1
            assert head_value(ledger, C) == b"1"

    run(scenario)


def test_a_submission_storage_cannot_record_is_refused_stops_the_ledger_and_never_commits(tmp_path, monkeypatch):
    def disk_full(storage, batches):
        time.sleep(0.3)  # long enough for a block holding the batch to be executed and queued behind this write
        raise StorageError("database or disk is full")

    lost = kv_batch(set={A: "1"})

    async def scenario():
        async with running_ledger(tmp_path, block_interval=0.001) as ledger, connected(ledger):
            monkeypatch.setattr(Storage, "add_pending", disk_full)
            with pytest.raises(QueueFull, match="disk is full"):
                await ledger.submit([lost])
            assert ledger.batch_statuses([lost.header_signature])[0].status == "UNKNOWN"
            with pytest.raises(QueueFull, match="not accepting"):
                ledger.submit([kv_batch(set={B: "1"})])
            await asyncio.sleep(0.2)
            assert header_of(ledger.chain_head()).block_num == 0
        monkeypatch.undo()
        async with running_ledger(tmp_path, block_interval=0.001) as ledger, connected(ledger):
            assert ledger.batch_statuses([lost.header_signature])[0].status == "UNKNOWN"
            assert await commit(ledger, kv_batch(set={B: "after restart"})) == ["COMMITTED"]
            assert head_value(ledger, A) is None

    run(scenario)


def test_a_failed_block_write_stops_every_later_write_and_a_restart_commits_what_they_held(tmp_path, monkeypatch):
    real_commit = Storage.commit
    offered: list[int] = []
    release = threading.Event()

    def block_two_fails(storage, record):
        offered.append(record.block_num)
        if record.block is not None and record.block_num == 2:
            release.wait(10)  # keep block 2's write going until block 3 is queued behind it
            raise StorageError("disk I/O error")
        real_commit(storage, record)

    held, behind = kv_batch(set={B: "in block 2"}), kv_batch(set={C: "in block 3"})
    ids = [held.header_signature, behind.header_signature]

    async def scenario():
        async with (
            running_ledger(tmp_path, block_interval=0.001, max_batches_per_block=1) as ledger,
            connected(ledger) as processor,
        ):
            assert await commit(ledger, kv_batch(set={A: "in block 1"})) == ["COMMITTED"]
            monkeypatch.setattr(Storage, "commit", block_two_fails)
            await ledger.submit([held, behind])
            await eventually(lambda: processor.requests[-1].signature == behind.transactions[0].header_signature)
            await asyncio.sleep(0.3)  # block 3 is executed and handed to the writer
            release.set()
            await eventually(lambda: _refuses(ledger))
            assert [status.status for status in ledger.batch_statuses(ids)] == ["PENDING", "PENDING"]
            assert header_of(ledger.chain_head()).block_num == 1
        assert offered == [2]
        storage = Storage.open(tmp_path)
        try:
            assert header_of(storage.head_block()).block_num == 1
            assert [batch.header_signature for batch in storage.pending_batches()] == ids
        finally:
            storage.close()
        monkeypatch.undo()
        async with running_ledger(tmp_path) as ledger, connected(ledger):
            assert [status.status for status in await ledger.wait_for_batches(ids, 20)] == ["COMMITTED"] * 2
            assert (head_value(ledger, A), head_value(ledger, B), head_value(ledger, C)) == (
                b"in block 1",
                b"in block 2",
                b"in block 3",
            )

    run(scenario)


def _refuses(ledger) -> bool:
    """Whether the ledger has stopped taking batches."""
    try:
        ledger.submit([kv_batch(set={A: "refused"})])
    except QueueFull:
        return True
    return False


def test_an_accepted_batch_reaches_the_database_file_within_the_sync_interval_without_any_block(tmp_path):
    """No processor, so no block commit fsyncs the record: the ledger checkpoints it into the database file."""
    batch = kv_batch(set={A: "1"})
    copy = tmp_path / "copy"
    copy.mkdir()

    def in_database_file() -> bool:
        shutil.copyfile(tmp_path / DATABASE_NAME, copy / DATABASE_NAME)
        with contextlib.closing(sqlite3.connect(copy / DATABASE_NAME)) as db:
            if not db.execute("SELECT 1 FROM sqlite_master WHERE name = 'pending_batches'").fetchall():
                return False
            return db.execute("SELECT id FROM pending_batches").fetchall() == [(batch.header_signature,)]

    async def scenario():
        async with running_ledger(tmp_path, sync_interval=0.2) as ledger:
            await ledger.submit([batch])
            assert not in_database_file()
            await eventually(in_database_file, timeout=5)
            assert ledger.batch_statuses([batch.header_signature])[0].status == "PENDING"

    run(scenario)


def test_a_ledger_that_cannot_produce_blocks_says_why_once_refuses_batches_with_it_and_still_serves_reads(
    monkeypatch, caplog
):
    def broken(payload, context):
        raise block_opener.BlockInfoRefused("a bug, for this test")

    async def scenario():
        async with running_ledger() as ledger, connected(ledger):
            assert await commit(ledger, kv_batch(set={A: "before"})) == ["COMMITTED"]
            assert ledger.failure is None
            monkeypatch.setattr(block_opener, "apply", broken)
            with caplog.at_level(logging.ERROR, logger="xo_devnet.ledger"):
                await ledger.submit([kv_batch(set={B: "stuck"})])
                await eventually(lambda: ledger.failure is not None)
                reason = "block production failed at block 2: the BlockInfo of block 2 cannot be applied: a bug"
                assert ledger.failure.startswith(reason)
                rest = await start_rest_server(ledger, "127.0.0.1", 0)
                try:
                    async with aiohttp.ClientSession() as session:
                        for _ in range(3):
                            async with session.post(
                                f"{rest.url}/batches",
                                data=BatchList(batches=[kv_batch(set={C: "refused"})]).SerializeToString(),
                                headers={"Content-Type": "application/octet-stream"},
                            ) as answer:
                                assert answer.status == 429
                                assert reason in (await answer.json())["error"]["message"]
                        async with session.get(f"{rest.url}/status") as answer:
                            assert (await answer.json())["data"]["failure"] == ledger.failure
                        async with session.get(f"{rest.url}/state/{A}") as answer:
                            assert answer.status == 200
                        async with session.get(f"{rest.url}/blocks?limit=1") as answer:
                            assert (await answer.json())["data"][0]["header"]["block_num"] == "1"
                finally:
                    await rest.stop()
            failures = [record for record in caplog.records if "block production failed" in record.getMessage()]
            assert len(failures) == 1

    run(scenario)
