"""kill -9 at any moment: every batch reported COMMITTED is still there, every accepted one is decided
exactly once, and the state root re-verifies."""

import asyncio
import os
import random
import selectors
import signal
import subprocess
import sys
import time
from pathlib import Path

from tests.xo_devnet.harness import address, connected, running_ledger, submitted_batches
from tests.xo_devnet.ledger_process import COUNTER
from xo_devnet.chain import header_of
from xo_devnet.ledger import Ledger
from xo_devnet.merkle import MerkleTree
from xo_devnet.storage import Storage

REPO = Path(__file__).resolve().parents[2]
CYCLES = 3
COMMITTED_BEFORE_KILL = 40
ACCEPTED_BEFORE_KILL = 100

Reported = dict[str, dict[str, int]]
"""What the child printed: {"accepted" | "committed": {batch id: n}}."""


def run_until_killed(data_dir: Path, first: int, kill_after: tuple[str, int], *options: str) -> Reported:
    """Run a ledger in a child process, kill -9 it once it reported ``kill_after`` = (word, count) batches."""
    child = subprocess.Popen(
        [sys.executable, "-m", "tests.xo_devnet.ledger_process", str(data_dir), str(first), *options],
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    reported: Reported = {"accepted": {}, "committed": {}}
    word, count = kill_after

    def take(lines: list[bytes]) -> None:
        for line in lines:
            if line.count(b" ") == 2:
                kind, batch_id, number = line.decode().split()
                reported[kind][batch_id] = int(number)

    try:
        selector = selectors.DefaultSelector()
        selector.register(child.stdout, selectors.EVENT_READ)
        deadline = time.monotonic() + 60
        buffer = b""
        while len(reported[word]) < count:
            assert time.monotonic() < deadline, f"the child ledger reported too few {word} batches in time"
            assert child.poll() is None, "the child ledger exited early"
            if selector.select(timeout=1):
                buffer += os.read(child.stdout.fileno(), 65536)
                *lines, buffer = buffer.split(b"\n")
                take(lines)
        time.sleep(random.uniform(0, 0.05))
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=30)
        take((buffer + child.stdout.read()).split(b"\n"))
    finally:
        if child.poll() is None:
            child.kill()
            child.wait(timeout=30)
        child.stdout.close()
    return reported


def chain_batch_ids(ledger: Ledger) -> list[str]:
    """Every submitted batch on the chain, in order (each block's BlockInfo, checked, left out)."""
    head = header_of(ledger.chain_head()).block_num
    return [
        batch.header_signature for num in range(head + 1) for batch in submitted_batches(ledger.block_by_num(num))
    ]


async def check_after_restart(data_dir: Path, reported: Reported) -> int:
    """Committed ones are there at once; accepted ones commit once a processor comes; nothing runs twice."""
    async with running_ledger(data_dir) as ledger:
        committed, accepted = reported["committed"], reported["accepted"]
        assert [status.status for status in ledger.batch_statuses(list(committed))] == ["COMMITTED"] * len(committed)
        root = header_of(ledger.chain_head()).state_root_hash
        for number in committed.values():
            assert ledger.state_get(address(f"key{number}"), root) == str(number).encode()
        async with connected(ledger):
            statuses = await ledger.wait_for_batches(list(accepted), 60)
        assert [status.status for status in statuses] == ["COMMITTED"] * len(accepted)
        root = header_of(ledger.chain_head()).state_root_hash
        for number in accepted.values():
            assert ledger.state_get(address(f"key{number}"), root) == str(number).encode()
        on_chain = chain_batch_ids(ledger)
        assert len(on_chain) == len(set(on_chain)), "a batch is in two blocks"
        assert set(accepted) | set(committed) <= set(on_chain)
        assert ledger.state_get(COUNTER, root) == str(len(on_chain)).encode()
        return header_of(ledger.chain_head()).block_num


def verify_head_state(data_dir: Path, at_least: int) -> None:
    storage = Storage.open(data_dir)
    try:
        root = header_of(storage.head_block()).state_root_hash
        assert MerkleTree(storage).verify(root) >= at_least
    finally:
        storage.close()


def test_committed_and_accepted_batches_survive_kill_9_mid_stream_and_the_head_state_verifies(tmp_path):
    reported: Reported = {"accepted": {}, "committed": {}}
    heads = []
    for cycle in range(CYCLES):
        latest = run_until_killed(tmp_path, cycle * 1_000_000, ("committed", COMMITTED_BEFORE_KILL))
        for kind, batches in latest.items():
            reported[kind].update(batches)
        assert len(reported["committed"]) >= COMMITTED_BEFORE_KILL * (cycle + 1)
        heads.append(asyncio.run(asyncio.wait_for(check_after_restart(tmp_path, reported), 120)))
    assert heads == sorted(heads)
    verify_head_state(tmp_path, len(reported["accepted"]))


def test_batches_accepted_just_before_a_kill_9_commit_exactly_once_after_a_restart(tmp_path):
    reported = run_until_killed(tmp_path, 0, ("accepted", ACCEPTED_BEFORE_KILL), "--no-processor")
    assert not reported["committed"]
    assert len(reported["accepted"]) >= ACCEPTED_BEFORE_KILL
    asyncio.run(asyncio.wait_for(check_after_restart(tmp_path, reported), 120))
    verify_head_state(tmp_path, len(reported["accepted"]))
