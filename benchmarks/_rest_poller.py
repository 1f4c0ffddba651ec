"""Polls one REST URL every 50 ms from a process of its own, for ``filter_flood.py``; prints the answers' times.

A process of its own, so that neither the ledger's loop nor its GIL can delay the
clock that measures them. Until SIGTERM; then one JSON line: each answer's time in
seconds, and the errors.
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
import time
import urllib.request

INTERVAL = 0.05


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", required=True)
    args = parser.parse_args()
    stopping = False

    def stop(*_: object) -> None:
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGTERM, stop)
    latencies: list[float] = []
    errors: list[str] = []
    print("ready", flush=True)
    while not stopping:
        started = time.perf_counter()
        try:
            with urllib.request.urlopen(args.url, timeout=30) as answer:
                answer.read()
        except OSError as error:
            if stopping:
                break
            errors.append(str(error))
        latencies.append(time.perf_counter() - started)
        time.sleep(max(0.0, INTERVAL - (time.perf_counter() - started)))
    print(json.dumps({"latencies": latencies, "errors": errors}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
