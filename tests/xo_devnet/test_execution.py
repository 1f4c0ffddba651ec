"""Execution across blocks: arrival order survives deferral, and a stuck or slow transaction holds up only its own."""

import asyncio

from tests.xo_devnet.fake_processor import FakeProcessor
from tests.xo_devnet.harness import (
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
)
from xo_devnet.chain import header_of

A, B = address("a"), address("b")


def block_num_of(ledger, batch) -> int:
    return header_of(ledger.block_by_id(ledger.block_id_of_batch(batch.header_signature))).block_num


def test_a_batch_never_overtakes_an_earlier_conflicting_one_that_was_deferred():
    """`first` is deferred mid-block (its processor leaves); `second` waited for it, so it must wait again."""

    async def leave(processor, request):
        await processor.unregister()

    async def scenario():
        async with running_ledger() as ledger, connected(ledger):
            quitter = FakeProcessor(ledger.component_endpoint, leave, family="other")
            try:
                await quitter.start()
                first = batch_of(kv_txn(family="other", set={A: "first"}))
                second = kv_batch(set={A: "second"})
                unrelated = kv_batch(set={B: "unrelated"})
                await ledger.submit([first, second, unrelated])
                assert (await ledger.wait_for_batches([unrelated.header_signature], 20))[0].status == "COMMITTED"
                assert quitter.requests
                await asyncio.sleep(0.3)
                statuses = ledger.batch_statuses([first.header_signature, second.header_signature])
                assert [status.status for status in statuses] == ["PENDING", "PENDING"]
                async with connected(ledger, family="other"):
                    statuses = await ledger.wait_for_batches([first.header_signature, second.header_signature], 20)
                assert [status.status for status in statuses] == ["COMMITTED", "COMMITTED"]
                assert block_num_of(ledger, first) <= block_num_of(ledger, second)
                assert head_value(ledger, A) == b"second"
            finally:
                await quitter.close()

    run(scenario)


def test_a_stuck_transaction_holds_up_only_the_batches_that_must_wait_for_it():
    """A processor that answers pings but never a request: other batches still commit, one block at a time."""

    async def never(processor, request):
        return None

    async def scenario():
        async with (
            running_ledger(block_time_limit=0.2, process_timeout=30) as ledger,
            connected(ledger),
            connected(ledger, never, family="stuck") as stuck_processor,
        ):
            stuck = batch_of(kv_txn(family="stuck", set={A: "stuck"}))
            behind = kv_batch(set={A: "behind the stuck one"})
            await ledger.submit([stuck, behind])
            await eventually(lambda: stuck_processor.requests)
            free = [kv_batch(set={address(n): "free"}) for n in range(3)]
            for batch in free:
                assert await commit(ledger, batch, timeout=5) == ["COMMITTED"]
            statuses = ledger.batch_statuses([stuck.header_signature, behind.header_signature])
            assert [status.status for status in statuses] == ["PENDING", "PENDING"]
            assert len(stuck_processor.requests) == 1

    run(scenario)


def test_a_transaction_slower_than_a_block_finishes_in_a_later_block_on_the_state_before_it():
    """The slow batch is not re-sent; it reads what a batch cut into an earlier block wrote."""

    async def scenario():
        async with running_ledger(block_time_limit=0.1) as ledger, connected(ledger) as processor:
            written = kv_batch(set={A: "1"})
            slow = kv_batch(add=A, sleep=0.6)
            fast = kv_batch(set={B: "fast"})
            await ledger.submit([written, slow])
            await eventually(lambda: len(processor.requests) == 2)
            assert await commit(ledger, fast, timeout=5) == ["COMMITTED"]
            assert (await ledger.wait_for_batches([slow.header_signature], 20))[0].status == "COMMITTED"
            assert len(processor.requests) == 3
            assert block_num_of(ledger, written) <= block_num_of(ledger, fast) < block_num_of(ledger, slow)
            assert head_value(ledger, A) == b"2"

    run(scenario)
