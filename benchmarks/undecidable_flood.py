"""A flood of batches that can never run, and honest players beside it: how it ends, through the REST API.

An attacker POSTs --flood XO batches, --per-post to a BatchList, each depending on a
transaction id that will never exist; meanwhile an honest player submits one ordinary
XO batch every --honest-interval seconds and waits for it. The script reports how many
flood batches were accepted and refused (429), whether every honest batch was
accepted and committed (and how fast), and how long after the flood the accepted flood
batches were all decided (INVALID, naming the missing id).

With --restart (implies --persistent), xo-devnet is stopped once the flood is in and
started again on the same data dir before the honest player starts: the restarted
ledger must take honest batches at once and still decide the flood.

Starts its own ``xo-devnet`` on free ports; prints one JSON line.

    python benchmarks/undecidable_flood.py --flood 10000
"""

from __future__ import annotations

import argparse
import asyncio
import json
import secrets
import statistics
import sys
import tempfile
import time
import uuid
from collections import Counter
from collections.abc import Callable

import aiohttp

from xo_client.transactions import make_xo_transaction
from xo_core.batches import make_batch, make_batch_list, make_transaction
from xo_core.signing import Signer
from xo_devnet.spawn import DevnetProcess
from xo_tp.family import FAMILY_NAME, FAMILY_VERSION, game_address
from xo_tp.payload import encode_payload

OCTET_STREAM = {"Content-Type": "application/octet-stream"}
DECIDE_TIMEOUT = 300.0
STATUS_CHUNK = 1000


def flood_bodies(count: int, per_post: int) -> list[tuple[list[str], bytes]]:
    """(batch ids, BatchList body) per POST: XO creates that depend on an id nobody will ever submit."""
    signer, run, missing = Signer.generate(), uuid.uuid4().hex[:8], secrets.token_hex(64)
    bodies = []
    for start in range(0, count, per_post):
        batches = []
        for number in range(start, min(start + per_post, count)):
            name = f"flood-{run}-{number}"
            address = game_address(name)
            transaction = make_transaction(
                signer, encode_payload(name, "create", None), family_name=FAMILY_NAME, family_version=FAMILY_VERSION,
                inputs=[address], outputs=[address], dependencies=[missing],
            )  # fmt: skip
            batches.append(make_batch(signer, [transaction]))
        bodies.append(([batch.header_signature for batch in batches], make_batch_list(batches)))
    return bodies


def honest_bodies(count: int) -> list[tuple[str, bytes]]:
    signer, run = Signer.generate(), uuid.uuid4().hex[:8]
    batches = [make_batch(signer, [make_xo_transaction(signer, f"honest-{run}-{n}", "create")]) for n in range(count)]
    return [(batch.header_signature, make_batch_list([batch])) for batch in batches]


async def flood(
    session: aiohttp.ClientSession, url: str, bodies: list[tuple[list[str], bytes]], connections: int
) -> tuple[list[str], Counter[int]]:
    """POST every body over ``connections`` concurrent connections; the ids accepted, and answer counts."""
    accepted: list[str] = []
    answers: Counter[int] = Counter()
    work = iter(bodies)

    async def attacker() -> None:
        for ids, body in work:
            async with session.post(f"{url}/batches", data=body, headers=OCTET_STREAM) as response:
                await response.read()
                answers[response.status] += len(ids)
                if response.status == 202:
                    accepted.extend(ids)

    await asyncio.gather(*(attacker() for _ in range(connections)))
    return accepted, answers


async def honest_player(
    session: aiohttp.ClientSession, url: str, bodies: list[tuple[str, bytes]], interval: float, until: asyncio.Event
) -> list[tuple[int, str | None, float]]:
    """One batch every ``interval`` s until ``until`` is set: (POST status, final status, submit-to-decision s)."""
    results: list[tuple[int, str | None, float]] = []
    waits = []

    async def follow(batch_id: str, started: float, index: int) -> None:
        params = {"id": batch_id, "wait": "60"}
        async with session.get(f"{url}/batch_statuses", params=params) as response:
            status = (await response.json())["data"][0]["status"]
        results[index] = (results[index][0], status, time.perf_counter() - started)

    for batch_id, body in bodies:
        if until.is_set():
            break
        started = time.perf_counter()
        async with session.post(f"{url}/batches", data=body, headers=OCTET_STREAM) as response:
            await response.read()
            results.append((response.status, None, 0.0))
            if response.status == 202:
                waits.append(asyncio.create_task(follow(batch_id, started, len(results) - 1)))
        await asyncio.sleep(interval)
    await asyncio.gather(*waits)
    return results


