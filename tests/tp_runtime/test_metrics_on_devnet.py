"""``xo-tp``, ``rps-tp`` and ``chips-tp`` with ``--metrics``, as separate processes, on an xo-devnet ledger.

Each scrape is checked against what the script did: so many moves committed, so many
refused by the rules, one event per committed move; for xo, the moves go through the
REST API and the devnet's own /metrics is checked against the same script.
"""

from __future__ import annotations

import asyncio
import re
import socket
from collections.abc import Callable

import aiohttp
import pytest

from chips_client import transactions as chips
from chips_tp.channel import Fixed
from chips_tp.family import account_address
from chips_tp.state import Account, encode_account
from rps_client.transactions import commit_moment, make_rps_transaction, reveal_moment
from rps_tp.commitment import commitment, new_salt
from rps_tp.game import SETUP_PHASE, Moment, Settings
from rps_tp.ops import Commit, Create, Join, Ready, Reveal
from tests.scraping import convention_problems, scrape, value
from tests.tp_runtime.conftest import TpProcess
from tests.xo_devnet.harness import running_ledger
from xo_client.transactions import make_xo_transaction
from xo_core.batches import make_batch, make_batch_list
from xo_core.protobuf.transaction_pb2 import Transaction
from xo_core.signing import Signer
from xo_devnet.rest.server import start_rest_server

pytestmark = pytest.mark.subprocess

#: The moment of every rps op before play: the create joins its host, so the game is being set up.
LOBBY = Moment(0, SETUP_PHASE)
SERVING = re.compile(r"serving metrics at (http://\S+/metrics)")


