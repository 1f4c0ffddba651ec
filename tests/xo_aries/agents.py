"""ACA-Py agents for the tests, as separate processes on loopback, driven through their admin APIs."""

from __future__ import annotations

import contextlib
import os
import random
import re
import select
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from client_core.errors import CommandError
from xo_cli.arguments import parse
from xo_cli.aries_admin import AdminClient
from xo_cli.aries_agent import HANDSHAKE, AgentFlags, acapy_command, acapy_environment, wallet_key

REPO = Path(__file__).resolve().parents[2]
PLUGINS = Path(__file__).resolve().parent / "plugins"
#: Starting an agent provisions a wallet; on a busy machine that takes tens of seconds.
START_WAIT = 120.0
POLL = 0.05
#: Ports for agents: below Linux's ephemeral range (32768-60999), so no outgoing connection takes one
#: between our probe and ACA-Py's bind; each pytest-xdist worker has its own block of them.
PORT_BASE = 20000
PORT_BLOCK = 1000
#: How many times an agent is started on fresh ports when it finds one taken after all.
START_ATTEMPTS = 3
#: What ``xo aries agent`` (before starting ACA-Py) and ACA-Py (failing to bind) say of a taken port.
PORT_TAKEN = re.compile(r"already in use", re.IGNORECASE)

_handed_out: set[int] = set()
_ports_lock = threading.Lock()


class PortTaken(RuntimeError):
    """Another process got an agent's port between the probe and the agent's bind: try other ports."""


def _worker_block() -> range:
    """This pytest-xdist worker's ports (``gw3`` is the fourth block); the first block without xdist."""
    worker = re.fullmatch(r"gw(\d+)", os.environ.get("PYTEST_XDIST_WORKER", ""))
    index = int(worker.group(1)) % 12 if worker else 0
    start = PORT_BASE + index * PORT_BLOCK
    return range(start, start + PORT_BLOCK)


def free_port() -> int:
    """A loopback port nothing listens on now, from this worker's block, never handed out twice by this process.

    ACA-Py must be told its ports, so port 0 cannot be used. Other test runs on the machine may
    use the same block: the probe skips ports bound now, and :func:`start_agent` retries on a
    port taken later. The search starts at a random place so two runs rarely probe in step.
    """
    block = _worker_block()
    offset = random.randrange(len(block))
    with _ports_lock:
        for step in range(len(block)):
            port = block[(offset + step) % len(block)]
            if port in _handed_out:
                continue
            with socket.socket() as probe:
                probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as ACA-Py's server binds
                try:
                    probe.bind(("127.0.0.1", port))
                except OSError:
                    continue
            _handed_out.add(port)
            return port
    raise RuntimeError(f"no free port in {block}")


@dataclass
class Agent:
    """A running agent: its process, admin client and the invitation it printed."""

    label: str
    process: subprocess.Popen[bytes]
    admin: AdminClient
    invitation: str
    log: Path
    connections: dict[str, str] = field(default_factory=dict)

    def stop(self) -> None:
        _stop(self.process)

    def game(self, thread_id: str) -> dict[str, Any]:
        return self.admin.get(f"/tictactoe/games/{thread_id}")

    def wait_for(self, thread_id: str, ready: Callable[[dict[str, Any]], bool], timeout: float = 20.0) -> dict:
        """The game once ``ready`` holds for it; fails with the last state seen after ``timeout``."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                game = self.game(thread_id)
            except Exception:  # the game may not have arrived yet
                game = {}
            if game and ready(game):
                return game
            if time.monotonic() > deadline:
                raise AssertionError(f"{self.label}: {thread_id} never got there; last seen {game}")
            time.sleep(POLL)

    def wait_for_new_game(self, known: set[str], timeout: float = 20.0) -> str:
        """The thread id of a game that is not one of ``known``, once it arrives."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            games = {game["thread_id"] for game in self.admin.get("/tictactoe/games")["results"]}
            if games - known:
                return sorted(games - known)[0]
            time.sleep(POLL)
        raise AssertionError(f"{self.label}: no new game within {timeout} s")


def start_agent(label: str, data_dir: Path, *extra: str, api_key: str | None = None, cheat: bool = False) -> Agent:
    """``xo aries agent --label LABEL ...`` as a process; its invitation read from its stdout.

    ``cheat``: ACA-Py is started with the very command line ``xo aries agent`` builds
    (:func:`xo_cli.aries_agent.acapy_command`) plus the tests' misbehaving plugin, and its
    invitation made through the admin API as ``xo aries agent`` makes it. An agent whose port
    another process took after all is started again on fresh ports (:data:`START_ATTEMPTS`).
    """
    for attempt in range(1, START_ATTEMPTS + 1):
        try:
            return _start_agent(label, data_dir, *extra, api_key=api_key, cheat=cheat)
        except PortTaken:
            if attempt == START_ATTEMPTS:
                raise
    raise AssertionError("unreachable")


