"""Wall time of ``rps show`` and of a whole rps round (both players' ``rps throw`` at once), as whole processes.

What a player feels is the whole command. ``rps show`` is one fresh process reading
one game. A round is two fresh ``rps throw`` processes started together, one per
player, each committing, waiting for the other's commitment in a committed block,
revealing and waiting for the other's reveal: four commits through the REST API and
the chain follower; the figure is the time until both have printed the result. The
script makes its own keys and games (unique names; first to 3 points, with ties so
that a game lasts), deletes them afterwards, and prints one JSON line in ms.

    python benchmarks/rps_round.py --url http://127.0.0.1:8008 --runs 10
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import secrets
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from xo_devnet.spawn import DevnetProcess

COMMAND_TIMEOUT = 120.0
DEFAULT_URL = "http://127.0.0.1:8008"
RPS = str(Path(sys.executable).parent / "rps")


def summary(seconds: list[float]) -> dict[str, float]:
    ordered = sorted(seconds)
    return {
        "median": round(statistics.median(ordered) * 1000, 1),
        "min": round(ordered[0] * 1000, 1),
        "p90": round(ordered[min(len(ordered) - 1, math.ceil(0.9 * len(ordered)) - 1)] * 1000, 1),
        "max": round(ordered[-1] * 1000, 1),
    }


def run(*argv: str) -> float:
    started = time.perf_counter()
    done = subprocess.run([RPS, *argv], capture_output=True, text=True, timeout=COMMAND_TIMEOUT, check=False)
    if done.returncode != 0:
        raise SystemExit(f"rps_round: 'rps {' '.join(argv)}' exited {done.returncode}: {done.stderr.strip()}")
    return time.perf_counter() - started


def round_time(game: str, flags: dict[str, list[str]]) -> float:
    """Both players throw the same (a tie, so the game goes on); seconds until both processes are done."""
    started = time.perf_counter()
    running = [
        subprocess.Popen([RPS, "throw", game, "rock", *flags[who]], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        for who in ("alice", "bob")
    ]
    for process in running:
        _, err = process.communicate(timeout=COMMAND_TIMEOUT)
        if process.returncode != 0:
            raise SystemExit(f"rps_round: a throw exited {process.returncode}: {err.decode().strip()}")
    return time.perf_counter() - started


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", help="REST API URL (default $XO_URL, else http://127.0.0.1:8008)")
    parser.add_argument("--runs", type=int, default=10, help="samples of each (default 10)")
    parser.add_argument(
        "--smoke", action="store_true", help="one run, on a ledger of its own unless --url: checks it still runs"
    )
    args = parser.parse_args()
    if not 1 <= args.runs <= 99:
        parser.error("--runs must be from 1 to 99 (one game holds at most 100 rounds)")
    if args.smoke:
        args.runs = 1
    with contextlib.ExitStack() as stack:
        if args.url is None:
            own = args.smoke
            args.url = stack.enter_context(DevnetProcess()).rest_url if own else os.environ.get("XO_URL", DEFAULT_URL)
        return measure(args)


def measure(args: argparse.Namespace) -> int:
    """Time ``rps show`` and a whole round ``args.runs`` times each against ``args.url``; print the JSON line."""
    tag = secrets.token_hex(4)
    game = f"bench-{tag}"
    with tempfile.TemporaryDirectory(prefix="rps-bench-") as key_dir:
        flags = {
            who: ["--url", args.url, "--key-dir", key_dir, "--username", f"{who}-{tag}"] for who in ("alice", "bob")
        }
        for who in ("alice", "bob"):
            run("keygen", f"{who}-{tag}", "--key-dir", key_dir)
        run("create", game, "--first-to", "3", "--wait", "60", *flags["alice"])
        try:
            run("join", game, "--wait", "60", *flags["bob"])
            run("ready", game, "--wait", "60", *flags["alice"])
            run("ready", game, "--wait", "60", *flags["bob"])
            show_times = [run("show", game, "--url", args.url) for _ in range(args.runs)]
            round_times = [round_time(game, flags) for _ in range(args.runs)]
        finally:
            subprocess.run([RPS, "resign", game, "--wait", "60", *flags["bob"]], capture_output=True, check=False)
            subprocess.run([RPS, "delete", game, "--wait", "60", *flags["alice"]], capture_output=True, check=False)
    print(
        json.dumps(
            {
                "benchmark": "rps_round",
                "url": args.url,
                "runs": args.runs,
                "rps_show_ms": summary(show_times),
                "rps_round_both_throws_ms": summary(round_times),
            }
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
