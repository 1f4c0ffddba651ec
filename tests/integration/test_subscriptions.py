"""The REST API's /subscriptions websocket, as any Sawtooth 1.x REST API serves it: the protocol both networks share.

Only what Sawtooth's own REST API does is checked here (xo-devnet's resuming with
``last_known_block_ids`` is tested with the devnet's own tests). A real network is
shared, so the test watches its own game's address and skips other blocks.
"""

from __future__ import annotations

import asyncio
import base64
import json
from typing import Any

import aiohttp

from tests.integration.players import Player
from tests.integration.rest import xo_address

MESSAGE_SECONDS = 60.0
MAX_BLOCKS = 200
FIELDS = ("block_id", "block_num", "previous_block_id", "state_changes")
"""A block message's fields (Sawtooth's REST API may add ``fork_detected`` to live ones)."""


async def next_json(ws: aiohttp.ClientWebSocketResponse) -> dict[str, Any]:
    return json.loads(await ws.receive_str(timeout=MESSAGE_SECONDS))


def test_a_subscriber_sees_the_block_that_creates_its_game_and_can_fetch_it_again(
    rest_url: str, alice: Player, game: str
) -> None:
    address = xo_address(game)

    async def scenario() -> None:
        async with aiohttp.ClientSession() as session, session.ws_connect(f"{rest_url}/subscriptions") as ws:
            await ws.send_json({"action": "subscribe", "address_prefixes": [address]})
            previous = await next_json(ws)  # the current head
            assert isinstance(previous["block_num"], str)
            assert previous["state_changes"] == []

            await asyncio.to_thread(alice.create, game)
            for _ in range(MAX_BLOCKS):
                message = await next_json(ws)
                assert message["previous_block_id"] == previous["block_id"], "a block is missing or out of order"
                assert int(message["block_num"]) == int(previous["block_num"]) + 1
                if message["state_changes"]:
                    break
                previous = message
            else:
                raise AssertionError(f"no block changed {address} within {MAX_BLOCKS} blocks")
            assert message["state_changes"] == [
                {
                    "address": address,
                    "value": base64.b64encode(f"{game},---------,P1-NEXT,,".encode()).decode(),
                    "type": "SET",
                }
            ]

            await ws.send_json(
                {"action": "get_block_deltas", "block_id": message["block_id"], "address_prefixes": [address]}
            )
            again = await next_json(ws)
            while again["block_id"] != message["block_id"]:  # a live block may come first
                again = await next_json(ws)
            assert {key: again[key] for key in FIELDS} == {key: message[key] for key in FIELDS}

    asyncio.run(scenario())


def test_what_the_websocket_cannot_read_is_answered_with_sawtooths_error_messages(rest_url: str) -> None:
    async def scenario() -> None:
        async with aiohttp.ClientSession() as session, session.ws_connect(f"{rest_url}/subscriptions") as ws:
            await ws.send_str("not json")
            assert await next_json(ws) == {"error": 'Invalid input: "not json"'}
            await ws.send_json({"action": "watch"})
            assert await next_json(ws) == {"error": 'Unknown action "watch"'}
            await ws.send_json({"action": "get_block_deltas"})
            assert await next_json(ws) == {"error": "Must specify a block id"}

    asyncio.run(scenario())
