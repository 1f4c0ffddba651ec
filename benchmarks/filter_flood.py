"""REST API latency while event subscribers' regular expressions meet a hostile game name.

The attack of issue 23: --subscribers ZMQ event clients (in a process of their own,
``benchmarks/_event_subscribers.py``) each filter ``xo/create`` events with the
pattern ``^(a|aa)+$``, which backtracks exponentially under a backtracking engine, and
subscribe again every 0.2 s so that being dropped keeps none of them from the next block; then
a game named ``"a" * 40 + "!"`` (and more like it, one per block, --blocks of them)
is created, so every block holds a value the pattern chokes on. Meanwhile a process
of its own (``benchmarks/_rest_poller.py``) polls ``GET /blocks?limit=1`` every 50 ms
and times each answer. With --pattern you choose another pattern: a benign one
(``--pattern '^b'``) is the same fan-out and churn without the hostile search, the
control. One more subscriber
is honest (a plain prefix pattern, its own games beside the attack's): it must get
every block. The ledger takes one subscriber more than --subscribers, for it.

Runs xo-devnet's parts in this process (the ledger, its REST API) with a real
``xo-tp`` beside it. Prints one JSON line: p50 / p99 / max of the polled answers in ms,
how many blocks the honest subscriber got of those committed, and the range of blocks
the attackers got (they may be dropped), and the CPU this process (ledger and REST API,
not the clients) spent per block. The target: p99 under 100 ms.

    python benchmarks/filter_flood.py --subscribers 256
"""

from __future__ import annotations

import argparse
import asyncio
import json
import resource
import signal
import statistics
import sys
import time
from pathlib import Path

from xo_client.transactions import make_xo_transaction
from xo_core.batches import make_batch
from xo_core.protobuf.batch_pb2 import Batch
from xo_core.signing import Signer
from xo_devnet.chain import header_of
from xo_devnet.ledger import Ledger, LedgerConfig
from xo_devnet.rest.server import start_rest_server

HERE = Path(__file__).parent
PATTERN = "^(a|aa)+$"


async def wait_registered(ledger: Ledger, process: asyncio.subprocess.Process) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 30
    while ("xo", "1.0") not in ledger.processors():
        if loop.time() > deadline or process.returncode is not None:
            raise SystemExit("xo-tp did not register")
        await asyncio.sleep(0.05)


def cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * share))]


async def run(args: argparse.Namespace) -> dict[str, object]:
    signer = Signer.generate()
    def create(name: str) -> Batch:
        return make_batch(signer, [make_xo_transaction(signer, name, "create")])

    hostile = [create("a" * (40 + n) + "!") for n in range(args.blocks)]
    honest = [create(f"honest-{n}") for n in range(args.blocks)]
    config = LedgerConfig(data_dir=None, component_endpoint="tcp://127.0.0.1:0", max_subscribers=args.subscribers + 1)
    ledger = await Ledger.start(config)
    rest = await start_rest_server(ledger, "127.0.0.1", 0)
    processor = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "xo_tp.cli", "-C", ledger.component_endpoint,
        stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.DEVNULL,
    )  # fmt: skip
    subscribers = await asyncio.create_subprocess_exec(
        sys.executable, str(HERE / "_event_subscribers.py"), "--endpoint", ledger.component_endpoint,
        "--count", str(args.subscribers), "--pattern", args.pattern, stdout=asyncio.subprocess.PIPE,
    )  # fmt: skip
    poller = await asyncio.create_subprocess_exec(
        sys.executable, str(HERE / "_rest_poller.py"), "--url", f"{rest.url}/blocks?limit=1",
        stdout=asyncio.subprocess.PIPE,
    )  # fmt: skip
    committed = 0
    try:
        await wait_registered(ledger, processor)
        assert subscribers.stdout is not None
        if (await asyncio.wait_for(subscribers.stdout.readline(), 120)).strip() != b"ready":
            raise SystemExit("the event subscribers did not start")
        first = header_of(ledger.chain_head()).block_num + 1
        assert poller.stdout is not None
        if (await asyncio.wait_for(poller.stdout.readline(), 60)).strip() != b"ready":
            raise SystemExit("the poller did not start")
        started, cpu_before = time.perf_counter(), cpu_seconds()
        for attack, own in zip(hostile, honest, strict=True):
            ledger.submit([attack, own])
            statuses = await ledger.wait_for_batches([attack.header_signature, own.header_signature], 60)
            committed += sum(status.status == "COMMITTED" for status in statuses)
        elapsed, cpu = time.perf_counter() - started, cpu_seconds() - cpu_before
        last = header_of(ledger.chain_head()).block_num
        await asyncio.sleep(1.0)  # the last blocks' messages
        poller.send_signal(signal.SIGTERM)
        polled = json.loads((await asyncio.wait_for(poller.stdout.read(), 60)).decode())
        await poller.wait()
        latencies, errors = polled["latencies"], polled["errors"]
        subscribers.send_signal(signal.SIGTERM)
        summary = json.loads((await asyncio.wait_for(subscribers.stdout.read(), 60)).decode())
        await subscribers.wait()
    finally:
        for helper in (poller, subscribers):
            if helper.returncode is None:
                helper.kill()
                await helper.wait()
        processor.terminate()
        await processor.wait()
        await rest.stop()
        await ledger.stop()
    expected = list(range(first, last + 1))
    return {
        "benchmark": "filter_flood",
        "subscribers": args.subscribers,
        "pattern": args.pattern,
        "blocks": len(expected),
        "committed": committed,
        "seconds": round(elapsed, 2),
        "requests": len(latencies),
        "p50_ms": round(statistics.median(latencies) * 1000, 2),
        "p99_ms": round(percentile(latencies, 0.99) * 1000, 2),
        "max_ms": round(max(latencies) * 1000, 2),
        "ledger_cpu_ms_per_block": round(cpu * 1000 / max(1, len(expected)), 2),
        "honest_got_every_block": [n for n in summary["honest_blocks"] if first <= n <= last] == expected,
        "attacker_blocks": [summary["attacker_blocks_min"], summary["attacker_blocks_max"]],
        "errors": len(errors),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--subscribers", type=int, default=256, help="attacking ZMQ event clients (one process)")
    parser.add_argument("--blocks", type=int, default=200, help="blocks, each with one hostile game name")
    parser.add_argument("--pattern", default=PATTERN, help="the attackers' pattern (a benign one: the control)")
    parser.add_argument("--smoke", action="store_true", help="8 subscribers, 3 blocks: checks it still runs")
    args = parser.parse_args()
    if args.smoke:
        args.subscribers, args.blocks = 8, 3
    report = asyncio.run(run(args))
    print(json.dumps(report))
    ok = report["errors"] == 0 and report["committed"] == 2 * args.blocks and report["honest_got_every_block"]
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
