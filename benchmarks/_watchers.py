"""Websocket watchers for the benchmarks: N clients on a REST API's /subscriptions, noting when each block arrives.

    python benchmarks/_watchers.py --url http://127.0.0.1:8008 --count 100 --out arrivals.json

Opens --count websockets, subscribes each to --prefix (default: the XO namespace),
prints ``ready`` on stdout once every one has had its first message (the head), then
notes (watcher, block number, arrival time) for every message until SIGTERM or
SIGINT. It then writes the arrivals to --out as JSON ([[watcher, block_num, unix
time], ...]) and prints one JSON line: the messages received, and whether every
watcher got the same blocks, each once, in order, with no gap. Run as a process of
its own, so its work is not counted in the process it measures. A helper, not a benchmark:
the leading underscore keeps it out of the smoke run (tests/benchmarks/test_smoke.py).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import signal
import sys
import time
from pathlib import Path

import aiohttp

from xo_tp.family import NAMESPACE


async def watch(
    session: aiohttp.ClientSession, url: str, prefix: str, number: int, arrivals: list, ready: asyncio.Event
) -> list[int]:
    """One watcher: subscribe, then note every block message until cancelled; returns the block numbers seen."""
    seen: list[int] = []
    async with session.ws_connect(f"{url}/subscriptions", max_msg_size=0) as ws:
        await ws.send_json({"action": "subscribe", "address_prefixes": [prefix]})
        try:
            async for message in ws:
                arrived = time.time()
                if message.type != aiohttp.WSMsgType.TEXT:
                    break
                block_num = int(json.loads(message.data)["block_num"])
                if not seen:
                    ready.set()
                seen.append(block_num)
                arrivals.append((number, block_num, arrived))
        except asyncio.CancelledError:
            pass
    return seen


async def main(args: argparse.Namespace) -> dict[str, object]:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signal_number in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signal_number, stop.set)
    arrivals: list[tuple[int, int, float]] = []
    connector = aiohttp.TCPConnector(limit=0)
    async with aiohttp.ClientSession(connector=connector) as session:
        readies = [asyncio.Event() for _ in range(args.count)]
        tasks = [
            asyncio.create_task(watch(session, args.url.rstrip("/"), args.prefix, number, arrivals, readies[number]))
            for number in range(args.count)
        ]
        await asyncio.gather(*(ready.wait() for ready in readies))
        print("ready", flush=True)
        await stop.wait()
        for task in tasks:
            task.cancel()
        seen = await asyncio.gather(*tasks)
    if args.out:
        Path(args.out).write_text(json.dumps(arrivals), encoding="utf-8")
    first = seen[0]
    complete = all(numbers == first for numbers in seen) and first == list(range(first[0], first[0] + len(first)))
    return {"watchers": args.count, "messages": len(arrivals), "blocks": len(first), "complete_and_in_order": complete}


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", required=True, help="the REST API")
    parser.add_argument("--count", type=int, default=100, help="websockets to open")
    parser.add_argument("--prefix", default=NAMESPACE, help="the address prefix each subscribes to")
    parser.add_argument("--out", help="write the arrivals here as JSON")
    report = asyncio.run(main(parser.parse_args()))
    print(json.dumps(report), flush=True)
    sys.exit(0 if report["complete_and_in_order"] else 1)
