"""Every block opens with its BlockInfo, and a batch that reads BlockInfo sees the one of the block it lands in.

The ledger applies BlockInfo itself (no processor to wait for): these tests check what
a Sawtooth validator with the BlockInfo injector guarantees, and the rule that keeps
continuous execution honest about it: a batch that reads BlockInfo and is unfinished
when a block is cut runs again after the next BlockInfo, never carrying what it read
into a block that opened with another one.
"""

import asyncio
import itertools
import json
import logging

import pytest

from tests.xo_devnet.fake_processor import OK, FakeProcessor, Response
from tests.xo_devnet.harness import (
    SIGNER,
    address,
    batch_of,
    commit,
    connected,
    head_value,
    kv_batch,
    kv_txn,
    run,
    running_ledger,
    submitted_batches,
)
from xo_core import block_info
from xo_core.batches import make_batch, make_transaction
from xo_core.protobuf.block_info_pb2 import BlockInfo, BlockInfoConfig, BlockInfoTxn
from xo_core.protobuf.transaction_pb2 import TransactionHeader
from xo_core.signing import verify
from xo_devnet import context as context_module
from xo_devnet.chain import header_of
from xo_devnet.ledger import Ledger, UnacceptedFamily

A, B = address("a"), address("b")
CLOCK_INPUTS = [block_info.CONFIG_ADDRESS, block_info.BLOCK_NAMESPACE]
START = 1_700_000_000


def ticking(step: int = 100):
    """A clock that moves ``step`` seconds on every reading: each block gets its own time."""
    readings = itertools.count(START, step)
    return lambda: next(readings)


def timed_batch(game: str, sleep: float = 0.0, family: str = "clock"):
    """A batch that reads the time from BlockInfo and writes it at ``game`` (first attempt sleeping ``sleep`` s)."""
    payload = json.dumps({"game": game, "sleep": sleep}).encode()
    txn = make_transaction(
        SIGNER, payload, family_name=family, family_version="1.0", inputs=[game, *CLOCK_INPUTS], outputs=[game]
    )
    return batch_of(txn)


def clock_reader():
    """A processor for the "clock" family: it reads the newest BlockInfo's time and writes it at the batch's game.

    It sleeps on a batch's first attempt only (``sleep`` in the payload), *after* reading
    the time, as a slow transaction that read BlockInfo early would.
    """
    attempts: dict[bytes, int] = {}

    async def handle(processor: FakeProcessor, request) -> Response:
        ops = json.loads(request.payload)
        config = BlockInfoConfig.FromString((await processor.get(request.context_id, [block_info.CONFIG_ADDRESS]))
                                             .entries[0].data)
        newest = block_info.block_address(config.latest_block)
        timestamp = BlockInfo.FromString((await processor.get(request.context_id, [newest])).entries[0].data).timestamp
        attempts[request.payload] = attempts.get(request.payload, 0) + 1
        if attempts[request.payload] == 1 and ops["sleep"]:
            await asyncio.sleep(ops["sleep"])
        await processor.set(request.context_id, {ops["game"]: str(timestamp).encode()})
        return Response(status=OK)

    return handle


def opening_blockinfo(ledger: Ledger, batch) -> BlockInfo:
    """The BlockInfo that opens the block holding ``batch``."""
    block = ledger.block_by_id(ledger.block_id_of_batch(batch.header_signature))
    return BlockInfoTxn.FromString(block.batches[0].transactions[0].payload).block


def test_every_block_opens_with_the_blockinfo_of_its_parent_signed_by_the_node_at_the_clocks_time():
    async def scenario():
        async with running_ledger(clock=ticking()) as ledger, connected(ledger):
            for number in range(3):
                assert await commit(ledger, kv_batch(set={address(number): "x"})) == ["COMMITTED"]
            head = header_of(ledger.chain_head())
            times = []
            for number in range(1, head.block_num + 1):
                block = ledger.block_by_num(number)
                parent = ledger.block_by_num(number - 1)
                assert len(submitted_batches(block)) == 1
                opener = block.batches[0]
                [txn] = opener.transactions
                assert verify(ledger.node_public_key, opener.header_signature, opener.header)
                assert verify(ledger.node_public_key, txn.header_signature, txn.header)
                assert TransactionHeader.FromString(txn.header).signer_public_key == ledger.node_public_key
                described = BlockInfoTxn.FromString(txn.payload).block
                assert described.block_num == number - 1
                assert described.header_signature == parent.header_signature
                assert described.previous_block_id == header_of(parent).previous_block_id
                assert described.signer_public_key == ledger.node_public_key
                times.append(described.timestamp)
                receipt = ledger.receipt(txn.header_signature)
                assert {change.address for change in receipt.state_changes} == {
                    block_info.CONFIG_ADDRESS, block_info.block_address(number - 1)
                }
                assert list(receipt.events) == []
            assert times == sorted(times) and len(set(times)) == len(times) and times[0] >= START
            config = BlockInfoConfig.FromString(head_value(ledger, block_info.CONFIG_ADDRESS))
            assert (config.latest_block, config.oldest_block) == (head.block_num - 1, 0)

    run(scenario)


