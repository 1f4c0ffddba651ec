"""GET /metrics after a scripted session of submissions, and GET /health on a ledger that works and one that failed.

The scrape is checked against what the script did: so many batches taken in, refused
for each error code, committed, invalid, waiting; blocks and subscribers.
"""

from __future__ import annotations

import contextlib

import aiohttp

from tests.scraping import convention_problems, families, value
from tests.xo_devnet.harness import address, batch_of, connected, eventually, kv_batch, kv_txn, run, running_ledger
from xo_core.batches import make_batch_list
from xo_core.protobuf.batch_pb2 import Batch
from xo_devnet.chain import header_of
from xo_devnet.rest.server import RestServer, start_rest_server
from xo_devnet.storage import Storage, StorageError

OCTETS = {"Content-Type": "application/octet-stream"}


@contextlib.asynccontextmanager
async def served(data_dir=None, **overrides):
    """An in-memory (or data-dir) ledger with a kv processor and the REST API in front of it."""
    async with running_ledger(data_dir, **overrides) as ledger, connected(ledger):
        rest = await start_rest_server(ledger, "127.0.0.1", 0)
        try:
            async with aiohttp.ClientSession() as session:
                yield ledger, rest, session
        finally:
            await rest.stop()


async def post(session: aiohttp.ClientSession, rest: RestServer, body: bytes, headers=OCTETS) -> int:
    async with session.post(f"{rest.url}/batches", data=body, headers=headers) as response:
        return response.status


async def scrape(session: aiohttp.ClientSession, rest: RestServer) -> dict:
    async with session.get(f"{rest.url}/metrics") as response:
        assert response.status == 200
        assert response.content_type == "text/plain"
        return families(await response.text())


async def decided(ledger, *batches: Batch) -> list[str]:
    statuses = await ledger.wait_for_batches([batch.header_signature for batch in batches], 20)
    return [status.status for status in statuses]


def test_the_scrape_counts_what_was_submitted_refused_committed_invalid_and_waiting():
    async def scenario():
        async with served() as (ledger, rest, session):
            good = [kv_batch(set={address(f"k{n}"): str(n)}) for n in range(3)]
            for batch in good:
                assert await post(session, rest, make_batch_list([batch])) == 202
            bad = kv_batch(invalid="no such move")
            assert await post(session, rest, make_batch_list([bad])) == 202
            assert await decided(ledger, *good, bad) == ["COMMITTED"] * 3 + ["INVALID"]

            assert await post(session, rest, make_batch_list([good[0]])) == 400  # a duplicate: code 30
            assert await post(session, rest, b"\xff not protobuf") == 400  # code 35
            assert await post(session, rest, b"") == 400  # code 34
            assert await post(session, rest, b"x", {"Content-Type": "text/plain"}) == 400  # code 42

            first = kv_txn(set={address("later"): "1"})
            dependent = batch_of(kv_txn(set={address("after"): "1"}, dependencies=[first.header_signature]))
            assert await post(session, rest, make_batch_list([dependent])) == 202
            await eventually(lambda: ledger.pending_batches.waiting_count == 1)
            waiting = await scrape(session, rest)

            assert await post(session, rest, make_batch_list([batch_of(first)])) == 202
            assert await decided(ledger, dependent) == ["COMMITTED"]
            head = header_of(ledger.chain_head()).block_num
            after = await scrape(session, rest)

        assert value(waiting, "xo_devnet_pending_batches") == 1
        assert value(waiting, "xo_devnet_waiting_batches") == 1
        assert value(waiting, "xo_devnet_waiting_batches_ratio") == 1.0
        assert value(waiting, "xo_devnet_pending_batches_limit") == 10_000
        assert value(waiting, "xo_devnet_waiting_batches_limit") == 1_000

        assert value(after, "xo_devnet_batches_received_total") == 6
        for code, refused in (("30", 1), ("31", 0), ("34", 1), ("35", 1), ("42", 1)):
            assert value(after, "xo_devnet_batch_submissions_refused_total", code=code) == refused
        assert value(after, "xo_devnet_batches_committed_total") == 5
        assert value(after, "xo_devnet_batches_invalid_total") == 1
        assert value(after, "xo_devnet_batch_commit_seconds_count") == 5
        assert value(after, "xo_devnet_block_batches_count") == head
        assert value(after, "xo_devnet_block_batches_sum") == 5
        assert value(after, "xo_devnet_block_seconds_count") == head
        assert value(after, "xo_devnet_pending_batches") == 0
        assert value(after, "xo_devnet_waiting_batches_ratio") == 0.0
        assert value(after, "xo_devnet_head_block_number") == head
        assert value(after, "xo_devnet_block_info_block_number") == head - 1
        assert value(after, "xo_devnet_processors") == 1
        assert value(after, "xo_devnet_producing_blocks") == 1

    run(scenario)


def test_subscribers_and_websockets_are_counted_while_open():
    async def scenario():
        async with served() as (ledger, rest, session):
            async with session.ws_connect(f"{rest.url}/subscriptions") as ws:
                await ws.send_json({"action": "subscribe", "address_prefixes": []})
                await ws.receive_str(timeout=10)
                open_ = await scrape(session, rest)
            await eventually(lambda: ledger.events.subscriber_count == 0)
            closed = await scrape(session, rest)

        assert value(open_, "xo_devnet_websocket_clients") == 1
        assert value(open_, "xo_devnet_event_subscribers") == 1
        assert value(closed, "xo_devnet_websocket_clients") == 0
        assert value(closed, "xo_devnet_event_subscribers") == 0
        assert value(closed, "xo_devnet_event_subscribers_dropped_total") == 0  # it left by itself

    run(scenario)


def test_every_name_follows_prometheus_conventions_and_labels_are_the_servers_own():
    async def scenario():
        async with served() as (_, rest, session):
            scraped = await scrape(session, rest)

        assert convention_problems(scraped.values(), "xo_devnet") == []
        labels = {key for family in scraped.values() for sample in family.samples for key in sample.labels}
        assert labels == {"code", "le"}
        assert not any(name.startswith(("python_", "process_")) for name in scraped)

    run(scenario)


def test_health_is_200_while_blocks_can_be_produced():
    async def scenario():
        async with served() as (_, rest, session), session.get(f"{rest.url}/health") as response:
            assert response.status == 200
            assert await response.json() == {"data": {"status": "ok", "head_block_num": 0}}

    run(scenario)


def test_health_is_503_with_the_reason_once_storage_fails(tmp_path, monkeypatch):
    def disk_full(storage, batches):
        raise StorageError("database or disk is full")

    async def scenario():
        async with served(tmp_path) as (ledger, rest, session):
            monkeypatch.setattr(Storage, "add_pending", disk_full)
            assert await post(session, rest, make_batch_list([kv_batch(set={address("a"): "1"})])) == 429
            assert ledger.failure is not None
            async with session.get(f"{rest.url}/health") as response:
                assert response.status == 503
                body = await response.json()
            metrics = await scrape(session, rest)

        assert body["error"]["code"] == 15
        assert body["error"]["title"] == "Validator Not Ready"
        assert body["error"]["message"].startswith("The ledger cannot produce blocks: storage failed to record")
        assert "disk is full" in body["error"]["message"]
        assert value(metrics, "xo_devnet_producing_blocks") == 0
        assert value(metrics, "xo_devnet_batch_submissions_refused_total", code="31") == 1

    run(scenario)
