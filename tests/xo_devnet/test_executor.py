"""The executor against a scripted dispatcher: deferral keeps arrival order, cuts take only what finished."""

import asyncio

import pytest

from tests.xo_devnet.harness import address, batch_of, kv_txn, run
from xo_core.protobuf.processor_pb2 import TpProcessResponse
from xo_devnet.dispatcher import NoProcessor
from xo_devnet.executor import BlockExecutor
from xo_devnet.scheduler import PendingBatch

A, B = address("a"), address("b")


class ScriptedDispatcher:
    """Families: "kv" answers OK at once, "gone" has no processor, "stuck" never answers."""

    def __init__(self) -> None:
        self.processed: list[str] = []
        self.seen: dict[str, dict[str, bytes]] = {}
        """What each transaction read at the full addresses among its inputs."""

    async def process(self, txn, header, context, avoid=None):
        if header.family_name == "gone":
            raise NoProcessor("no processor for gone 1.0")
        if header.family_name == "stuck":
            await asyncio.Event().wait()
        self.processed.append(txn.header_signature)
        self.seen[txn.header_signature] = dict(context.get([i for i in header.inputs if len(i) == 70]))
        for address_ in header.outputs:
            context.set([(address_, b"written")])
        return TpProcessResponse(status=TpProcessResponse.OK), b"processor"


def batch(family: str, *addresses: str) -> PendingBatch:
    return PendingBatch.parse(batch_of(kv_txn(family=family, inputs=addresses, outputs=addresses)))


def executor_for(dispatcher: ScriptedDispatcher) -> BlockExecutor:
    return BlockExecutor(dispatcher, lambda address_: None, max_attempts=3, retry_delay=0.01)


def test_a_batch_waiting_for_a_deferred_one_is_deferred_without_running():
    dispatcher = ScriptedDispatcher()
    deferred, behind, unrelated = batch("gone", A), batch("kv", A), batch("kv", B)

    async def scenario():
        executor = executor_for(dispatcher)
        executor.add([deferred, behind, unrelated])
        await executor.settle(5)
        result = executor.cut()
        assert result.deferred == [deferred, behind]
        assert [pending for pending, _ in result.valid] == [unrelated]
        assert dispatcher.processed == [unrelated.txn_ids[0]]
        assert result.changes == {B: b"written"}
        assert executor.running == 0

    run(scenario)


def test_a_cut_takes_the_finished_batches_and_defers_those_stuck_behind_a_deferred_one():
    """`both` waits for the stuck batch and for the deferred one: the cut defers it at once, keeping its order."""
    dispatcher = ScriptedDispatcher()
    stuck, deferred, both, free = batch("stuck", B), batch("gone", A), batch("kv", A, B), batch("kv", address("c"))

    async def scenario():
        executor = executor_for(dispatcher)
        executor.add([stuck, deferred, both, free])
        await executor.settle(0.2)
        result = executor.cut()
        assert result.deferred == [deferred, both]
        assert [pending for pending, _ in result.valid] == [free]
        assert executor.running == 1
        assert executor.has_transaction(stuck.txn_ids[0])
        assert not executor.has_transaction(both.txn_ids[0])
        await executor.settle(0.05)
        assert executor.cut().deferred == []
        await executor.close()
        assert executor.running == 0

    run(scenario)


CLOCK = "00b10c" + "0" * 64


def opener() -> PendingBatch:
    return PendingBatch.parse(batch_of(kv_txn(family="opener", inputs=[CLOCK], outputs=[CLOCK])))


def write_clock(value: bytes):
    def execute(txn, header, context):
        context.set([(CLOCK, value)])

    return execute


def bound_executor(dispatcher: ScriptedDispatcher, **options) -> BlockExecutor:
    return BlockExecutor(
        dispatcher, lambda address_: None, max_attempts=3, retry_delay=0.01,
        bound_to_block=lambda pending: pending.touches("00b10c"), **options,
    )  # fmt: skip


def test_the_opener_comes_first_is_seen_by_later_batches_and_is_dropped_with_a_block_of_nothing_else():
    dispatcher = ScriptedDispatcher()

    async def scenario():
        executor = bound_executor(dispatcher)
        first = opener()
        executor.open_block(first, write_clock(b"block 1"))
        reader = PendingBatch.parse(batch_of(kv_txn(inputs=[A, CLOCK], outputs=[A])))
        executor.add([reader])
        await executor.settle(5)
        result = executor.cut(1.0)
        assert [pending for pending, _ in result.valid] == [first, reader]
        assert dispatcher.seen[reader.txn_ids[0]][CLOCK] == b"block 1"
        assert result.changes == {CLOCK: b"block 1", A: b"written"}
        executor.open_block(opener(), write_clock(b"block 2"))
        executor.add([batch("gone", B)])
        await executor.settle(5)
        nothing = executor.cut(2.0)
        assert (nothing.valid, nothing.changes, len(nothing.deferred)) == ([], {}, 1)

    run(scenario)


def test_a_batch_that_could_see_the_opener_is_cut_off_unfinished_and_invalid_once_that_went_on_too_long():
    dispatcher = ScriptedDispatcher()

    async def scenario():
        executor = bound_executor(dispatcher, cut_off_limit=10.0)
        stuck = batch("stuck", A, CLOCK)
        behind = batch("kv", A)
        carried = batch("stuck", B)
        executor.add([stuck, behind, carried])
        await executor.settle(0.05)
        result = executor.cut(100.0)
        assert result.deferred == [stuck, behind]
        assert stuck.cut_off_since == 100.0
        assert executor.running == 1, "a batch that cannot see the opener carries over"
        executor.open_block(opener(), write_clock(b"next"))
        executor.add([stuck])
        await executor.settle(0.05)
        [(invalid, [info])] = executor.cut(110.0).invalid
        assert invalid is stuck
        assert info.message.startswith("the batch did not finish within one block in 10 s of trying; it reads")
        assert info.message.endswith("(last: stuck 1.0 was processing its transaction 0)")
        await executor.close()

    run(scenario)


def test_the_opener_cannot_open_a_block_while_a_batch_that_could_see_it_still_runs():
    dispatcher = ScriptedDispatcher()

    async def scenario():
        executor = BlockExecutor(dispatcher, lambda address_: None, max_attempts=3, retry_delay=0.01,
                                 bound_to_block=lambda pending: True)
        executor.add([batch("stuck", A)])
        await asyncio.sleep(0)
        with pytest.raises(RuntimeError, match="still running from an earlier block"):
            executor.open_block(opener(), write_clock(b"too early"))
        await executor.close()

    run(scenario)