async def registered(ledger, family: str, tp: TpProcess) -> str:
    """Wait until ``family`` is registered with the ledger; the processor's metrics URL, from its log."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 30
    while (family, "1.0") not in ledger.processors():
        assert loop.time() < deadline, f"{family}-tp did not register:\n{tp.log_text()}"
        assert tp.process.poll() is None, f"{family}-tp exited:\n{tp.log_text()}"
        await asyncio.sleep(0.05)
    found = SERVING.search(tp.log_text())
    assert found, tp.log_text()
    return found.group(1)


Moves = list[tuple[Signer, Callable[[Signer], Transaction]]]


async def play(ledger, moves: Moves, rest_url: str | None = None) -> list[str]:
    """Submit each move as a batch of its own (to the ledger, or POSTed to ``rest_url``), waiting for it to be
    decided; their statuses."""
    statuses = []
    async with aiohttp.ClientSession() as session:
        for signer, build in moves:
            batch = make_batch(signer, [build(signer)])
            if rest_url is None:
                await ledger.submit([batch])
            else:
                body, headers = make_batch_list([batch]), {"Content-Type": "application/octet-stream"}
                async with session.post(f"{rest_url}/batches", data=body, headers=headers) as response:
                    assert response.status == 202
            [status] = await ledger.wait_for_batches([batch.header_signature], 30)
            statuses.append(status.status)
    return statuses


def test_xo_tp_counts_a_scripted_game(start_tp):
    alice, bob = Signer.generate(), Signer.generate()

    def xo(action: str, space: int | None = None) -> Callable[[Signer], Transaction]:
        return lambda signer: make_xo_transaction(signer, "scored", action, space)

    async def scenario() -> None:
        async with running_ledger(block_time_limit=30.0) as ledger:
            rest = await start_rest_server(ledger, "127.0.0.1", 0)
            try:
                tp = start_tp("-C", ledger.component_endpoint, "--metrics", "127.0.0.1:0")
                url = await registered(ledger, "xo", tp)
                statuses = await play(ledger, [
                    (alice, xo("create")), (alice, xo("take", 1)), (bob, xo("take", 4)),
                    (bob, xo("take", 1)),  # taken: invalid
                    (alice, xo("take", 2)), (bob, xo("take", 5)), (alice, xo("take", 3)),
                    (bob, xo("take", 9)),  # the game is over: invalid
                ], rest.url)  # fmt: skip
                assert statuses.count("COMMITTED") == 6
                assert statuses.count("INVALID") == 2
                families = await asyncio.to_thread(scrape, url)
                devnet = await asyncio.to_thread(scrape, f"{rest.url}/metrics")
            finally:
                await rest.stop()

        assert value(families, "xo_tp_transactions_total", result="ok", family_version="1.0") == 6
        assert value(families, "xo_tp_transactions_total", result="invalid", family_version="1.0") == 2
        assert value(families, "xo_tp_transactions_total", result="internal_error", family_version="1.0") == 0
        assert value(families, "xo_tp_transaction_processing_seconds_count") == 8
        assert value(families, "xo_tp_state_reads_total") == 8
        assert value(families, "xo_tp_state_writes_total") == 6
        assert value(families, "xo_tp_events_added_total") == 6
        assert value(families, "xo_tp_registered") == 1
        assert value(families, "xo_tp_registrations_total") == 1
        assert convention_problems(families.values(), "xo_tp") == []
        assert value(devnet, "xo_devnet_batches_received_total") == 8
        assert value(devnet, "xo_devnet_batches_committed_total") == 6
        assert value(devnet, "xo_devnet_batches_invalid_total") == 2
        assert value(devnet, "xo_devnet_batch_commit_seconds_count") == 6
        assert value(devnet, "xo_devnet_pending_batches") == 0

    asyncio.run(asyncio.wait_for(scenario(), 120))


def test_rps_tp_counts_a_scripted_round_with_its_address_from_the_environment(start_tp):
    alice, bob = Signer.generate(), Signer.generate()
    settings = Settings(points=1, timeout=300)
    salts = {"alice": new_salt(), "bob": new_salt()}

    def rps(op) -> Callable[[Signer], Transaction]:
        return lambda signer: make_rps_transaction(signer, op)

    def commit(name: str, signer: Signer, throw: str) -> Callable[[Signer], Transaction]:
        return rps(Commit("round", commit_moment(1), commitment("round", 1, signer.public_key, throw, salts[name])))

    async def scenario() -> None:
        async with running_ledger(block_time_limit=30.0) as ledger:
            tp = start_tp("-C", ledger.component_endpoint, env={"RPS_TP_METRICS": "127.0.0.1:0"}, command="rps-tp")
            url = await registered(ledger, "rps", tp)
            statuses = await play(ledger, [
                (alice, rps(Create("round", settings=settings))), (bob, rps(Join("round", LOBBY))),
                (bob, rps(Join("round", LOBBY))),  # seated already: invalid
                (alice, rps(Ready("round", LOBBY, settings))), (bob, rps(Ready("round", LOBBY, settings))),
                (alice, commit("alice", alice, "rock")),
                (alice, rps(Reveal("round", reveal_moment(1), "rock", salts["alice"]))),  # before bob commits: invalid
                (bob, commit("bob", bob, "paper")),
                (alice, rps(Reveal("round", reveal_moment(1), "rock", salts["alice"]))),
                (bob, rps(Reveal("round", reveal_moment(1), "paper", salts["bob"]))),
            ])  # fmt: skip
            assert statuses.count("COMMITTED") == 8
            assert statuses.count("INVALID") == 2
            families = await asyncio.to_thread(scrape, url)

        assert value(families, "rps_tp_transactions_total", result="ok", family_version="2.0") == 8
        assert value(families, "rps_tp_transactions_total", result="invalid", family_version="2.0") == 2
        assert value(families, "rps_tp_transaction_processing_seconds_count") == 10
        assert value(families, "rps_tp_state_reads_total") >= 10  # each move reads its game; some read the clock
        assert value(families, "rps_tp_state_writes_total") == 8
        assert value(families, "rps_tp_events_added_total") == 8
        assert convention_problems(families.values(), "rps_tp") == []

    asyncio.run(asyncio.wait_for(scenario(), 120))


def test_chips_tp_counts_a_scripted_channel_opened_and_cancelled(start_tp):
    alice, bob = Signer.generate(), Signer.generate()
    # a challenge of an hour: above the floor where chips.min_challenge_seconds is unset (600 s)
    fixed = Fixed((alice.public_key, bob.public_key), "xo", 10, (50, 50), 3600, 7)

    async def scenario() -> None:
        opening = {account_address(alice.public_key): encode_account(Account(alice.public_key, 50))}
        async with running_ledger(block_time_limit=30.0, genesis_state=opening) as ledger:
            tp = start_tp("-C", ledger.component_endpoint, "--metrics", "127.0.0.1:0", command="chips-tp")
            url = await registered(ledger, "chips", tp)
            statuses = await play(ledger, [
                (alice, lambda signer: chips.open_channel(signer, fixed)),  # pays alice's 50 in
                (alice, lambda signer: chips.open_channel(signer, fixed)),  # it exists: invalid
                (bob, lambda signer: chips.join(signer, fixed, 50)),  # bob holds no chips: invalid
                (bob, lambda signer: chips.cancel(signer, fixed)),
            ])  # fmt: skip
            assert statuses == ["COMMITTED", "INVALID", "INVALID", "COMMITTED"]
            families = await asyncio.to_thread(scrape, url)

        assert value(families, "chips_tp_transactions_total", result="ok", family_version="1.0") == 2
        assert value(families, "chips_tp_transactions_total", result="invalid", family_version="1.0") == 2
        assert value(families, "chips_tp_transaction_processing_seconds_count") == 4
        assert value(families, "chips_tp_state_writes_total") == 2
        assert value(families, "chips_tp_events_added_total") == 2
        assert value(families, "chips_tp_registered") == 1
        assert convention_problems(families.values(), "chips_tp") == []

    asyncio.run(asyncio.wait_for(scenario(), 120))


def test_a_metrics_port_in_use_is_a_bad_setting(start_tp):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        tp = start_tp("-C", "tcp://127.0.0.1:1", "--metrics", f"127.0.0.1:{port}")

        assert tp.wait() == 2
    log = tp.log_text()
    assert log.startswith(f"xo-tp: error: --metrics: cannot serve metrics on 127.0.0.1:{port}: ")
    assert log.count("\n") == 1
