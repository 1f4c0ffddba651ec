"""A ledger in one process, taking batches until it is killed.

Run by the crash-recovery tests as ``python -m tests.xo_devnet.ledger_process DATA_DIR FIRST [--no-processor]``.
Batch n adds one to ``COUNTER``, sets address(f"key{n}") to str(n) and, after the first, requires key{n-1}:
run out of order it would be INVALID, run twice the counter would show it. The process prints (flushed)
``accepted <batch id> <n>`` once ``submit``'s acknowledgement completed (what the REST API waits for before
its 202) and, with its kv processor, ``committed <batch id> <n>`` once the batch is reported COMMITTED.
Without a processor nothing commits: every accepted batch stays pending until the process is killed.
"""

import asyncio
import contextlib
import sys
from pathlib import Path

from tests.xo_devnet.harness import address, connected, kv_batch, running_ledger
from xo_core.protobuf.batch_pb2 import Batch
from xo_devnet.ledger import Ledger

COUNTER = address("counter")
IN_FLIGHT = 8
TIME_LIMIT = 60.0
MAX_UNPROCESSED = 500


def numbered_batch(n: int, first: int) -> Batch:
    previous = {"require": address(f"key{n - 1}")} if n > first else {}
    return kv_batch(add=COUNTER, set={address(f"key{n}"): str(n)}, **previous)


def report(word: str, batches: dict[int, Batch]) -> None:
    for n, batch in batches.items():
        sys.stdout.write(f"{word} {batch.header_signature} {n}\n")
    sys.stdout.flush()


async def feed(ledger: Ledger, first: int, wait_for_commits: bool) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + TIME_LIMIT
    number = first
    while loop.time() < deadline and (wait_for_commits or number - first < MAX_UNPROCESSED):
        batches = {n: numbered_batch(n, first) for n in range(number, number + IN_FLIGHT)}
        number += IN_FLIGHT
        await ledger.submit(list(batches.values()))
        report("accepted", batches)
        if wait_for_commits:
            statuses = await ledger.wait_for_batches([batch.header_signature for batch in batches.values()], 30)
            done = {n: batch for (n, batch), status in zip(batches.items(), statuses, strict=True)
                    if status.status == "COMMITTED"}
            report("committed", done)
    await asyncio.sleep(max(0.0, deadline - loop.time()))


async def main(data_dir: Path, first: int, with_processor: bool) -> None:
    async with running_ledger(data_dir, block_interval=0.005) as ledger:
        processor = connected(ledger) if with_processor else contextlib.nullcontext()
        async with processor:
            await feed(ledger, first, wait_for_commits=with_processor)


if __name__ == "__main__":
    asyncio.run(main(Path(sys.argv[1]), int(sys.argv[2]), "--no-processor" not in sys.argv[3:]))
