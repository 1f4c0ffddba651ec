"""The engine with our real `xo-tp` process: a whole game, a rejected move with its reason, and its events."""

import asyncio
import base64
import contextlib
import json
import sys

import aiohttp
import pytest

from tests.xo_devnet.events.event_client import event_client, subscription
from tests.xo_devnet.harness import running_ledger
from xo_client.transactions import make_xo_transaction
from xo_core.batches import make_batch
from xo_core.protobuf.events_pb2 import EventFilter
from xo_core.signing import Signer
from xo_devnet.chain import header_of
from xo_devnet.rest.server import start_rest_server
from xo_tp.family import NAMESPACE, game_address

pytestmark = pytest.mark.slow


@contextlib.asynccontextmanager
async def xo_tp(ledger):
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "xo_tp.cli",
        "-C",
        ledger.component_endpoint,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.DEVNULL,
    )
    try:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + 30
        while ("xo", "1.0") not in ledger.processors():
            assert loop.time() < deadline, "xo-tp did not register"
            assert process.returncode is None, "xo-tp exited"
            await asyncio.sleep(0.05)
        yield process
    finally:
        if process.returncode is None:
            process.terminate()
            try:
                await asyncio.wait_for(process.wait(), 15)
            except TimeoutError:
                process.kill()
                await process.wait()


async def move(ledger, player: Signer, name: str, action: str, space: int | None = None):
    batch = make_batch(player, [make_xo_transaction(player, name, action, space)])
    ledger.submit([batch])
    [status] = await ledger.wait_for_batches([batch.header_signature], 30)
    return status


def test_a_whole_game_and_a_rejected_move_with_xo_tp():
    alice, bob = Signer.generate(), Signer.generate()

    async def scenario():
        async with running_ledger() as ledger, xo_tp(ledger) as process:
            plays = [(alice, "create", None), (alice, "take", 1), (bob, "take", 4), (alice, "take", 2),
                     (bob, "take", 5), (alice, "take", 3)]
            for player, action, space in plays:
                assert (await move(ledger, player, "duel", action, space)).status == "COMMITTED"
            root = header_of(ledger.chain_head()).state_root_hash
            game = ledger.state_get(game_address("duel"), root).decode()
            assert game == f"duel,XXXOO----,P1-WIN,{alice.public_key},{bob.public_key}"
            assert [address for address, _ in ledger.state_list(NAMESPACE, root, None, 10)[0]] == [
                game_address("duel")
            ]

            late = await move(ledger, bob, "duel", "take", 9)
            assert late.status == "INVALID"
            assert "over" in late.invalid_transactions[0].message
            after = header_of(ledger.chain_head()).state_root_hash
            assert ledger.state_get(game_address("duel"), after).decode() == game
            assert process.returncode is None

    asyncio.run(asyncio.wait_for(scenario(), 90))


def test_xo_tp_events_reach_zmq_subscribers_and_websockets():
    alice, bob = Signer.generate(), Signer.generate()

    async def scenario():
        async with running_ledger() as ledger, xo_tp(ledger), event_client(ledger.component_endpoint) as client:
            rest = await start_rest_server(ledger, "127.0.0.1", 0)
            try:
                async with aiohttp.ClientSession() as session, session.ws_connect(f"{rest.url}/subscriptions") as ws:
                    await ws.send_json({"action": "subscribe", "address_prefixes": [NAMESPACE]})
                    assert json.loads(await ws.receive_str(timeout=10))["block_num"] == "0"
                    this_game = [("name", "watched", EventFilter.SIMPLE_ANY)]
                    answer = await client.subscribe(
                        [subscription("xo/create", *this_game), subscription("xo/take", *this_game)]
                    )
                    assert answer.status == answer.OK

                    assert (await move(ledger, alice, "other", "create")).status == "COMMITTED"
                    assert (await move(ledger, alice, "watched", "create")).status == "COMMITTED"
                    assert (await move(ledger, bob, "watched", "take", 5)).status == "COMMITTED"
                    lists = [await client.next_events() for _ in range(3)]
                    assert [len(events.events) for events in lists] == [0, 1, 1]
                    created, taken = lists[1].events[0], lists[2].events[0]
                    assert created.event_type == "xo/create"
                    assert [(item.key, item.value) for item in created.attributes] == [
                        ("name", "watched"), ("game-state", "P1-NEXT"), ("signer", alice.public_key)
                    ]  # fmt: skip
                    assert taken.event_type == "xo/take"
                    assert [(item.key, item.value) for item in taken.attributes] == [
                        ("name", "watched"), ("game-state", "P2-NEXT"), ("signer", bob.public_key), ("space", "5")
                    ]  # fmt: skip
                    assert taken.data == b"watched,----X----,P2-NEXT," + f"{bob.public_key},".encode()

                    messages = [json.loads(await ws.receive_str(timeout=10)) for _ in range(3)]
                    last = messages[2]["state_changes"]
                    assert [(change["address"], change["type"]) for change in last] == [
                        (game_address("watched"), "SET")
                    ]
                    assert base64.b64decode(last[0]["value"]) == taken.data
            finally:
                await rest.stop()

    asyncio.run(asyncio.wait_for(scenario(), 90))
