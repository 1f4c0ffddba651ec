"""Commit-to-subscriber latency: from a block becoming the head to its message arriving at websocket watchers.

Runs xo-devnet's parts in this process (the ledger, its REST API) with a real
``xo-tp`` beside it, and --watchers websocket clients in a separate process
(``benchmarks/_watchers.py``) subscribed to the XO namespace. It then commits XO
``create`` batches at --rate per second for --seconds. The commit time of a block
is noted when the ledger publishes it to its subscribers (the moment its head
moves, after storage made it durable); each watcher notes when the block's message
arrives; the latency is the difference (one clock, one machine). Prints one JSON
line: p50 / p99 / max latency in ms over every (watcher, block) pair, whether every
watcher got every block once, in order, and the CPU this process (ledger and REST
API, not the watchers) spent per block: the difference between runs with 1 and with
100 watchers is the cost of the fan-out.

    python benchmarks/subscription_latency.py --watchers 1
    python benchmarks/subscription_latency.py --watchers 100
"""

from __future__ import annotations

import argparse
import asyncio
import json
import resource
import signal
import statistics
import sys
import tempfile
import time
from pathlib import Path

from xo_client.transactions import make_xo_transaction
from xo_core.batches import make_batch
from xo_core.signing import Signer
from xo_devnet.events.blocks import BlockEvents
from xo_devnet.ledger import Ledger, LedgerConfig
from xo_devnet.rest.server import start_rest_server

HERE = Path(__file__).parent


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


def note_commit_times(ledger: Ledger) -> dict[int, float]:
    """Wrap the hub's ``publish`` (measurement only) to note when each block is handed to subscribers."""
    committed: dict[int, float] = {}
    publish = ledger.events.publish

    def timed(block: BlockEvents) -> None:
        committed[block.block_num] = time.time()
        publish(block)

    ledger.events.publish = timed  # type: ignore[method-assign]
    return committed


async def run(args: argparse.Namespace, out: Path) -> dict[str, object]:
    signer = Signer.generate()
    count = int(args.rate * args.seconds)
    batches = [make_batch(signer, [make_xo_transaction(signer, f"latency-{n}", "create")]) for n in range(count)]
    ledger = await Ledger.start(LedgerConfig(data_dir=None, component_endpoint="tcp://127.0.0.1:0"))
    rest = await start_rest_server(ledger, "127.0.0.1", 0)
    processor = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "xo_tp.cli", "-C", ledger.component_endpoint,
        stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.DEVNULL,
    )  # fmt: skip
    watchers = await asyncio.create_subprocess_exec(
        sys.executable, str(HERE / "_watchers.py"), "--url", rest.url, "--count", str(args.watchers), "--out", str(out),
        stdout=asyncio.subprocess.PIPE,
    )  # fmt: skip
    try:
        await wait_registered(ledger, processor)
        assert watchers.stdout is not None
        if (await asyncio.wait_for(watchers.stdout.readline(), 60)).strip() != b"ready":
            raise SystemExit("the watchers did not start")
        committed = note_commit_times(ledger)
        loop = asyncio.get_running_loop()
        started, cpu_before = loop.time(), cpu_seconds()
        for number, batch in enumerate(batches):
            await asyncio.sleep(max(0.0, started + number / args.rate - loop.time()))
            ledger.submit([batch])
        statuses = await ledger.wait_for_batches([batch.header_signature for batch in batches], 120)
        await asyncio.sleep(1.0)  # the last block's messages
        cpu = cpu_seconds() - cpu_before
        watchers.send_signal(signal.SIGTERM)
        summary = json.loads((await asyncio.wait_for(watchers.stdout.read(), 60)).decode())
        await watchers.wait()
    finally:
        if watchers.returncode is None:
            watchers.kill()
            await watchers.wait()
        processor.terminate()
        await processor.wait()
        await rest.stop()
        await ledger.stop()
    arrivals = json.loads(out.read_text(encoding="utf-8"))
    latencies = sorted(arrived - committed[block] for _, block, arrived in arrivals if block in committed)
    return {
        "benchmark": "subscription_latency",
        "watchers": args.watchers,
        "batches": count,
        "committed": sum(status.status == "COMMITTED" for status in statuses),
        "blocks": len(committed),
        "samples": len(latencies),
        "p50_ms": round(statistics.median(latencies) * 1000, 2),
        "p99_ms": round(latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))] * 1000, 2),
        "max_ms": round(latencies[-1] * 1000, 2),
        "ledger_cpu_ms_per_block": round(cpu * 1000 / max(1, len(committed)), 3),
        "complete_and_in_order": summary["complete_and_in_order"],
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--watchers", type=int, default=1, help="websocket subscribers (in one other process)")
    parser.add_argument("--rate", type=float, default=20.0, help="batches committed per second")
    parser.add_argument("--seconds", type=float, default=10.0, help="how long to commit")
    parser.add_argument("--smoke", action="store_true", help="one second, two watchers: checks it still runs")
    args = parser.parse_args()
    if args.smoke:
        args.watchers, args.seconds = 2, 1.0
    with tempfile.TemporaryDirectory(prefix="xo-latency-") as work:
        report = asyncio.run(run(args, Path(work, "arrivals.json")))
    print(json.dumps(report))
    return 0 if report["complete_and_in_order"] and report["committed"] == report["batches"] else 1


if __name__ == "__main__":
    sys.exit(main())