async def decided_after(session: aiohttp.ClientSession, url: str, ids: list[str]) -> tuple[float, Counter[str], str]:
    """Poll until none of ``ids`` is PENDING: seconds taken, the statuses, one INVALID reason."""
    started = time.perf_counter()
    while True:
        statuses: Counter[str] = Counter()
        reason = ""
        for start in range(0, len(ids), STATUS_CHUNK):
            async with session.post(f"{url}/batch_statuses", json=ids[start : start + STATUS_CHUNK]) as response:
                for status in (await response.json())["data"]:
                    statuses[status["status"]] += 1
                    if status["invalid_transactions"] and not reason:
                        reason = status["invalid_transactions"][0]["message"]
        if not statuses["PENDING"] or time.perf_counter() - started > DECIDE_TIMEOUT:
            return time.perf_counter() - started, statuses, reason
        await asyncio.sleep(0.5)


async def attack(
    devnet_url: str, args: argparse.Namespace, restart: Callable[[], str] | None
) -> dict[str, object]:
    floods, honest = flood_bodies(args.flood, args.per_post), honest_bodies(args.honest)
    timeout = aiohttp.ClientTimeout(total=DECIDE_TIMEOUT)
    async with aiohttp.ClientSession(timeout=timeout) as session:
        stop_honest = asyncio.Event()
        url = devnet_url
        if restart is None:
            player = asyncio.create_task(honest_player(session, url, honest, args.honest_interval, stop_honest))
        flood_started = time.perf_counter()
        accepted, answers = await flood(session, url, floods, args.connections)
        flood_seconds = time.perf_counter() - flood_started
        if restart is not None:
            url = await asyncio.to_thread(restart)
            player = asyncio.create_task(honest_player(session, url, honest, args.honest_interval, stop_honest))
        decided_seconds, statuses, reason = await decided_after(session, url, accepted)
        await asyncio.sleep(args.honest_interval * 5)  # a few honest batches after the flood is decided
        stop_honest.set()
        results = await player
    latencies = sorted(seconds for code, status, seconds in results if status == "COMMITTED")
    return {
        "flood_batches": args.flood,
        "flood_per_post": args.per_post,
        "flood_accepted": len(accepted),
        "flood_answers": {str(code): count for code, count in sorted(answers.items())},
        "flood_post_seconds": round(flood_seconds, 2),
        "flood_decided_seconds_after_last_post": round(decided_seconds, 2),
        "flood_statuses": dict(statuses),
        "flood_reason": reason,
        "honest_submitted": len(results),
        "honest_accepted": sum(1 for code, _, _ in results if code == 202),
        "honest_committed": len(latencies),
        "honest_p50_ms": round(statistics.median(latencies) * 1000, 1) if latencies else None,
        "honest_max_ms": round(latencies[-1] * 1000, 1) if latencies else None,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--flood", type=int, default=10_000, help="batches depending on an id that never arrives")
    parser.add_argument("--per-post", type=int, default=10, help="flood batches per POST (a BatchList)")
    parser.add_argument("--connections", type=int, default=4, help="concurrent flood connections")
    parser.add_argument("--honest", type=int, default=5_000, help="most honest batches to pre-sign")
    parser.add_argument("--honest-interval", type=float, default=0.1, help="seconds between honest batches")
    parser.add_argument("--persistent", action="store_true", help="run xo-devnet on a temporary data dir")
    parser.add_argument("--restart", action="store_true", help="restart xo-devnet (same data dir) after the flood")
    parser.add_argument(
        "--smoke", action="store_true", help="100 flood batches decided after 1 s, 20 honest: checks it still runs"
    )
    args = parser.parse_args()
    if args.smoke:
        args.flood, args.honest, args.honest_interval = 100, 20, 0.05
    persistent = args.persistent or args.restart
    with tempfile.TemporaryDirectory(prefix="xo-flood-") as data_dir:
        storage = ["--data-dir", data_dir] if persistent else ["--ephemeral"]
        if args.smoke:
            storage += ["--dependency-wait", "1"]
        devnet = DevnetProcess(storage).start()
        devnets = [devnet]

        def restart() -> str:
            devnets[-1].stop()
            devnets.append(DevnetProcess(storage).start())
            return devnets[-1].rest_url

        try:
            report = asyncio.run(attack(devnet.rest_url, args, restart if args.restart else None))
        finally:
            for running in devnets:
                running.close()
    report["target"] = "xo-devnet " + ("--data-dir (temporary)" if persistent else "--ephemeral")
    report["restarted"] = args.restart
    print(json.dumps(report))
    honest_ok = report["honest_accepted"] == report["honest_submitted"] == report["honest_committed"]
    return 0 if honest_ok and not report["flood_statuses"].get("PENDING") else 1


if __name__ == "__main__":
    sys.exit(main())
