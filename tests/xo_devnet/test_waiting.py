"""No batch waits without bound, and batches that cannot run yet never crowd out those that can.

A batch waiting for a processor of its family, or for a dependency that has not
arrived, ends INVALID after a bounded time, with a reason that says so, and what
waited behind it proceeds. Batches that cannot run yet hold at most their share of
the queue, so runnable batches are still accepted; all of it holds after a restart.
"""

import asyncio

import pytest

from tests.xo_devnet.harness import (
    NAMESPACE,
    address,
    batch_of,
    commit,
    connected,
    head_value,
    kv_batch,
    kv_txn,
    run,
    running_ledger,
)
from xo_devnet.ledger import QueueFull

A, B = address("a"), address("b")
MISSING = "ab" * 64
SHORT = 0.3


def test_a_batch_with_no_processor_ends_invalid_after_the_processor_wait_and_what_waited_behind_it_proceeds():
    orphan = batch_of(kv_txn(family="intkey", inputs=[NAMESPACE], outputs=[NAMESPACE]))
    behind = kv_batch(set={A: "after the orphan"})

    async def scenario():
        async with running_ledger(processor_wait=SHORT) as ledger, connected(ledger):
            await ledger.submit([orphan, behind])
            statuses = await ledger.wait_for_batches([orphan.header_signature, behind.header_signature], 20)
            assert [status.status for status in statuses] == ["INVALID", "COMMITTED"]
            [reason] = statuses[0].invalid_transactions
            assert reason.id == orphan.transactions[0].header_signature
            assert reason.message == "no transaction processor for intkey 1.0 registered within 0.3 s"
            assert head_value(ledger, A) == b"after the orphan"

    run(scenario)


def test_a_processor_that_registers_within_the_wait_gets_the_batch():
    async def scenario():
        async with running_ledger(processor_wait=2.0) as ledger:
            batch = kv_batch(set={A: "late"})
            await ledger.submit([batch])
            await asyncio.sleep(0.5)
            async with connected(ledger):
                assert (await ledger.wait_for_batches([batch.header_signature], 20))[0].status == "COMMITTED"

    run(scenario)


def test_a_batch_whose_dependency_never_arrives_ends_invalid_naming_the_missing_id():
    dependent = batch_of(kv_txn(set={A: "1"}, dependencies=[MISSING]))

    async def scenario():
        async with running_ledger(dependency_wait=SHORT) as ledger, connected(ledger):
            await ledger.submit([dependent])
            [status] = await ledger.wait_for_batches([dependent.header_signature], 20)
            assert status.status == "INVALID"
            [reason] = status.invalid_transactions
            assert reason.id == dependent.transactions[0].header_signature
            assert reason.message == (
                f"dependency {MISSING} did not run within 0.3 s"
                " (it was not submitted, it ended INVALID, or it could not run itself)"
            )

    run(scenario)


def test_a_dependency_submitted_a_little_later_is_waited_for():
    dependency = kv_txn(set={A: "first"})
    dependent = batch_of(kv_txn(require=A, set={B: "second"}, dependencies=[dependency.header_signature]))

    async def scenario():
        async with running_ledger(dependency_wait=2.0) as ledger, connected(ledger):
            await ledger.submit([dependent])
            await asyncio.sleep(0.5)
            assert await commit(ledger, batch_of(dependency)) == ["COMMITTED"]
            assert (await ledger.wait_for_batches([dependent.header_signature], 20))[0].status == "COMMITTED"

    run(scenario)


def test_a_batch_whose_dependency_ended_invalid_waits_for_it_again_then_ends_invalid_naming_it():
    failed = kv_txn(invalid="not this time")
    dependent = batch_of(kv_txn(set={A: "1"}, dependencies=[failed.header_signature]))

    async def scenario():
        async with running_ledger(dependency_wait=SHORT) as ledger, connected(ledger):
            await ledger.submit([batch_of(failed), dependent])
            [status] = await ledger.wait_for_batches([dependent.header_signature], 20)
            assert status.status == "INVALID"
            assert status.invalid_transactions[0].message.startswith(f"dependency {failed.header_signature} did not")

    run(scenario)


