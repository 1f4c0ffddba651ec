"""GET /subscriptions: Sawtooth's state-delta websocket, its errors, resuming, and the bounds a client cannot break."""

import asyncio
import contextlib
import json
import logging

import aiohttp
import pytest
from jsonschema import Draft202012Validator
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

from tests.xo_devnet.harness import NAMESPACE, address, commit, connected, eventually, kv_batch, run, running_ledger
from xo_core import block_info
from xo_devnet.chain import NULL_BLOCK_ID
from xo_devnet.ledger import Ledger
from xo_devnet.rest.openapi import openapi_document
from xo_devnet.rest.server import RestServer, start_rest_server

MINE, OTHER = address("mine"), address("other")


@contextlib.asynccontextmanager
async def served(**overrides):
    """An in-memory ledger with a kv processor and the REST API in front of it."""
    async with running_ledger(**overrides) as ledger, connected(ledger):
        rest = await start_rest_server(ledger, "127.0.0.1", 0)
        try:
            yield ledger, rest
        finally:
            await rest.stop()


@contextlib.asynccontextmanager
async def websocket(rest: RestServer):
    async with aiohttp.ClientSession() as session, session.ws_connect(f"{rest.url}/subscriptions") as ws:
        yield ws


def server_messages_schema() -> Draft202012Validator:
    document = openapi_document()
    registry = Registry().with_resource("urn:openapi", Resource(document, DRAFT202012))
    pointer = "paths/~1subscriptions/get/x-websocket-messages/server"
    return Draft202012Validator({"$ref": f"urn:openapi#/{pointer}"}, registry=registry)


SCHEMA = server_messages_schema()


async def receive(ws: aiohttp.ClientWebSocketResponse, timeout: float = 10.0) -> dict:
    message = json.loads(await ws.receive_str(timeout=timeout))
    SCHEMA.validate(message)
    return message


async def quiet(ws: aiohttp.ClientWebSocketResponse, seconds: float = 0.2) -> bool:
    with contextlib.suppress(TimeoutError):
        await ws.receive(timeout=seconds)
        return False
    return True


async def play(ledger: Ledger, *numbers: int) -> None:
    for number in numbers:
        batch = kv_batch(set={MINE: f"mine {number}", OTHER: f"other {number}"})
        assert await commit(ledger, batch) == ["COMMITTED"]


def block_id(ledger: Ledger, number: int) -> str:
    return ledger.block_by_num(number).header_signature


def test_a_subscriber_gets_the_head_first_then_every_block_with_its_changes_under_its_prefixes():
    async def scenario():
        async with served() as (ledger, rest), websocket(rest) as ws:
            await ws.send_json({"action": "subscribe", "address_prefixes": [MINE[:10]]})
            head = await receive(ws)
            assert head == {
                "block_id": block_id(ledger, 0),
                "block_num": "0",
                "previous_block_id": NULL_BLOCK_ID,
                "state_changes": [],
            }
            await play(ledger, 1, 2)
            first, second = await receive(ws), await receive(ws)
            assert (first["block_num"], second["block_num"]) == ("1", "2")
            assert second["previous_block_id"] == first["block_id"] == block_id(ledger, 1)
            assert second["state_changes"] == [{"address": MINE, "value": "bWluZSAy", "type": "SET"}]

    run(scenario)


def test_without_prefixes_every_change_is_sent_the_blocks_blockinfo_included():
    async def scenario():
        async with served() as (ledger, rest), websocket(rest) as ws:
            await ws.send_json({"action": "subscribe"})
            await receive(ws)
            await play(ledger, 1)
            changes = (await receive(ws))["state_changes"]
            block_info_changes = [block_info.CONFIG_ADDRESS, block_info.block_address(0)]
            assert sorted(change["address"] for change in changes) == sorted([MINE, OTHER, *block_info_changes])

    run(scenario)


def test_get_block_deltas_answers_one_block_and_its_errors_are_sawtooths():
    async def scenario():
        async with served() as (ledger, rest), websocket(rest) as ws:
            await play(ledger, 1, 2)
            await ws.send_json(
                {"action": "get_block_deltas", "block_id": block_id(ledger, 1), "address_prefixes": [NAMESPACE]}
            )
            answer = await receive(ws)
            assert answer["block_num"] == "1"
            assert len(answer["state_changes"]) == 2
            await ws.send_json({"action": "get_block_deltas"})
            assert await receive(ws) == {"error": "Must specify a block id"}
            await ws.send_json({"action": "get_block_deltas", "block_id": "f" * 128})
            assert await receive(ws) == {"error": f'Unknown block id: "{"f" * 128}"'}
            assert await quiet(ws), "get_block_deltas subscribes to nothing"

    run(scenario)


