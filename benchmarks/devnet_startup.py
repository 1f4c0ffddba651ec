"""How long ``xo-devnet`` takes from its command to ready (banner printed, ready file written).

Starts ``xo-devnet --ephemeral`` on free ports --runs times, one after another, and
times each from the spawn to the moment its ready file appears (the banner is
printed just before): the wait a player has after README's command 1, and every
end-to-end test pays once per devnet. Each devnet is stopped before the next starts.
Prints one JSON line: median, min, p90 and max in ms, and the runs.

    python benchmarks/devnet_startup.py --runs 15

To compare two checkouts, run it with ``PYTHONPATH`` set to each in turn (alternating
runs, on a machine that is equally busy for both).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

POLL_SECONDS = 0.002
READY_TIMEOUT_SECONDS = 60.0


def one_start(workdir: Path) -> float:
    """Seconds from spawning xo-devnet to its ready file; the devnet is stopped again before returning."""
    ready = workdir / "ready.json"
    ready.unlink(missing_ok=True)
    command = [
        sys.executable, "-m", "xo_devnet.cli", "--ephemeral",
        "--rest-api", "127.0.0.1:0", "--component-endpoint", "tcp://127.0.0.1:0", "--broker", "127.0.0.1:0",
        "--key-dir", str(workdir / "keys"), "--ready-file", str(ready),
    ]  # fmt: skip
    started = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = started + READY_TIMEOUT_SECONDS
        while not ready.exists():
            if process.poll() is not None or time.perf_counter() > deadline:
                raise SystemExit(f"xo-devnet did not become ready (exit code {process.returncode})")
            time.sleep(POLL_SECONDS)
        return time.perf_counter() - started
    finally:
        process.terminate()
        try:
            process.wait(30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15, help="devnets started one after another (default 15)")
    parser.add_argument("--smoke", action="store_true", help="one start, no warm-up: checks it still runs")
    args = parser.parse_args()
    if args.smoke:
        args.runs = 1
    with tempfile.TemporaryDirectory(prefix="xo-devnet-startup-") as directory:
        if not args.smoke:
            one_start(Path(directory))  # warm the file-system caches: the first start after a change is slower
        times = sorted(one_start(Path(directory)) for _ in range(args.runs))
    print(
        json.dumps(
            {
                "benchmark": "devnet_startup",
                "runs": len(times),
                "median_ms": round(statistics.median(times) * 1000, 1),
                "min_ms": round(times[0] * 1000, 1),
                "p90_ms": round(times[int(0.9 * (len(times) - 1))] * 1000, 1),
                "max_ms": round(times[-1] * 1000, 1),
            }
        )
    )


if __name__ == "__main__":
    main()
