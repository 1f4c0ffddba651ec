"""A ledger with a kv processor in one process, committing batches until it is killed.

Run by the crash-recovery test as ``python -m tests.xo_devnet.ledger_process DATA_DIR FIRST``;
prints ``<batch id> <n>`` (flushed) for every batch once it is reported COMMITTED, where
batch n sets address(f"key{n}") to str(n).
"""

import asyncio
import sys
from pathlib import Path

from tests.xo_devnet.harness import address, connected, kv_batch, running_ledger

IN_FLIGHT = 8
TIME_LIMIT = 60.0


async def main(data_dir: Path, first: int) -> None:
    async with running_ledger(data_dir, block_interval=0.005) as ledger, connected(ledger):
        loop = asyncio.get_running_loop()
        deadline = loop.time() + TIME_LIMIT
        number = first
        while loop.time() < deadline:
            batches = {number + offset: kv_batch(set={address(f"key{number + offset}"): str(number + offset)})
                       for offset in range(IN_FLIGHT)}
            number += IN_FLIGHT
            ledger.submit(list(batches.values()))
            ids = [batch.header_signature for batch in batches.values()]
            statuses = await ledger.wait_for_batches(ids, 30)
            for (n, batch), status in zip(batches.items(), statuses, strict=True):
                if status.status == "COMMITTED":
                    sys.stdout.write(f"{batch.header_signature} {n}\n")
            sys.stdout.flush()


if __name__ == "__main__":
    asyncio.run(main(Path(sys.argv[1]), int(sys.argv[2])))