def _start_agent(label: str, data_dir: Path, *extra: str, api_key: str | None, cheat: bool) -> Agent:
    admin = free_port()
    argv = [
        "aries", "agent", "--label", label, "--inbound", f"127.0.0.1:{free_port()}",
        "--admin", f"127.0.0.1:{admin}", "--data-dir", str(data_dir), *extra,
    ]  # fmt: skip
    if api_key:
        argv += ["--admin-api-key", api_key]
    environment = dict(os.environ, PYTHONPATH=os.pathsep.join([str(REPO), str(PLUGINS)]))
    client = AdminClient(f"http://127.0.0.1:{admin}", api_key)
    log = data_dir.with_suffix(".log")
    if not cheat:
        with log.open("wb") as errors:
            process = subprocess.Popen([sys.executable, "-m", "xo_cli.main", *argv], stdout=subprocess.PIPE,
                                       stderr=errors, env=environment)  # fmt: skip
        return Agent(label, process, client, _read_invitation(process, log), log)
    flags = AgentFlags.of(parse(argv))  # as the command's edge resolves them
    command = [*acapy_command(flags), "--plugin", "xo_aries_cheat"]
    secrets = acapy_environment(flags, wallet_key(data_dir), data_dir)
    with log.open("wb") as errors:
        process = subprocess.Popen(
            command, stdout=errors, stderr=errors, env=dict(secrets, PYTHONPATH=environment["PYTHONPATH"])
        )
    deadline = time.monotonic() + START_WAIT
    while not _ready(client):
        _check_ports(process, log)
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            raise AssertionError(f"{label} did not start:\n{log.read_text(errors='replace')[-3000:]}")
        time.sleep(0.2)
    created = client.post("/out-of-band/create-invitation", {"handshake_protocols": [HANDSHAKE]})
    return Agent(label, process, client, created["invitation_url"], log)


@contextlib.contextmanager
def running(*starts: Callable[[], Agent]) -> Iterator[list[Agent]]:
    """The agents ``starts`` start, started side by side (each provisions a wallet), all stopped on the way out."""
    with ThreadPoolExecutor(len(starts)) as pool:
        futures = [pool.submit(start) for start in starts]
    agents = [future.result() for future in futures if future.exception() is None]
    try:
        if len(agents) < len(starts):
            raise next(future.exception() for future in futures if future.exception() is not None)
        yield agents
    finally:
        for agent in agents:  # all told at once: each takes seconds to shut down
            agent.process.terminate()
        for agent in agents:
            agent.stop()


def _check_ports(process: subprocess.Popen[bytes], log: Path) -> None:
    """:class:`PortTaken` (the process stopped) if the agent says a port of its is taken."""
    if PORT_TAKEN.search(log.read_text(errors="replace")):
        _stop(process)  # ACA-Py does not exit when it cannot bind; xo aries agent passes SIGTERM on to it
        raise PortTaken(log.read_text(errors="replace")[-500:])


def _stop(process: subprocess.Popen[bytes]) -> None:
    """SIGTERM (``xo aries agent`` stops its ACA-Py on it), SIGKILL if that takes more than 30 s."""
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def _ready(client: AdminClient) -> bool:
    try:
        return bool(client.get("/status/ready").get("ready"))
    except CommandError:
        return False


def _read_invitation(process: subprocess.Popen[bytes], log: Path) -> str:
    deadline = time.monotonic() + START_WAIT
    buffer = b""
    assert process.stdout is not None
    while time.monotonic() < deadline:
        _check_ports(process, log)
        ready, _, _ = select.select([process.stdout], [], [], 1.0)
        if ready:
            chunk = os.read(process.stdout.fileno(), 65536)
            if not chunk:
                break
            buffer += chunk
            for line in buffer.decode().splitlines():
                if line.startswith("http://"):
                    return line.strip()
    _check_ports(process, log)
    process.kill()
    raise AssertionError(f"no invitation within {START_WAIT} s: {buffer!r}\n{log.read_text(errors='replace')[-3000:]}")


def connect(inviter: Agent, invitee: Agent) -> tuple[str, str]:
    """Connect two agents by ``invitee`` accepting ``inviter``'s invitation: (inviter's id, invitee's id)."""
    from xo_cli.aries_connect import decode_invitation  # noqa: PLC0415

    record = invitee.admin.post("/out-of-band/receive-invitation", decode_invitation(inviter.invitation))
    theirs = record["connection_id"]
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        mine = [
            connection["connection_id"]
            for connection in inviter.admin.get("/connections")["results"]
            if connection.get("their_label") == invitee.label and connection.get("state") in ("active", "completed")
        ]
        state = invitee.admin.get(f"/connections/{theirs}")["state"]
        if mine and state in ("active", "completed"):
            inviter.connections[invitee.label] = mine[0]
            invitee.connections[inviter.label] = theirs
            return mine[0], theirs
        time.sleep(POLL)
    raise AssertionError(f"{invitee.label} never connected to {inviter.label}")