def test_batches_that_depend_on_each_other_end_invalid_after_the_dependency_wait():
    first, second = kv_txn(set={A: "1"}), kv_txn(set={B: "1"})
    cycle = [
        batch_of(kv_txn(set={address("x"): "1"}, dependencies=[second.header_signature]), first),
        batch_of(kv_txn(set={address("y"): "1"}, dependencies=[first.header_signature]), second),
    ]

    async def scenario():
        async with running_ledger(dependency_wait=SHORT) as ledger, connected(ledger):
            await ledger.submit(cycle)
            statuses = await ledger.wait_for_batches([batch.header_signature for batch in cycle], 20)
            assert [status.status for status in statuses] == ["INVALID", "INVALID"]
            assert second.header_signature in statuses[0].invalid_transactions[0].message

    run(scenario)


def test_batches_that_cannot_run_yet_take_at_most_their_share_and_runnable_ones_are_still_accepted():
    async def scenario():
        async with running_ledger(max_pending_batches=20, max_waiting_batches=5) as ledger, connected(ledger):
            for number in range(5):
                await ledger.submit([batch_of(kv_txn(set={address(number): "1"}, dependencies=[MISSING]))])
            with pytest.raises(QueueFull, match="5 batches that cannot run yet"):
                ledger.submit([batch_of(kv_txn(set={A: "1"}, dependencies=[MISSING]))])
            with pytest.raises(QueueFull, match="cannot run yet"):
                ledger.submit([batch_of(kv_txn(family="nobody", set={A: "1"}))])
            runnable = [kv_batch(set={address(f"r{number}"): "1"}) for number in range(15)]
            assert await commit(ledger, *runnable) == ["COMMITTED"] * 15

    run(scenario)


def test_a_batch_depending_on_one_that_has_not_run_yet_counts_as_unable_to_run():
    async def scenario():
        async with running_ledger(max_waiting_batches=1) as ledger, connected(ledger):
            first = kv_txn(set={A: "1"})
            second = batch_of(kv_txn(set={B: "2"}, dependencies=[first.header_signature]))
            submissions = [ledger.submit([batch_of(first)]), ledger.submit([second])]
            with pytest.raises(QueueFull, match="cannot run yet"):
                ledger.submit([batch_of(kv_txn(set={B: "3"}, dependencies=[first.header_signature]))])
            await asyncio.gather(*submissions)
            assert (await ledger.wait_for_batches([second.header_signature], 20))[0].status == "COMMITTED"

    run(scenario)


def test_a_submission_of_a_batch_and_one_depending_on_it_is_runnable():
    async def scenario():
        async with running_ledger(max_waiting_batches=1) as ledger, connected(ledger):
            first = kv_txn(set={A: "1"})
            second = batch_of(kv_txn(require=A, set={B: "2"}, dependencies=[first.header_signature]))
            await ledger.submit([kv_batch(set={address("x"): "1"}, dependencies=[MISSING])])
            assert await commit(ledger, batch_of(first), second) == ["COMMITTED", "COMMITTED"]

    run(scenario)


def test_a_restarted_ledger_holding_a_flood_of_undecidable_batches_takes_honest_ones_and_decides_the_flood(tmp_path):
    flood = [batch_of(kv_txn(set={address(number): "1"}, dependencies=[MISSING])) for number in range(60)]

    async def scenario():
        async with running_ledger(tmp_path, max_pending_batches=60, max_waiting_batches=60) as ledger:
            await ledger.submit(flood)
        async with (
            running_ledger(tmp_path, max_pending_batches=60, max_waiting_batches=10, dependency_wait=SHORT) as ledger,
            connected(ledger),
        ):
            honest = kv_batch(set={A: "honest"})
            assert await commit(ledger, honest) == ["COMMITTED"]
            statuses = await ledger.wait_for_batches([batch.header_signature for batch in flood], 20)
            assert {status.status for status in statuses} == {"INVALID"}
            assert MISSING in statuses[0].invalid_transactions[0].message

    run(scenario)
