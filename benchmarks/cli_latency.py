"""Wall time of ``xo show``, ``xo show --analyze`` and ``xo take --wait`` as whole processes, against a REST API.

What a player feels is the whole command: interpreter start-up, imports, key
loading, HTTP, and for ``take --wait`` the ledger's commit. So each sample is
one fresh ``xo`` process. ``show --analyze`` runs on an empty board, the
largest search the analysis makes. The script makes its own keys and games (unique
names, deleted afterwards) and prints one JSON line of timings in ms, with the
bare interpreter start-up (``python -c pass``) measured alongside: on a busy
machine it shows how much of a figure is the machine rather than xo.

    python benchmarks/cli_latency.py --url http://127.0.0.1:8008 --runs 20
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import secrets
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from xo_devnet.spawn import DevnetProcess

# Moves that alternate X and O over all nine spaces and end in a tie, so one game yields nine takes.
TIE_GAME = (1, 2, 3, 5, 4, 6, 8, 7, 9)
COMMAND_TIMEOUT = 120.0
DEFAULT_URL = "http://127.0.0.1:8008"


def xo_command(explicit: str | None) -> list[str]:
    """The xo to measure: as given, else the one installed beside this Python, else on PATH."""
    if explicit:
        return [explicit]
    beside = Path(sys.executable).parent / "xo"
    if beside.exists():
        return [str(beside)]
    found = shutil.which("xo")
    if found:
        return [found]
    return [sys.executable, "-m", "xo_cli.main"]


def run(command: list[str], *argv: str) -> float:
    """Run one command; return its wall time in seconds, or stop the benchmark if it fails."""
    started = time.perf_counter()
    done = subprocess.run([*command, *argv], capture_output=True, text=True, timeout=COMMAND_TIMEOUT, check=False)
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        shown = " ".join([Path(command[-1]).name, *argv])
        raise SystemExit(f"cli_latency: '{shown}' exited {done.returncode}: {done.stderr.strip()}")
    return elapsed


def delete_games(command: list[str], games: list[str], flags: list[str]) -> None:
    """Delete the run's games, even after a failure, so that no benchmark leaves games on a ledger.

    Each game gets its own attempt: one that cannot be deleted is reported, not a reason to keep the rest.
    """
    for game in games:
        done = subprocess.run(
            [*command, "delete", game, "--wait", "60", *flags],
            capture_output=True,
            text=True,
            timeout=COMMAND_TIMEOUT,
            check=False,
        )
        if done.returncode != 0:
            print(f"cli_latency: could not delete game {game}: {done.stderr.strip()}", file=sys.stderr)


def summary(seconds: list[float]) -> dict[str, float]:
    ordered = sorted(seconds)
    return {
        "median": round(statistics.median(ordered) * 1000, 1),
        "min": round(ordered[0] * 1000, 1),
        "p90": round(ordered[min(len(ordered) - 1, math.ceil(0.9 * len(ordered)) - 1)] * 1000, 1),
        "max": round(ordered[-1] * 1000, 1),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", help="REST API URL (default $XO_URL, else http://127.0.0.1:8008)")
    parser.add_argument("--runs", type=int, default=20, help="samples per command (default 20)")
    parser.add_argument("--xo", help="path of the xo command to measure (default: the installed one)")
    parser.add_argument(
        "--smoke", action="store_true", help="two runs, on a ledger of its own unless --url: checks it still runs"
    )
    args = parser.parse_args()
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    if args.smoke:
        args.runs = 2
    with contextlib.ExitStack() as stack:
        if args.url is None:
            own = args.smoke
            args.url = stack.enter_context(DevnetProcess()).rest_url if own else os.environ.get("XO_URL", DEFAULT_URL)
        return measure(args)


def measure(args: argparse.Namespace) -> int:
    """Time each command ``args.runs`` times against ``args.url``; print the JSON line."""
    xo = xo_command(args.xo)
    tag = secrets.token_hex(4)
    with tempfile.TemporaryDirectory(prefix="xo-bench-") as key_dir:
        players = [f"bench-{tag}-x", f"bench-{tag}-o"]
        for player in players:
            run(xo, "keygen", player, "--key-dir", key_dir)

        def flags(player: str) -> list[str]:
            return ["--url", args.url, "--key-dir", key_dir, "--username", player]

        games = [f"bench-{tag}-{index}" for index in range(math.ceil(args.runs / len(TIE_GAME)))]
        attempted: list[str] = []  # a create that failed while waiting may still have committed
        try:
            for game in games:
                attempted.append(game)
                run(xo, "create", game, "--wait", "60", *flags(players[0]))

            show_times = [run(xo, "show", games[0], "--url", args.url) for _ in range(args.runs)]
            analyze_times = [run(xo, "show", games[0], "--analyze", "--url", args.url) for _ in range(args.runs)]
            startup_times = [run([sys.executable, "-c", "pass"]) for _ in range(args.runs)]

            take_times: list[float] = []
            for game in games:
                for turn, space in enumerate(TIE_GAME):
                    if len(take_times) == args.runs:
                        break
                    take_times.append(run(xo, "take", game, str(space), "--wait", "60", *flags(players[turn % 2])))
        finally:
            delete_games(xo, attempted, flags(players[0]))

    print(
        json.dumps(
            {
                "benchmark": "cli_latency",
                "url": args.url,
                "runs": args.runs,
                "xo_show_ms": summary(show_times),
                "xo_show_analyze_ms": summary(analyze_times),
                "xo_take_wait_ms": summary(take_times),
                "python_startup_ms": summary(startup_times),
            }
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