@pytest.mark.parametrize(
    ("sent", "answer"),
    [
        ("not json", 'Invalid input: "not json"'),
        ("[1, 2]", 'Invalid input: "[1, 2]"'),
        ('{"action": "watch"}', 'Unknown action "watch"'),
        ("{}", 'Unknown action ""'),
        ('{"action": "subscribe", "address_prefixes": "5b7349"}', "address_prefixes must be a list"),
        ('{"action": "subscribe", "address_prefixes": [1]}', "address_prefixes must be a list"),
        ('{"action": "subscribe", "last_known_block_ids": "abc"}', "last_known_block_ids must be a list"),
        ("[" * 50_000, "Invalid input"),  # nests too deep for the JSON decoder
    ],
)
def test_malformed_messages_get_an_error_message_and_the_socket_stays_usable(sent, answer, caplog):
    async def scenario():
        async with served() as (_, rest), websocket(rest) as ws:
            await ws.send_str(sent)
            assert (await receive(ws))["error"].startswith(answer)
            await ws.send_json({"action": "subscribe"})
            assert (await receive(ws))["block_num"] == "0"

    run(scenario)
    assert not [record for record in caplog.records if record.levelno >= logging.ERROR]


def test_a_message_over_64_kib_closes_the_socket_with_1009():
    async def scenario():
        async with served() as (_, rest), websocket(rest) as ws:
            await ws.send_str(json.dumps({"action": "subscribe", "address_prefixes": ["00" * 40] * 1000}))
            message = await ws.receive(timeout=10)
            assert (message.type, message.data) == (aiohttp.WSMsgType.CLOSE, 1009)

    run(scenario)


def test_a_client_that_reconnects_with_its_last_block_misses_nothing_and_sees_nothing_twice():
    async def scenario():
        async with served() as (ledger, rest):
            seen = []
            async with websocket(rest) as ws:
                await ws.send_json({"action": "subscribe", "address_prefixes": [MINE[:10]]})
                seen.append(await receive(ws))
                await play(ledger, 1, 2)
                seen += [await receive(ws), await receive(ws)]
            await play(ledger, 3, 4)  # while the client is away
            async with websocket(rest) as ws:
                last = seen[-1]["block_id"]
                await ws.send_json(
                    {"action": "subscribe", "address_prefixes": [MINE[:10]], "last_known_block_ids": [last]}
                )
                seen += [await receive(ws), await receive(ws)]
                await play(ledger, 5)
                seen.append(await receive(ws))
                assert await quiet(ws)
            assert [message["block_num"] for message in seen] == ["0", "1", "2", "3", "4", "5"]
            assert [message["previous_block_id"] for message in seen[1:]] == [
                message["block_id"] for message in seen[:-1]
            ]
            assert [message["state_changes"][0]["value"] for message in seen[1:]] == [
                "bWluZSAx", "bWluZSAy", "bWluZSAz", "bWluZSA0", "bWluZSA1"
            ]  # fmt: skip

    run(scenario)


def test_resuming_from_the_null_block_replays_the_chain_and_from_the_head_waits_for_the_next_block():
    async def scenario():
        async with served() as (ledger, rest), websocket(rest) as ws:
            await play(ledger, 1)
            await ws.send_json({"action": "subscribe", "last_known_block_ids": [NULL_BLOCK_ID]})
            assert [(await receive(ws))["block_num"] for _ in range(2)] == ["0", "1"]
            await ws.send_json({"action": "subscribe", "last_known_block_ids": [block_id(ledger, 1)]})
            assert await quiet(ws)

    run(scenario)


def test_unknown_last_known_blocks_are_an_error_and_subscribe_nothing():
    async def scenario():
        async with served() as (ledger, rest), websocket(rest) as ws:
            await ws.send_json({"action": "subscribe", "last_known_block_ids": ["f" * 128]})
            assert await receive(ws) == {
                "error": "Unknown block: none of the last known block ids is a block of this chain"
            }
            await play(ledger, 1)
            assert await quiet(ws)

    run(scenario)


def test_unsubscribe_stops_the_blocks_and_a_new_subscribe_replaces_the_old_one():
    async def scenario():
        async with served() as (ledger, rest), websocket(rest) as ws:
            await ws.send_json({"action": "subscribe", "address_prefixes": [MINE[:10]]})
            await receive(ws)
            await ws.send_json({"action": "subscribe", "address_prefixes": [OTHER[:10]]})
            assert (await receive(ws))["block_num"] == "0"
            await play(ledger, 1)
            assert [change["address"] for change in (await receive(ws))["state_changes"]] == [OTHER]
            assert await quiet(ws)
            await ws.send_json({"action": "unsubscribe"})
            await play(ledger, 2)
            assert await quiet(ws)
            await eventually(lambda: ledger.events.subscriber_count == 0)

    run(scenario)


