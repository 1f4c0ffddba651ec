"""How long the computer takes to answer in ``xo play --vs ai``: from your move's commit to its reply's commit.

Starts an ephemeral ``xo-devnet`` (with ``xo-tp``), then plays --games games with
``xo play NAME --vs ai --seed N`` as a separate process in pipe mode, exactly as a
script would: at each prompt a random legal move (seeded) is written. ``xo play``
prints a line for each move as its block reaches it through the chain follower; the
time from the line of your move to the line of the computer's reply is the reply
time: the block of your move delivered, the game read afresh, the move chosen,
signed, submitted and committed, and its block delivered. Both lines travel the same
path, so the follower's delivery delay cancels out. Prints one JSON line: p50, p90
and max over every reply, in milliseconds, and the devnet's block interval that
bounds it from below.

    python benchmarks/ai_reply.py [--games N] [--level perfect|heuristic|random] [--smoke]
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from client_core.rest import RestClient
from xo_client.seat import read_game
from xo_devnet.ledger import LedgerConfig
from xo_devnet.spawn import DevnetProcess

XO = str(Path(sys.executable).parent / "xo")


def play_one(url: str, key_dir: Path, name: str, seed: int, level: str) -> list[float]:
    """One game; the reply time of every computer move, in seconds."""
    process = subprocess.Popen(
        [XO, "play", name, "--vs", "ai", "--seed", str(seed), "--level", level,
         "--url", url, "--key-dir", str(key_dir), "--username", "alice"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1,
    )  # fmt: skip
    assert process.stdin is not None and process.stdout is not None
    rng = random.Random(seed)
    replies: list[float] = []
    mine_at: float | None = None
    with RestClient(url) as client:
        for line in process.stdout:
            now = time.perf_counter()
            if " took " in line and "alice" in line:
                mine_at = now
            elif " took " in line and "xo-ai" in line and mine_at is not None:
                replies.append(now - mine_at)
                mine_at = None
            elif "your move as" in line:
                game = read_game(client, name)
                assert game is not None
                process.stdin.write(f"{rng.choice([i + 1 for i, c in enumerate(game.board) if c == '-'])}\n")
                process.stdin.flush()
    if process.wait(30) != 0:
        raise SystemExit(f"xo play {name} exited {process.returncode}")
    return replies


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=5)
    parser.add_argument("--level", default="perfect", choices=("perfect", "heuristic", "random"))
    parser.add_argument("--smoke", action="store_true", help="one game: checks it still runs")
    args = parser.parse_args()
    if args.smoke:
        args.games = 1
    with tempfile.TemporaryDirectory() as scratch, DevnetProcess(log_path=Path(scratch, "devnet.log")) as devnet:
        replies: list[float] = []
        for game in range(args.games):
            replies += play_one(devnet.rest_url, devnet.key_dir, f"bench-{game}", game, args.level)
    ms = sorted(reply * 1000 for reply in replies)
    print(json.dumps({
        "benchmark": "ai_reply",
        "level": args.level,
        "games": args.games,
        "replies": len(ms),
        "p50_ms": round(statistics.median(ms), 1),
        "p90_ms": round(ms[int(0.9 * (len(ms) - 1))], 1),
        "max_ms": round(ms[-1], 1),
        "block_interval_ms": LedgerConfig.block_interval * 1000,
    }))  # fmt: skip


if __name__ == "__main__":
    main()
