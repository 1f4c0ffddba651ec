"""Engine throughput: signed batches through the ledger and a real processor, without REST.

Starts an in-memory (or --data-dir) ledger and the family's processor as a subprocess,
submits --batches single-transaction batches in chunks of --chunk (as a stream of REST
posts would), and waits until all are committed. Prints one JSON line: batches_per_s,
p50/p99 submit-to-commit latency in ms, blocks, and the ledger process's CPU
milliseconds per batch, in all and on the event-loop thread (the REST API shares that
thread; storage commits of a data-directory ledger run on a writer thread).

- ``--family xo`` (default): XO ``create`` batches, each a new game, on ``xo-tp``.
- ``--family rps``: whole rps games interleaved on ``rps-tp``: every game's create,
  join, ready, ready, commit, commit, reveal, reveal, round-robin across the games, so
  that each chunk holds one op of many games. Ops of one game run in arrival order;
  the scheduler may run different games' ops side by side, although every rps
  transaction reads BlockInfo's prefix (each block opens with a BlockInfo).

    python benchmarks/engine_throughput.py --batches 4000
    python benchmarks/engine_throughput.py --family rps --batches 4000
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

from rps_client.transactions import make_rps_transaction
from rps_tp.commitment import commitment
from rps_tp.game import COMMIT_PHASE, REVEAL_PHASE, SETUP_PHASE, Moment, Settings
from rps_tp.ops import Commit, Create, Join, Ready, Reveal
from xo_client.transactions import make_xo_transaction
from xo_core.batches import make_batch
from xo_core.protobuf.batch_pb2 import Batch
from xo_core.signing import Signer
from xo_devnet.chain import header_of
from xo_devnet.ledger import Ledger, LedgerConfig

PROCESSORS = {"xo": ("xo_tp.cli", ("xo", "1.0")), "rps": ("rps_tp.cli", ("rps", "1.0"))}
RPS_OPS_PER_GAME = 8


def cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


async def wait_registered(ledger: Ledger, process: asyncio.subprocess.Process, family: tuple[str, str]) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 30
    while family not in ledger.processors():
        if loop.time() > deadline or process.returncode is not None:
            raise SystemExit(f"the {family[0]} processor did not register")
        await asyncio.sleep(0.05)


def xo_batches(count: int) -> list[Batch]:
    signer = Signer.generate()
    return [make_batch(signer, [make_xo_transaction(signer, f"bench-{n}", "create")]) for n in range(count)]


#: The moments of a game's ops: before play (the create joins its host), then round 1's two phases.
LOBBY = Moment(0, SETUP_PHASE)
COMMITS = Moment(1, COMMIT_PHASE)
REVEALS = Moment(1, REVEAL_PHASE)


def rps_batches(count: int) -> list[Batch]:
    """Whole games (alice throws rock, bob scissors: one round), their ops interleaved round-robin."""
    alice, bob = Signer.generate(), Signer.generate()
    settings = Settings(points=1, timeout=300)
    games = []
    for number in range(max(1, count // RPS_OPS_PER_GAME)):
        name = f"bench-{number}"
        salts = {alice: bytes([number % 256]) * 32, bob: bytes([(number + 1) % 256]) * 32}
        throws = {alice: "rock", bob: "scissors"}
        commits = [
            (player, Commit(name, COMMITS, commitment(name, 1, player.public_key, throws[player], salts[player])))
            for player in (alice, bob)
        ]
        reveals = [(player, Reveal(name, REVEALS, throws[player], salts[player])) for player in (alice, bob)]
        ops = [
            (alice, Create(name, settings=settings)), (bob, Join(name, LOBBY)),
            (alice, Ready(name, LOBBY, settings)), (bob, Ready(name, LOBBY, settings)), *commits, *reveals,
        ]  # fmt: skip
        games.append([make_batch(player, [make_rps_transaction(player, op)]) for player, op in ops])
    return [game[step] for step in range(RPS_OPS_PER_GAME) for game in games][:count]


async def run(args: argparse.Namespace, data_dir: Path | None) -> dict[str, object]:
    batches = rps_batches(args.batches) if args.family == "rps" else xo_batches(args.batches)
    module, family = PROCESSORS[args.family]
    config = LedgerConfig(data_dir=data_dir, component_endpoint="tcp://127.0.0.1:0",
                          max_pending_batches=max(10_000, args.batches))
    ledger = await Ledger.start(config)
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", module, "-C", ledger.component_endpoint, "--max-occupancy", str(args.occupancy),
        stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.DEVNULL,
    )
    try:
        await wait_registered(ledger, process, family)
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
            "family": args.family,
            "batches": len(batches),
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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--family", choices=sorted(PROCESSORS), help="whose batches (default xo; with --smoke, each)")
    parser.add_argument("--batches", type=int, default=5000)
    parser.add_argument("--chunk", type=int, default=50, help="batches per submit call")
    parser.add_argument("--rate", type=float, default=0, help="offered batches/s (default: all at once)")
    parser.add_argument("--occupancy", type=int, default=10, help="the processor's --max-occupancy")
    parser.add_argument("--data-dir", action="store_true", help="persist to a temporary data directory")
    parser.add_argument("--smoke", action="store_true", help="64 batches of each family: checks it still runs")
    args = parser.parse_args()
    families = [args.family] if args.family else sorted(PROCESSORS) if args.smoke else ["xo"]
    if args.smoke:
        args.batches = 64
    uncommitted = 0
    for family in families:
        args.family = family
        if args.data_dir:
            with tempfile.TemporaryDirectory(prefix="xo-engine-bench-") as directory:
                result = asyncio.run(run(args, Path(directory)))
        else:
            result = asyncio.run(run(args, None))
        uncommitted += int(result["batches"]) - int(result["committed"])  # type: ignore[call-overload]
        print(json.dumps(result), flush=True)
    return 1 if uncommitted else 0


if __name__ == "__main__":
    sys.exit(main())
