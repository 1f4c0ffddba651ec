"""kill -9 at any moment: every batch reported COMMITTED is still there and the state root re-verifies."""

import asyncio
import os
import random
import selectors
import signal
import subprocess
import sys
import time
from pathlib import Path

from tests.xo_devnet.harness import address, running_ledger
from xo_devnet.chain import header_of
from xo_devnet.merkle import MerkleTree
from xo_devnet.storage import Storage

REPO = Path(__file__).resolve().parents[2]
CYCLES = 3
COMMITTED_BEFORE_KILL = 40


def run_until_killed(data_dir: Path, first: int) -> dict[str, int]:
    """Run a ledger in a child process, kill -9 it mid-stream, return what it reported committed."""
    child = subprocess.Popen(
        [sys.executable, "-m", "tests.xo_devnet.ledger_process", str(data_dir), str(first)],
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    reported: dict[str, int] = {}
    try:
        selector = selectors.DefaultSelector()
        selector.register(child.stdout, selectors.EVENT_READ)
        deadline = time.monotonic() + 60
        buffer = b""
        while len(reported) < COMMITTED_BEFORE_KILL:
            assert time.monotonic() < deadline, "the child ledger committed too little in time"
            assert child.poll() is None, "the child ledger exited early"
            if selector.select(timeout=1):
                buffer += os.read(child.stdout.fileno(), 65536)
                *lines, buffer = buffer.split(b"\n")
                for line in lines:
                    batch_id, number = line.split()
                    reported[batch_id.decode()] = int(number)
        time.sleep(random.uniform(0, 0.05))
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=30)
        rest = buffer + child.stdout.read()
        for line in rest.split(b"\n"):
            if line.count(b" ") == 1:
                batch_id, number = line.split()
                reported[batch_id.decode()] = int(number)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait(timeout=30)
        child.stdout.close()
    return reported


async def check_after_restart(data_dir: Path, reported: dict[str, int]) -> int:
    async with running_ledger(data_dir) as ledger:
        statuses = ledger.batch_statuses(list(reported))
        assert {status.status for status in statuses} == {"COMMITTED"}
        root = header_of(ledger.chain_head()).state_root_hash
        for number in reported.values():
            assert ledger.state_get(address(f"key{number}"), root) == str(number).encode()
        return header_of(ledger.chain_head()).block_num


def test_committed_batches_survive_kill_9_and_the_head_state_verifies(tmp_path):
    reported: dict[str, int] = {}
    heads = []
    for cycle in range(CYCLES):
        reported.update(run_until_killed(tmp_path, first=cycle * 1_000_000))
        heads.append(asyncio.run(asyncio.wait_for(check_after_restart(tmp_path, reported), 60)))
    assert heads == sorted(heads)
    storage = Storage.open(tmp_path)
    try:
        root = header_of(storage.head_block()).state_root_hash
        assert MerkleTree(storage).verify(root) >= len(reported)
    finally:
        storage.close()
