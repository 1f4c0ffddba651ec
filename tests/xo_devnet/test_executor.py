"""The executor against a scripted dispatcher: deferral keeps arrival order, cuts take only what finished."""

import asyncio

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

    async def process(self, txn, header, context, avoid=None):
        if header.family_name == "gone":
            raise NoProcessor("no processor for gone 1.0")
        if header.family_name == "stuck":
            await asyncio.Event().wait()
        self.processed.append(txn.header_signature)
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
