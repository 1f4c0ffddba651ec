"""Engine throughput: signed XO batches through the ledger and a real `xo-tp`, without REST.

Starts an in-memory (or --data-dir) ledger and an `xo-tp` subprocess, submits
--batches single-transaction XO `create` batches in chunks of --chunk (as a stream of
REST posts would), and waits until all are committed. Prints one JSON line:
batches_per_s, p50/p99 submit-to-commit latency in ms, blocks, and the ledger
process's CPU milliseconds per batch, in all and on the event-loop thread (the REST API
shares that thread; storage commits of a data-directory ledger run on a writer thread).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path

from xo_core.batches import make_batch
from xo_core.signing import Signer
from xo_devnet.chain import header_of
from xo_devnet.ledger import Ledger, LedgerConfig
from xo_tp.transactions import make_xo_transaction


def cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


async def wait_registered(ledger: Ledger, process: asyncio.subprocess.Process) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 30
    while ("xo", "1.0") not in ledger.processors():
        if loop.time() > deadline or process.returncode is not None:
            raise SystemExit("xo-tp did not register")
        await asyncio.sleep(0.05)


async def run(args: argparse.Namespace, data_dir: Path | None) -> dict[str, object]:
    signer = Signer.generate()
    batches = [make_batch(signer, [make_xo_transaction(signer, f"bench-{n}", "create")]) for n in range(args.batches)]
    config = LedgerConfig(data_dir=data_dir, component_endpoint="tcp://127.0.0.1:0",
                          max_pending_batches=max(10_000, args.batches))
    ledger = await Ledger.start(config)
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "xo_tp.cli", "-C", ledger.component_endpoint, "--max-occupancy", str(args.occupancy),
        stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.DEVNULL,
    )
    try:
        await wait_registered(ledger, process)
        loop = asyncio.get_running_loop()
        first_block = header_of(ledger.chain_head()).block_num
        latencies: list[float] = []

        async def follow(chunk: list[str], submitted: float) -> None:
            await ledger.wait_for_batches(chunk, 120)
            latencies.extend([loop.time() - submitted] * len(chunk))

        cpu_before, loop_cpu_before, started = cpu_seconds(), time.thread_time(), loop.time()
        followers = []
        for offset in range(0, len(batches), args.chunk):
            chunk = batches[offset : offset + args.chunk]
            if args.rate:
                await asyncio.sleep(max(0.0, started + offset / args.rate - loop.time()))
            ledger.submit(chunk)
            followers.append(asyncio.create_task(follow([b.header_signature for b in chunk], loop.time())))
            await asyncio.sleep(0)
        await asyncio.gather(*followers)
        elapsed, cpu = loop.time() - started, cpu_seconds() - cpu_before
        loop_cpu = time.thread_time() - loop_cpu_before
        statuses = ledger.batch_statuses([batch.header_signature for batch in batches])
        committed = sum(status.status == "COMMITTED" for status in statuses)
        latencies.sort()
        return {
            "benchmark": "engine_throughput",
            "batches": args.batches,
            "committed": committed,
            "storage": "data-dir" if data_dir else "memory",
            "batches_per_s": round(committed / elapsed, 1),
            "p50_ms": round(statistics.median(latencies) * 1000, 1),
            "p99_ms": round(latencies[int(len(latencies) * 0.99) - 1] * 1000, 1),
            "blocks": header_of(ledger.chain_head()).block_num - first_block,
            "offered_rate": args.rate or None,
            "ledger_cpu_ms_per_batch": round(cpu * 1000 / max(committed, 1), 3),
            "loop_thread_cpu_ms_per_batch": round(loop_cpu * 1000 / max(committed, 1), 3),
        }
    finally:
        process.terminate()
        await process.wait()
        await ledger.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batches", type=int, default=5000)
    parser.add_argument("--chunk", type=int, default=50, help="batches per submit call")
    parser.add_argument("--rate", type=float, default=0, help="offered batches/s (default: all at once)")
    parser.add_argument("--occupancy", type=int, default=10, help="xo-tp --max-occupancy")
    parser.add_argument("--data-dir", action="store_true", help="persist to a temporary data directory")
    args = parser.parse_args()
    if args.data_dir:
        with tempfile.TemporaryDirectory(prefix="xo-engine-bench-") as directory:
            result = asyncio.run(run(args, Path(directory)))
    else:
        result = asyncio.run(run(args, None))
    print(json.dumps(result))


if __name__ == "__main__":
    main()
