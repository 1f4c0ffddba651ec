"""The follower: every block after its cursor, once, in order, against a REST API imitating Sawtooth's or xo-devnet's.

Sawtooth's REST API ignores ``last_known_block_ids`` and starts each subscription with
the newest block it has seen, so after a reconnection the follower must notice the
gap and read the missed blocks from ``/blocks`` and ``/receipts``; xo-devnet sends them
itself. The scripted server (``scripted_ledger.py``) does either.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import gc
import math
import threading
import time
import warnings
from collections.abc import Collection

import pytest

from client_core import follow
from client_core.answers import StateChange
from client_core.blocks import BlockChanges, BlockRef, ChainChanged
from client_core.errors import Unavailable
from client_core.follow import AsyncFollower, Follower
from tests.client_core.scripted_ledger import ScriptedLedger, address

MINE, OTHER = address("mine"), address("other", namespace="aaaaaa")
SECONDS = 10


def run(scenario):
    async def bounded():
        async with asyncio.timeout(SECONDS):
            return await scenario()

    return asyncio.run(bounded())


@contextlib.asynccontextmanager
async def ledger(mode: str = "sawtooth", **settings):
    server = ScriptedLedger(mode, **settings)
    await server.start()
    try:
        yield server
    finally:
        await server.stop()


@contextlib.asynccontextmanager
async def following(server: ScriptedLedger, prefixes=(MINE[:6],), **options):
    notices: list[str] = []
    follower = AsyncFollower(server.url, prefixes, on_notice=notices.append, **options)
    follower.notices = notices  # type: ignore[attr-defined]
    try:
        yield follower
    finally:
        await follower.aclose()


async def take(follower: AsyncFollower, count: int) -> list[BlockChanges]:
    blocks = aiter(follower)
    return [await anext(blocks) for _ in range(count)]


async def moves(server: ScriptedLedger, *numbers: int) -> None:
    for number in numbers:
        await server.commit({MINE: f"mine {number}".encode(), OTHER: f"other {number}".encode()})


async def subscribed(server: ScriptedLedger, besides: Collection[object] = ()) -> None:
    """Wait until a websocket (other than ``besides``) has subscribed, so the next block goes out live to it.

    Looked at every 10 ms; ``run`` bounds the whole scenario.
    """
    while not any(prefixes is not None and ws not in besides for ws, prefixes in server.sockets.items()):
        await asyncio.sleep(0.01)


def nums(blocks: list[BlockChanges]) -> list[int]:
    return [block.block_num for block in blocks]


def mine(blocks: list[BlockChanges]) -> list[bytes]:
    return [change.value for block in blocks for change in block.changes]


@pytest.mark.parametrize("mode", ["sawtooth", "devnet"])
def test_a_follower_starts_at_the_head_and_gets_each_later_block_with_its_changes_under_its_prefixes(mode):
    async def scenario():
        async with ledger(mode) as server, following(server) as follower:
            await moves(server, 1)
            start = await follower.start()
            assert start == BlockRef(server.head.block_id, 1)
            reader = asyncio.ensure_future(take(follower, 2))
            await subscribed(server)
            await moves(server, 2, 3)
            blocks = await reader
            assert nums(blocks) == [2, 3]
            assert blocks[1].previous_block_id == blocks[0].block_id
            assert blocks[0].changes == (StateChange(MINE, "SET", b"mine 2"),)
            assert follower.cursor == BlockRef(server.head.block_id, 3)
            assert follower.notices == []

    run(scenario)


def test_a_block_that_changes_nothing_under_the_prefixes_is_still_delivered_empty():
    async def scenario():
        async with ledger() as server, following(server) as follower:
            await follower.start()
            reader = asyncio.ensure_future(take(follower, 1))
            await subscribed(server)
            await server.commit({OTHER: b"elsewhere"})
            assert (await reader)[0].changes == ()

    run(scenario)


@pytest.mark.parametrize("mode", ["sawtooth", "devnet"])
def test_after_an_older_block_every_block_since_is_delivered_once_in_order(mode):
    async def scenario():
        async with ledger(mode) as server:
            await moves(server, 1, 2, 3, 4)
            after = BlockRef(server.chain[1].block_id, 1)
            async with following(server, after=after) as follower:
                blocks = await take(follower, 3)
                assert nums(blocks) == [2, 3, 4]
                assert mine(blocks) == [b"mine 2", b"mine 3", b"mine 4"]
            if mode == "sawtooth":
                assert len(server.gets("/blocks?head=")) == 1, "the gap is read in one page"
                assert len(server.posts("/receipts")) == 1
            else:
                assert server.gets("/blocks?head=") == [], "xo-devnet sends the missed blocks itself"

    run(scenario)


@pytest.mark.parametrize("mode", ["sawtooth", "devnet"])
def test_a_dropped_connection_resumes_after_the_last_block_with_nothing_lost_or_repeated(mode):
    async def scenario():
        async with ledger(mode) as server, following(server) as follower:
            await follower.start()
            reader = asyncio.ensure_future(take(follower, 6))
            await subscribed(server)
            await moves(server, 1, 2)
            dropped = set(server.sockets)
            await server.drop_websockets()
            await moves(server, 3, 4, 5)  # committed while the follower is away
            await subscribed(server, besides=dropped)
            await moves(server, 6)
            blocks = await reader
            assert nums(blocks) == [1, 2, 3, 4, 5, 6]
            assert mine(blocks) == [f"mine {number}".encode() for number in range(1, 7)]
            lost, back = follower.notices
            assert "closed the websocket (code 1001: Server shutdown); reconnecting" in lost
            assert back == f"reconnected to the REST API at {server.url}; resuming after block 2"

    run(scenario)


def test_blocks_sawtooth_did_not_send_live_are_read_from_the_rest_api_before_the_next_one():
    async def scenario():
        async with ledger() as server, following(server) as follower:
            await follower.start()
            reader = asyncio.ensure_future(take(follower, 4))
            await subscribed(server)
            server.deaf = True  # its validator connection dropped the events of these two
            await moves(server, 1, 2)
            server.deaf = False
            await moves(server, 3, 4)
            assert nums(await reader) == [1, 2, 3, 4]

    run(scenario)


def test_a_subscription_that_starts_with_an_older_head_than_the_followers_skips_it():
    async def scenario():
        async with ledger(stale_by=1) as server:
            await moves(server, 1, 2)
            async with following(server) as follower:
                assert (await follower.start()).block_num == 2
                reader = asyncio.ensure_future(take(follower, 1))
                await subscribed(server)
                await moves(server, 3)
                assert nums(await reader) == [3]

    run(scenario)


def test_a_block_sent_twice_is_delivered_once():
    async def scenario():
        async with ledger() as server, following(server) as follower:
            await follower.start()
            reader = asyncio.ensure_future(take(follower, 2))
            await subscribed(server)
            await moves(server, 1)
            await server.send_again(server.head)
            await moves(server, 2)
            assert nums(await reader) == [1, 2]

    run(scenario)


def test_a_long_gap_is_read_a_page_at_a_time_and_only_relevant_receipts_are_asked_for():
    async def scenario():
        async with ledger() as server:
            start = BlockRef(server.head.block_id, 0)
            for number in range(1, 251):
                changes = {MINE: f"mine {number}".encode()} if number % 50 == 0 else {OTHER: b"elsewhere"}
                await server.commit(changes)
            async with following(server, after=start) as follower:
                blocks = await take(follower, 250)
            assert nums(blocks) == list(range(1, 251))
            assert mine(blocks) == [f"mine {number}".encode() for number in (50, 100, 150, 200, 250)]
            assert len(server.gets("/blocks?head=")) == 3, "100 blocks a page"
            assert len(server.posts("/receipts")) == 1, "the other transactions cannot write under the prefix"

    run(scenario)


def test_a_delete_is_a_change_without_a_value():
    async def scenario():
        async with ledger() as server, following(server) as follower:
            await follower.start()
            reader = asyncio.ensure_future(take(follower, 1))
            await subscribed(server)
            await server.commit({MINE: None})
            assert (await reader)[0].changes == (StateChange(MINE, "DELETE", b""),)

    run(scenario)


@pytest.mark.parametrize("mode", ["sawtooth", "devnet"])
def test_a_fork_that_replaces_the_followers_block_is_chain_changed(mode):
    async def scenario():
        async with ledger(mode) as server, following(server) as follower:
            await moves(server, 1, 2)
            await follower.start()
            server.fork(from_num=2)
            await server.drop_websockets()
            await moves(server, 2, 3)
            with pytest.raises(ChainChanged, match=r"block 2 .* is not on the chain .* any more"):
                await take(follower, 1)

    run(scenario)


@pytest.mark.parametrize("refusal", [404, 429])
def test_a_refused_websocket_is_said_once_then_the_follower_polls(refusal):
    async def scenario():
        async with ledger() as server, following(server, poll_seconds=0.05) as follower:
            server.refuse_websocket = refusal
            await follower.start()
            reader = asyncio.ensure_future(take(follower, 3))
            while not follower.polling:  # the refusal is behind it (run() bounds the wait)
                await asyncio.sleep(0.01)
            await moves(server, 1)
            await moves(server, 2, 3)
            blocks = await reader
            assert nums(blocks) == [1, 2, 3]
            assert mine(blocks) == [b"mine 1", b"mine 2", b"mine 3"]
            assert follower.polling
            [notice] = follower.notices
            assert notice.startswith(f"the REST API at {server.url} does not serve the /subscriptions websocket (HTTP")
            assert notice.endswith(": polling for new blocks every 0.05 s instead")
            assert len(server.gets("/subscriptions")) == 1

    run(scenario)


def test_polling_detects_a_ledger_started_afresh():
    async def scenario():
        async with ledger() as server, following(server, websocket=False, poll_seconds=0.05) as follower:
            await moves(server, 1, 2, 3)
            await follower.start()
            server.fork(from_num=1)
            await moves(server, 1)
            with pytest.raises(ChainChanged):
                await take(follower, 1)

    run(scenario)


def test_a_devnet_that_does_not_know_the_last_block_is_chain_changed():
    async def scenario():
        async with ledger("devnet") as server, following(server, after=BlockRef("ab" * 64, 7)) as follower:
            with pytest.raises(ChainChanged, match="block 7"):
                await take(follower, 1)

    run(scenario)


def test_a_server_that_goes_away_and_comes_back_on_its_port_is_followed_again():
    async def scenario():
        server = ScriptedLedger("devnet")
        await server.start()
        async with following(server) as follower:
            await follower.start()
            reader = asyncio.ensure_future(take(follower, 2))
            await subscribed(server)
            await moves(server, 1)
            port = server.port
            await server.stop()
            await asyncio.sleep(0.3)  # refused connections meanwhile
            await server.start(port)
            await moves(server, 2)
            assert nums(await reader) == [1, 2]
            assert len(follower.notices) == 2
            assert follower.notices[0].startswith(f"the REST API at {server.url} closed the websocket")
        await server.stop()

    run(scenario)


def test_a_server_that_drops_every_connection_at_once_is_retried_ever_more_slowly(monkeypatch):
    monkeypatch.setattr(follow, "FIRST_PAUSE", 0.025)  # a quarter of the product's, for a quarter of the wait

    async def scenario():
        async with ledger() as server, following(server) as follower:
            await follower.start()
            server.drop_at_once = True
            reader = asyncio.ensure_future(take(follower, 1))
            await asyncio.sleep(0.4)  # pauses of 0.025, 0.05, 0.1, 0.2 s (each +-25%): at most 5 attempts, not 16
            assert 3 <= len(server.gets("/subscriptions")) <= 5
            assert follower.notices[0].endswith("closed the websocket (code 1013: go away); reconnecting")
            server.drop_at_once = False
            await moves(server, 1)  # the next attempt subscribes and finds it
            assert nums(await reader) == [1]

    run(scenario)


def test_the_websocket_keeps_the_path_prefix_and_the_credentials():
    async def scenario():
        async with ledger(prefix="/sawtooth") as server:
            server.require_auth = "Basic " + base64.b64encode(b"alice:secret").decode()
            async with following(server, auth=("alice", "secret")) as follower:
                await follower.start()
                reader = asyncio.ensure_future(take(follower, 1))
                await subscribed(server)
                await moves(server, 1)
                assert nums(await reader) == [1]
                assert server.gets("/subscriptions")

    run(scenario)


def test_credentials_refused_end_the_follower_with_the_usual_error():
    async def scenario():
        async with ledger() as server, following(server, auth=("alice", "wrong")) as follower:
            server.require_auth = "Basic something-else"
            with pytest.raises(Unavailable, match="refused the credentials of 'alice'"):
                await follower.start()

    run(scenario)


def test_the_blocking_follower_runs_its_own_loop_between_blocks():
    loop = asyncio.new_event_loop()
    server = ScriptedLedger("sawtooth")
    loop.run_until_complete(server.start())
    serving = threading.Thread(target=loop.run_forever, daemon=True)
    serving.start()
    try:
        with Follower(server.url, [MINE[:6]]) as follower:
            start = follower.start()
            asyncio.run_coroutine_threadsafe(moves(server, 1, 2), loop).result(SECONDS)
            first, second = next(follower), next(follower)
            assert (first.previous_block_id, first.block_num, second.block_num) == (start.block_id, 1, 2)
            assert follower.cursor == second.ref
    finally:
        asyncio.run_coroutine_threadsafe(server.stop(), loop).result(SECONDS)
        loop.call_soon_threadsafe(loop.stop)
        serving.join(SECONDS)


def test_a_bounded_wait_on_a_quiet_chain_gives_up_and_the_next_one_still_gets_every_block():
    loop = asyncio.new_event_loop()
    server = ScriptedLedger("sawtooth")
    loop.run_until_complete(server.start())
    serving = threading.Thread(target=loop.run_forever, daemon=True)
    serving.start()
    try:
        with Follower(server.url, [MINE[:6]]) as follower:
            start = follower.start()
            started = time.monotonic()
            assert follower.next_within(0.2) is None
            assert 0.2 <= time.monotonic() - started < 2
            assert follower.cursor == start
            asyncio.run_coroutine_threadsafe(moves(server, 1, 2), loop).result(SECONDS)
            first = follower.next_within(SECONDS)
            second = follower.next_within(math.inf)
            assert first is not None and second is not None
            assert (first.previous_block_id, first.block_num, second.block_num) == (start.block_id, 1, 2)
            assert follower.next_within(0) is None
    finally:
        asyncio.run_coroutine_threadsafe(server.stop(), loop).result(SECONDS)
        loop.call_soon_threadsafe(loop.stop)
        serving.join(SECONDS)


def test_a_wait_stopped_by_a_signal_before_it_began_leaves_no_coroutine_never_awaited(monkeypatch):
    follower = Follower("http://127.0.0.1:9", [MINE[:6]])

    def signal_arrives():
        raise KeyboardInterrupt  # as the command's Ctrl-C handler does, in the moment before the loop runs

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        monkeypatch.setattr(follower._runner, "get_loop", signal_arrives)
        with pytest.raises(KeyboardInterrupt):
            follower.next_within(1)
        gc.collect()
    monkeypatch.undo()
    follower.close()
    assert [str(warning.message) for warning in caught if "never awaited" in str(warning.message)] == []