def test_the_time_on_the_chain_never_goes_backwards_when_the_clock_does():
    readings = iter([START + 500, START + 100, START + 50, START + 900, *[START + 1000] * 10])

    async def scenario():
        async with running_ledger(clock=lambda: next(readings)) as ledger, connected(ledger):
            for number in range(4):
                assert await commit(ledger, kv_batch(set={address(number): "x"})) == ["COMMITTED"]
            described = [
                BlockInfoTxn.FromString(ledger.block_by_num(n).batches[0].transactions[0].payload).block.timestamp
                for n in range(1, 5)
            ]
            assert described == [START + 500, START + 500, START + 500, START + 900]

    run(scenario)


def test_a_batch_reading_blockinfo_sees_the_blockinfo_of_the_block_it_lands_in():
    async def scenario():
        async with (
            running_ledger(clock=ticking()) as ledger,
            connected(ledger),
            connected(ledger, clock_reader(), family="clock"),
        ):
            batches = [timed_batch(address(f"game{n}")) for n in range(4)]
            for batch in batches[:2]:
                assert await commit(ledger, batch) == ["COMMITTED"]
            assert await commit(ledger, *batches[2:]) == ["COMMITTED", "COMMITTED"]
            for n, batch in enumerate(batches):
                seen = head_value(ledger, address(f"game{n}"))
                assert seen == str(opening_blockinfo(ledger, batch).timestamp).encode()

    run(scenario)


def test_one_unfinished_at_a_cut_runs_again_after_the_next_blockinfo_while_others_carry_over():
    """The slow clock reader read block N's BlockInfo; it is cut off, re-sent, and lands with the time of its block."""

    async def scenario():
        async with (
            running_ledger(clock=ticking(), block_time_limit=0.1) as ledger,
            connected(ledger) as kv,
            connected(ledger, clock_reader(), family="clock") as clock,
        ):
            slow_reader = timed_batch(A, sleep=0.6)
            slow_other = kv_batch(set={B: "late"}, sleep=0.6)
            fast = kv_batch(set={address("fast"): "1"})
            await ledger.submit([slow_reader, slow_other, fast])
            statuses = await ledger.wait_for_batches([slow_reader.header_signature, slow_other.header_signature], 20)
            assert [status.status for status in statuses] == ["COMMITTED", "COMMITTED"]
            assert (await ledger.wait_for_batches([fast.header_signature], 5))[0].status == "COMMITTED"

            assert len(clock.requests) == 2, "the clock reader ran again after it was cut off"
            assert len([r for r in kv.requests if r.payload == slow_other.transactions[0].payload]) == 1
            landed = opening_blockinfo(ledger, slow_reader)
            first_block = ledger.block_id_of_batch(fast.header_signature)
            assert ledger.block_id_of_batch(slow_reader.header_signature) != first_block
            assert head_value(ledger, A) == str(landed.timestamp).encode()

    run(scenario)


def test_one_that_never_finishes_within_a_block_ends_invalid_and_holds_up_nobody():
    async def never(processor, request):
        return None

    async def scenario():
        async with (
            running_ledger(block_time_limit=0.1, process_timeout=0.2, max_attempts=2) as ledger,
            connected(ledger),
            connected(ledger, never, family="clock") as stuck,
        ):
            stuck_batch = timed_batch(A)
            await ledger.submit([stuck_batch])
            for n in range(3):
                assert await commit(ledger, kv_batch(set={address(n): "free"}), timeout=5) == ["COMMITTED"]
            [status] = await ledger.wait_for_batches([stuck_batch.header_signature], 20)
            assert status.status == "INVALID"
            [info] = status.invalid_transactions
            assert info.message == (
                "the batch did not finish within one block in 1 s of trying; it reads BlockInfo, so it must finish"
                " in the block it starts in (last: clock 1.0 was processing its transaction 0)"
            )
            assert len(stuck.requests) >= 2

    run(scenario)


