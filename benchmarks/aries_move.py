"""Time per move between two ACA-Py agents playing Tic Tac Toe 1.0 over DIDComm on loopback.

Starts two ``xo aries agent`` processes: ``alice`` (moved through the admin API by this script)
and ``bot`` (``--auto-play random``, so its reply costs next to nothing), connects them by an
out-of-band invitation, then plays --games games. For each of alice's moves it times from the
``POST /tictactoe/{thread}/move`` to the moment alice's game (polled every 2 ms) holds the bot's
answer: alice's move travels to the bot (DIDComm pack, HTTP, unpack, the plugin's checks and
record), the bot moves, and its move travels back. That round trip is two moves between agents;
``move_p50_ms`` is half its median. With ``--anchor`` both agents record every move on an
ephemeral ``xo-devnet`` before sending it, so each move also waits for a block.

Prints one JSON line. ACA-Py needs Python 3.12+: elsewhere the line says it was skipped, and why.

    python benchmarks/aries_move.py [--games N] [--anchor] [--smoke]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import random
import select
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path

from xo_cli.aries_admin import AdminClient
from xo_cli.aries_connect import decode_invitation

START_WAIT = 180.0
POLL = 0.002


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Agent:
    """One ``xo aries agent`` process and its admin client."""

    def __init__(self, label: str, home: Path, *extra: str) -> None:
        admin = free_port()
        command = [
            sys.executable, "-m", "xo_cli.main", "aries", "agent", "--label", label, "--inbound",
            f"127.0.0.1:{free_port()}", "--admin", f"127.0.0.1:{admin}", "--data-dir", str(home / label), *extra,
        ]  # fmt: skip
        self.log = (home / f"{label}.log").open("wb")
        self.process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=self.log)
        self.admin = AdminClient(f"http://127.0.0.1:{admin}")
        self.invitation = self._invitation()

    def _invitation(self) -> str:
        assert self.process.stdout is not None
        deadline, buffer = time.monotonic() + START_WAIT, b""
        while time.monotonic() < deadline:
            if select.select([self.process.stdout], [], [], 1.0)[0]:
                chunk = os.read(self.process.stdout.fileno(), 65536)
                if not chunk:
                    break
                buffer += chunk
                urls = [line for line in buffer.decode().splitlines() if line.startswith("http://")]
                if urls:
                    return urls[0]
        raise SystemExit(f"an agent did not start within {START_WAIT:g} s (log: {self.log.name})")

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(30)
        except subprocess.TimeoutExpired:
            self.process.kill()
        self.log.close()


def connected(alice: Agent, bot: Agent) -> str:
    """Alice's connection id to the bot, once the connection is active."""
    theirs = bot.admin.post("/out-of-band/receive-invitation", decode_invitation(alice.invitation))["connection_id"]
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if bot.admin.get(f"/connections/{theirs}")["state"] in ("active", "completed"):
            for connection in alice.admin.get("/connections")["results"]:
                if connection.get("their_label") == "bot" and connection["state"] in ("active", "completed"):
                    return connection["connection_id"]
        time.sleep(0.05)
    raise SystemExit("the agents did not connect within 60 s")


def play(alice: Agent, connection: str, rng: random.Random) -> list[float]:
    """One game, alice as X moving at random; the round trip of each of her moves that the bot answered."""
    free = [f"{column}{row}" for row in "123" for column in "ABC"]
    first = free.pop(rng.randrange(len(free)))
    started = time.perf_counter()
    game = alice.admin.post("/tictactoe/start", {"connection_id": connection, "me": "X", "move": first})
    thread, trips = game["thread_id"], []
    while True:
        count = len(game["moves"])
        game = wait_for(alice, thread, lambda game, count=count: len(game["moves"]) > count or game["state"] == "done")
        if len(game["moves"]) > count:
            trips.append(time.perf_counter() - started)
        if game["state"] == "done" or game["turn"] != "X":
            return trips
        cell = rng.choice([f"{'ABC'[index % 3]}{index // 3 + 1}" for index, mark in enumerate(game["board"])
                           if mark == "-"])  # fmt: skip
        started = time.perf_counter()
        game = alice.admin.post(f"/tictactoe/{thread}/move", {"cell": cell})
        if game["state"] == "done":
            return trips


def wait_for(agent: Agent, thread: str, ready, timeout: float = 60.0) -> dict:  # noqa: ANN001
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        game = agent.admin.get(f"/tictactoe/games/{thread}")
        if ready(game):
            return game
        time.sleep(POLL)
    raise SystemExit(f"no answer in {thread} within {timeout:g} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10)
    parser.add_argument("--anchor", action="store_true", help="both agents record their moves on an xo-devnet")
    parser.add_argument("--smoke", action="store_true", help="one game: checks it still runs")
    args = parser.parse_args()
    if args.smoke:
        args.games = 1
    if importlib.util.find_spec("acapy_agent") is None:
        reason = f"ACA-Py is not installed for Python {sys.version_info.major}.{sys.version_info.minor} (needs 3.12+)"
        print(json.dumps({"benchmark": "aries_move", "skipped": reason}))
        return
    with tempfile.TemporaryDirectory() as scratch, ExitStack() as stack:
        home = Path(scratch)
        flags: dict[str, tuple[str, ...]] = {"alice": (), "bot": ()}
        if args.anchor:
            from xo_core.keyfiles import write_key_pair  # noqa: PLC0415
            from xo_core.signing import Signer  # noqa: PLC0415
            from xo_devnet.spawn import DevnetProcess  # noqa: PLC0415

            devnet = stack.enter_context(DevnetProcess(log_path=home / "devnet.log"))
            for name in flags:
                (home / "keys").mkdir(exist_ok=True)
                write_key_pair(home / "keys", name, Signer.generate())
                flags[name] = ("--anchor-url", devnet.rest_url, "--username", name, "--key-dir", str(home / "keys"))
        alice = Agent("alice", home, *flags["alice"])
        stack.callback(alice.stop)
        bot = Agent("bot", home, "--auto-play", "random", *flags["bot"])
        stack.callback(bot.stop)
        connection = connected(alice, bot)
        rng = random.Random(26)
        trips = [trip for _ in range(args.games) for trip in play(alice, connection, rng)]
    ms = sorted(trip * 1000 for trip in trips)
    print(json.dumps({
        "benchmark": "aries_move",
        "anchored": args.anchor,
        "games": args.games,
        "round_trips": len(ms),
        "round_trip_p50_ms": round(statistics.median(ms), 1),
        "round_trip_p90_ms": round(ms[int(0.9 * (len(ms) - 1))], 1),
        "move_p50_ms": round(statistics.median(ms) / 2, 1),
    }))  # fmt: skip


if __name__ == "__main__":
    main()
