"""How fast a client reads a long chain: ``xo history`` as a whole process, and the follower catching up.

Starts its own ``xo-devnet --ephemeral``, fills the chain with ``--blocks`` blocks of one
transaction each (games created and deleted), with one game of nine moves spread evenly
among them, then measures:

- ``xo history`` of that game as a whole process (interpreter start-up included), which
  reads every block, 100 per request, and keeps the game's moves;
- the follower (``client_core.follow.AsyncFollower``) delivering every block from genesis
  to the head: through the websocket (xo-devnet resumes from ``last_known_block_ids``) and
  by REST catch-up (``/blocks`` pages and ``/receipts``, what happens against a Sawtooth
  REST API after a reconnection), for the XO namespace and for the one game's address.

Prints one JSON line:

    python benchmarks/chain_reading.py --blocks 2000 --runs 5
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

from client_core.blocks import BlockRef
from client_core.follow import AsyncFollower
from client_core.rest import RestClient
from client_core.submission import submit
from xo_client.transactions import make_xo_transaction
from xo_core.keyfiles import load_signer
from xo_devnet.spawn import DevnetProcess
from xo_tp.family import NAMESPACE, game_address

TIE_GAME = (1, 2, 3, 5, 4, 6, 8, 7, 9)
GAME = "measured"


def fill(client: RestClient, key_dir: Path, blocks: int) -> None:
    """``blocks`` blocks of one committed transaction each; the measured game's ten moves spread among them."""
    signers = [load_signer(key_dir, "alice"), load_signer(key_dir, "bob")]
    moves = [("create", None)] + [("take", space) for space in TIE_GAME]
    every = max(blocks // len(moves), 1)
    filler = 0
    for number in range(blocks):
        signer = signers[0]
        if number % every == 0 and moves:
            action, space = moves.pop(0)
            signer = signers[len(moves) % 2] if action == "take" else signer
            transaction = make_xo_transaction(signer, GAME, action, space)
        else:
            action = "create" if filler % 2 == 0 else "delete"
            transaction = make_xo_transaction(signer, f"filler-{filler // 2}", action)
            filler += 1
        status = client.batch_status(submit(client, signer, [transaction]), wait=30)
        if status.status != "COMMITTED":
            raise SystemExit(f"chain_reading: a filler move ended {status}")


def time_history(url: str, key_dir: Path, runs: int) -> list[float]:
    command = [str(Path(sys.executable).parent / "xo"), "history", GAME, "--json", "--url", url, "--key-dir",
               str(key_dir)]
    seconds = []
    for _ in range(runs):
        started = time.perf_counter()
        done = subprocess.run(command, capture_output=True, text=True, timeout=600, check=False)
        seconds.append(time.perf_counter() - started)
        if done.returncode != 0 or len(json.loads(done.stdout)["games"][0]["moves"]) != 10:
            raise SystemExit(f"chain_reading: xo history failed: {done.stderr.strip()}")
    return seconds


async def catch_up(url: str, genesis: BlockRef, head: int, prefix: str, websocket: bool) -> float:
    """Seconds for the follower to deliver every block after genesis up to block ``head``."""
    started = time.perf_counter()
    async with AsyncFollower(url, [prefix], after=genesis, websocket=websocket, poll_seconds=0.01) as follower:
        async for block in follower:
            if block.block_num == head:
                break
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--blocks", type=int, default=2000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--smoke", action="store_true", help="10 blocks, one run: checks it still runs")
    options = parser.parse_args()
    if options.smoke:
        options.blocks, options.runs = len(TIE_GAME) + 1, 1
    with DevnetProcess() as devnet:
        client = RestClient(devnet.rest_url)
        fill(client, devnet.key_dir, options.blocks)
        head = client.head_block().block_num
        genesis = BlockRef(next(block for block in client.blocks() if block.block_num == 0).block_id, 0)
        history = time_history(devnet.rest_url, devnet.key_dir, options.runs)
        rates = {}
        for name, prefix in (("namespace", NAMESPACE), ("one_game", game_address(GAME))):
            for way, websocket in (("websocket", True), ("rest_catch_up", False)):
                seconds = asyncio.run(catch_up(devnet.rest_url, genesis, head, prefix, websocket))
                rates[f"follow_{way}_{name}_blocks_per_s"] = round(head / seconds)
    print(json.dumps({
        "blocks": head,
        "history_ms_median": round(statistics.median(history) * 1000),
        "history_ms_min": round(min(history) * 1000),
        **rates,
    }))  # fmt: skip


if __name__ == "__main__":
    main()