def test_readers_of_blockinfo_in_different_games_run_side_by_side_in_one_block():
    async def slow(processor, request):
        await asyncio.sleep(0.2)
        return Response(status=OK)

    async def scenario():
        async with running_ledger() as ledger, connected(ledger, slow, family="clock") as clock:
            batches = [timed_batch(address(f"game{n}")) for n in range(3)]
            assert await commit(ledger, *batches) == ["COMMITTED"] * 3
            assert clock.most_busy == 3
            blocks = {ledger.block_id_of_batch(batch.header_signature) for batch in batches}
            assert len(blocks) == 1

    run(scenario)


def test_a_family_reading_blockinfo_without_a_processor_holds_up_no_one_and_ends_invalid():
    """No processor for "clock": its batch waits, alone; other readers of BlockInfo and kv batches commit meanwhile."""

    async def scenario():
        async with (
            running_ledger(processor_wait=1.0) as ledger,
            connected(ledger),
            connected(ledger, clock_reader(), family="other-clock"),
        ):
            orphan = timed_batch(A)
            reader = timed_batch(B, family="other-clock")
            plain = kv_batch(set={address("plain"): "1"})
            await ledger.submit([orphan, reader, plain])
            statuses = await ledger.wait_for_batches([reader.header_signature, plain.header_signature], 5)
            assert [status.status for status in statuses] == ["COMMITTED", "COMMITTED"]
            assert ledger.batch_statuses([orphan.header_signature])[0].status == "PENDING", "nobody waited for it"
            [status] = await ledger.wait_for_batches([orphan.header_signature], 10)
            assert status.status == "INVALID"
            assert status.invalid_transactions[0].message == (
                "no transaction processor for clock 1.0 registered within 1 s"
            )

    run(scenario)


@pytest.mark.parametrize("families", [None, frozenset({("block_info", "1.0"), ("kv", "1.0")})])
def test_nobody_else_may_submit_a_blockinfo_transaction(families):
    async def scenario():
        async with running_ledger(families=families) as ledger:
            txn = make_transaction(
                SIGNER, b"forged time", family_name="block_info", family_version="1.0",
                inputs=CLOCK_INPUTS, outputs=CLOCK_INPUTS,
            )  # fmt: skip
            with pytest.raises(UnacceptedFamily, match="is written only by the ledger itself"):
                ledger.submit([make_batch(SIGNER, [txn])])

    run(scenario)


def test_blockinfo_state_that_no_longer_reads_stops_no_block(monkeypatch):
    """BlockInfo's writer trusts the chain, not state: garbage written there (by a ledger that let any processor
    claim the namespace, as this one did before) is overwritten by the next block's BlockInfo."""
    monkeypatch.setattr(context_module, "LEDGER_NAMESPACES", {})

    async def scenario():
        async with (
            running_ledger(clock=ticking()) as ledger,
            connected(ledger),
            connected(ledger, family="vandal", namespaces=[block_info.NAMESPACE]),
        ):
            vandal = batch_of(kv_txn(family="vandal", set={block_info.CONFIG_ADDRESS: "garbage"}))
            assert await commit(ledger, vandal) == ["COMMITTED"]
            head = header_of(ledger.chain_head()).block_num
            assert await commit(ledger, kv_batch(set={A: "after"})) == ["COMMITTED"]
            assert header_of(ledger.chain_head()).block_num == head + 1
            config = BlockInfoConfig.FromString(head_value(ledger, block_info.CONFIG_ADDRESS))
            assert config.latest_block == head
            assert ledger.failure is None

    run(scenario)


def test_many_readers_cut_off_at_once_are_one_log_line_and_a_count(caplog):
    """Clients choose how many slow BlockInfo readers a block holds: their cut-offs are held to one line per 10 s."""
    caplog.set_level(logging.INFO, logger="xo_devnet.executor")

    async def scenario():
        async with (
            running_ledger(clock=ticking(), block_time_limit=0.1) as ledger,
            connected(ledger),
            connected(ledger, clock_reader(), family="clock"),
        ):
            readers = [timed_batch(address(f"slow{n}"), sleep=0.5) for n in range(5)]
            await ledger.submit(readers)
            statuses = await ledger.wait_for_batches([batch.header_signature for batch in readers], 20)
            assert [status.status for status in statuses] == ["COMMITTED"] * 5
            lines = [record.getMessage() for record in caplog.records if "unfinished at a cut" in record.getMessage()]
            assert len(lines) == 1, lines
        counted = [record.getMessage() for record in caplog.records if "more like it" in record.getMessage()]
        assert len(counted) == 1, counted  # written as the ledger stops
        assert counted[0].endswith("it runs again in the next block (4 more like it in the last 10 s)")

    run(scenario)
