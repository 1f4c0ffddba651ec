"""End-to-end throughput: signed XO batches POSTed to the REST API until every one is COMMITTED.

Each of --clients concurrent clients takes the next pre-signed single-transaction
batch (an XO ``create`` of a new game), POSTs it to /batches and waits on
/batch_statuses?wait until it is committed, then takes the next: what many players
with ``xo create --wait`` do at once. Signing happens before the clock starts.

Starts its own ``xo-devnet --ephemeral`` (with its xo-tp) on free ports unless --url
names a running REST API. Prints one JSON line: batches_per_s over the whole run,
p50/p99 submit-to-commit latency in ms, the counts, and (for the devnet it starts) the
CPU milliseconds per batch spent by each process: the clients, xo-devnet (REST API
and engine) and xo-tp. On a machine with fewer cores than busy processes, those
figures say where the time goes.

With --watchers N, N websocket subscribers (``benchmarks/_watchers.py``, a process of
their own, subscribed to the XO namespace and otherwise idle) are attached to the
REST API for the whole run; the line then also says how many block messages they got
and whether each got every block once, in order.

    python benchmarks/e2e_throughput.py --batches 3000 --clients 64
    python benchmarks/e2e_throughput.py --batches 3000 --clients 64 --watchers 100
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import resource
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import aiohttp

from xo_client.transactions import make_xo_transaction
from xo_core.batches import make_batch, make_batch_list
from xo_core.signing import Signer
from xo_devnet.spawn import DevnetProcess

WAIT_SECONDS = 120
WATCHERS_SCRIPT = Path(__file__).with_name("_watchers.py")


def signed_batch_lists(count: int, signers: int) -> list[tuple[str, bytes]]:
    """(batch id, BatchList body) pairs, each creating a new game."""
    keys = [Signer.generate() for _ in range(signers)]
    run = uuid.uuid4().hex[:8]
    bodies = []
    for number in range(count):
        signer = keys[number % signers]
        batch = make_batch(signer, [make_xo_transaction(signer, f"bench-{run}-{number}", "create")])
        bodies.append((batch.header_signature, make_batch_list([batch])))
    return bodies


async def client(
    session: aiohttp.ClientSession, url: str, work: asyncio.Queue[tuple[str, bytes]], results: list[tuple[float, str]]
) -> None:
    while not work.empty():
        batch_id, body = work.get_nowait()
        started = time.perf_counter()
        async with session.post(
            f"{url}/batches", data=body, headers={"Content-Type": "application/octet-stream"}
        ) as response:
            if response.status != 202:
                raise RuntimeError(f"POST /batches answered {response.status}: {await response.text()}")
        async with session.get(f"{url}/batch_statuses", params={"id": batch_id, "wait": str(WAIT_SECONDS)}) as response:
            status = (await response.json())["data"][0]["status"]
        results.append((time.perf_counter() - started, status))


def process_cpu_seconds(pid: int) -> float:
    """User + system CPU of another process, from /proc (Linux)."""
    with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def own_cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def run_with_cpu(url: str, bodies: list[tuple[str, bytes]], clients: int, pids: dict[str, int]) -> dict[str, object]:
    """``measure``, plus the CPU each process spent during it, in ms per batch."""
    before = {name: process_cpu_seconds(pid) for name, pid in pids.items()}
    own_before = own_cpu_seconds()
    report = asyncio.run(measure(url, bodies, clients))
    spent = {name: process_cpu_seconds(pid) - before[name] for name, pid in pids.items()}
    spent["clients"] = own_cpu_seconds() - own_before
    for name, seconds in spent.items():
        report[f"cpu_ms_per_batch_{name}"] = round(seconds * 1000 / len(bodies), 3)
    return report


async def measure(url: str, bodies: list[tuple[str, bytes]], clients: int) -> dict[str, object]:
    work: asyncio.Queue[tuple[str, bytes]] = asyncio.Queue()
    for item in bodies:
        work.put_nowait(item)
    results: list[tuple[float, str]] = []
    connector = aiohttp.TCPConnector(limit=clients)
    timeout = aiohttp.ClientTimeout(total=WAIT_SECONDS * 2)
    async with aiohttp.ClientSession(connector=connector, timeout=timeout) as session:
        started = time.perf_counter()
        await asyncio.gather(*(client(session, url, work, results) for _ in range(clients)))
        elapsed = time.perf_counter() - started
    latencies = sorted(latency for latency, _ in results)
    committed = sum(1 for _, status in results if status == "COMMITTED")
    return {
        "batches": len(bodies),
        "clients": clients,
        "committed": committed,
        "not_committed": len(results) - committed,
        "elapsed_s": round(elapsed, 3),
        "batches_per_s": round(committed / elapsed, 1),
        "p50_commit_ms": round(statistics.median(latencies) * 1000, 1),
        "p99_commit_ms": round(latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))] * 1000, 1),
    }


@contextlib.contextmanager
def attached_watchers(url: str, count: int, report: dict[str, object]) -> Iterator[None]:
    """``count`` idle websocket subscribers on ``url`` while the block runs; their summary lands in ``report``."""
    if not count:
        yield
        return
    watchers = subprocess.Popen(
        [sys.executable, str(WATCHERS_SCRIPT), "--url", url, "--count", str(count)], stdout=subprocess.PIPE, text=True
    )
    try:
        assert watchers.stdout is not None
        if watchers.stdout.readline().strip() != "ready":
            raise SystemExit("the watchers did not start")
        cpu_before = process_cpu_seconds(watchers.pid)
        yield
        time.sleep(0.5)  # the last block's messages
        cpu = process_cpu_seconds(watchers.pid) - cpu_before
        watchers.send_signal(signal.SIGTERM)
        summary = json.loads(watchers.stdout.read())
        report.update({"watchers": count, "watcher_messages": summary["messages"], "watchers_cpu_s": round(cpu, 3),
                       "watchers_complete_and_in_order": summary["complete_and_in_order"]})  # fmt: skip
    finally:
        if watchers.poll() is None:
            watchers.kill()
        watchers.wait()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--batches", type=int, default=3000, help="single-transaction batches to commit")
    parser.add_argument("--clients", type=int, default=64, help="concurrent clients")
    parser.add_argument("--url", help="a running REST API (default: start an ephemeral xo-devnet)")
    parser.add_argument("--block-interval", type=float, help="passed to the xo-devnet this script starts")
    parser.add_argument(
        "--persistent", action="store_true", help="run that xo-devnet on a temporary data dir instead of in memory"
    )
    parser.add_argument("--watchers", type=int, default=0, help="idle websocket subscribers attached during the run")
    parser.add_argument("--smoke", action="store_true", help="60 batches, 8 clients, 2 watchers: checks it still runs")
    args = parser.parse_args()
    if args.smoke:
        args.batches, args.clients, args.watchers = 60, 8, 2
    bodies = signed_batch_lists(args.batches, min(args.clients, 16))
    watched: dict[str, object] = {}
    if args.url:
        with attached_watchers(args.url.rstrip("/"), args.watchers, watched):
            report = asyncio.run(measure(args.url.rstrip("/"), bodies, args.clients))
        report["target"] = args.url
    else:
        with tempfile.TemporaryDirectory(prefix="xo-bench-") as data_dir:
            storage = ["--data-dir", data_dir] if args.persistent else ["--ephemeral"]
            interval = ["--block-interval", str(args.block_interval)] if args.block_interval else []
            with DevnetProcess([*storage, *interval]) as devnet:
                sidecars = {processor["command"]: processor["pid"] for processor in devnet.ready["processors"]}
                pids = {"devnet": devnet.ready["pid"], "xo_tp": sidecars["xo-tp"]}
                with attached_watchers(devnet.rest_url, args.watchers, watched):
                    report = run_with_cpu(devnet.rest_url, bodies, args.clients, pids)
        report["target"] = "xo-devnet " + ("--data-dir (temporary)" if args.persistent else "--ephemeral")
    report.update(watched)
    if "watchers_cpu_s" in report:
        report["cpu_ms_per_batch_watchers"] = round(float(report.pop("watchers_cpu_s")) * 1000 / args.batches, 3)
    print(json.dumps(report))
    return 0 if report["not_committed"] == 0 and watched.get("watchers_complete_and_in_order", True) else 1


if __name__ == "__main__":
    sys.exit(main())