def test_websockets_beyond_the_subscriber_limit_are_refused_with_429_until_one_closes(caplog):
    caplog.set_level(logging.WARNING)

    async def scenario():
        async with served(max_subscribers=2) as (_, rest), aiohttp.ClientSession() as session:
            first = await session.ws_connect(f"{rest.url}/subscriptions")
            second = await session.ws_connect(f"{rest.url}/subscriptions")
            for _ in range(5):  # a client retrying at once: refused each time, logged once
                async with session.get(
                    f"{rest.url}/subscriptions",
                    headers={
                        "Upgrade": "websocket",
                        "Connection": "Upgrade",
                        "Sec-WebSocket-Version": "13",
                        "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==",
                    },
                ) as refused:
                    assert refused.status == 429
                    assert (await refused.json())["error"]["code"] == 90
            warnings = [record for record in caplog.records if "refusing a websocket" in record.getMessage()]
            assert len(warnings) == 1
            await first.close()
            third = await session.ws_connect(f"{rest.url}/subscriptions")
            await third.send_json({"action": "subscribe"})
            assert (await receive(third))["block_num"] == "0"
            await second.close()
            await third.close()

    run(scenario)


def test_a_plain_get_is_refused_with_a_sawtooth_error_body(api):
    answer = api.get("/subscriptions")
    assert (answer.status, answer.error_code) == (400, 91)


def test_a_websocket_that_stops_reading_is_closed_and_the_others_miss_nothing(caplog):
    caplog.set_level(logging.INFO, "xo_devnet")

    async def scenario():
        async with (
            served(subscriber_stall_timeout=0.3, block_interval=0.001) as (ledger, rest),
            websocket(rest) as stuck,
            websocket(rest) as reader,
        ):
            await stuck.send_json({"action": "subscribe"})
            await reader.send_json({"action": "subscribe", "address_prefixes": [MINE[:10]]})
            assert (await receive(reader))["block_num"] == "0"
            loop = asyncio.get_running_loop()
            deadline = loop.time() + 30
            number = 0
            while ledger.events.subscriber_count == 2:
                assert loop.time() < deadline, "the stuck websocket was never dropped"
                number += 1
                assert await commit(ledger, kv_batch(set={OTHER: "x" * 300_000, MINE: str(number)})) == ["COMMITTED"]
                await asyncio.sleep(0.01)  # the loop runs the hub's stall check meanwhile
            numbers = [(await receive(reader))["block_num"] for _ in range(number)]
            assert numbers == [str(n) for n in range(1, number + 1)]
            for _ in range(number + 2):  # what the buffers held, then the end of the connection
                message = await stuck.receive(timeout=10)
                if message.type != aiohttp.WSMsgType.TEXT:
                    break
            assert message.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED, aiohttp.WSMsgType.ERROR)
            if message.type == aiohttp.WSMsgType.CLOSE:
                assert message.data == 1008

    run(scenario)
    warnings = [record.getMessage() for record in caplog.records if record.levelno >= logging.WARNING]
    assert len(warnings) == 1
    assert warnings[0].startswith("dropping event subscriber ws:127.0.0.1:")
    assert warnings[0].endswith("it took nothing for 0.3 s (not reading)")


def test_shutting_the_server_down_closes_websockets_with_1001():
    async def scenario():
        async with running_ledger() as ledger:
            rest = await start_rest_server(ledger, "127.0.0.1", 0)
            async with websocket(rest) as ws:
                await ws.send_json({"action": "subscribe"})
                await receive(ws)
                await rest.stop()
                message = await ws.receive(timeout=10)
                assert message.type == aiohttp.WSMsgType.CLOSE
                assert (message.data, message.extra) == (1001, "Server shutdown")
            assert ledger.events.subscriber_count == 0

    run(scenario)


def test_a_hundred_websockets_each_get_every_block():
    async def scenario():
        async with served() as (ledger, rest), aiohttp.ClientSession() as session:
            sockets = [await session.ws_connect(f"{rest.url}/subscriptions") for _ in range(100)]
            for ws in sockets:
                await ws.send_json({"action": "subscribe", "address_prefixes": [MINE[:10]]})
                assert (await receive(ws))["block_num"] == "0"
            await play(ledger, 1, 2, 3)
            for ws in sockets:
                assert [(await receive(ws))["block_num"] for _ in range(3)] == ["1", "2", "3"]
                await ws.close()

    run(scenario)
