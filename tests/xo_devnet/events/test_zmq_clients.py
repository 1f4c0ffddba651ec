"""Client event subscriptions on the component endpoint, spoken over ZMQ as a Sawtooth event client speaks them."""

import asyncio
import logging

from tests.xo_devnet.events.event_client import (
    BLOCK_COMMIT,
    STATE_DELTA,
    EventClient,
    attribute,
    event_client,
    subscription,
)
from tests.xo_devnet.harness import address, commit, connected, eventually, kv_batch, run, running_ledger
from xo_core import block_info
from xo_core.protobuf.client_event_pb2 import (
    ClientEventsGetResponse,
    ClientEventsSubscribeResponse,
    ClientEventsUnsubscribeResponse,
)
from xo_core.protobuf.events_pb2 import EventFilter, EventList
from xo_core.protobuf.transaction_receipt_pb2 import StateChangeList
from xo_core.protobuf.validator_pb2 import Message
from xo_devnet.chain import NULL_BLOCK_ID
from xo_devnet.events import matching
from xo_devnet.events.hub import MAX_LAST_KNOWN_BLOCK_IDS
from xo_devnet.events.zmq_clients import MAX_GET_BLOCKS
from xo_devnet.ledger import Ledger

OK = ClientEventsSubscribeResponse.OK
GAME_EVENTS = subscription("kv/game")


def game_batch(number: int, name: str = "g1", value: str = "v"):
    """A batch setting one address and adding a kv/game event naming ``name``."""
    return kv_batch(set={address(number): value}, event="kv/game", attributes=[["name", name], ["n", str(number)]])


def block_num(events: EventList) -> int:
    return int(attribute(events.events[0], "block_num"))


def block_id(ledger: Ledger, number: int) -> str:
    return ledger.block_by_num(number).header_signature


async def play(ledger: Ledger, *numbers: int) -> None:
    for number in numbers:
        assert await commit(ledger, game_batch(number)) == ["COMMITTED"]


def test_a_subscription_from_before_genesis_gets_every_block_then_the_new_ones():
    async def scenario():
        async with running_ledger() as ledger, connected(ledger), event_client(ledger.component_endpoint) as client:
            await play(ledger, 1, 2)
            answer = await client.subscribe([BLOCK_COMMIT, STATE_DELTA, GAME_EVENTS], [NULL_BLOCK_ID])
            assert (answer.status, answer.response_message) == (OK, "")
            caught_up = [await client.next_events() for _ in range(3)]
            assert [block_num(events) for events in caught_up] == [0, 1, 2]
            genesis = caught_up[0].events
            assert [event.event_type for event in genesis] == ["sawtooth/block-commit", "sawtooth/state-delta"]
            assert attribute(genesis[0], "previous_block_id") == NULL_BLOCK_ID
            assert [event.event_type for event in caught_up[2].events] == [
                "sawtooth/block-commit",
                "kv/game",
                "sawtooth/state-delta",
            ]
            assert [(item.key, item.value) for item in caught_up[2].events[1].attributes] == [
                ("name", "g1"),
                ("n", "2"),
            ]
            changes = StateChangeList.FromString(caught_up[2].events[2].data).state_changes
            # newest first: the kv write, then the block's BlockInfo (the description of block 1, the config)
            assert [change.address for change in changes] == [
                address(2), block_info.block_address(1), block_info.CONFIG_ADDRESS,
            ]  # fmt: skip
            assert changes[0].value == b"v"

            await play(ledger, 3)
            live = await client.next_events()
            assert block_num(live) == 3
            assert attribute(live.events[0], "previous_block_id") == attribute(caught_up[2].events[0], "block_id")
            assert attribute(live.events[0], "block_id") == block_id(ledger, 3)

    run(scenario)


def test_a_state_delta_filtered_on_a_namespace_comes_only_with_blocks_that_change_it_not_with_every_blockinfo():
    under_xo = subscription(STATE_DELTA.event_type, ("address", "^5b7349", EventFilter.REGEX_ANY))
    under_block_info = subscription(
        STATE_DELTA.event_type, ("address", f"^{block_info.NAMESPACE}", EventFilter.REGEX_ANY)
    )

    async def scenario():
        async with (
            running_ledger() as ledger,
            connected(ledger),
            event_client(ledger.component_endpoint) as xo_watcher,
            event_client(ledger.component_endpoint) as clock_watcher,
        ):
            assert (await xo_watcher.subscribe([under_xo])).status == OK
            assert (await clock_watcher.subscribe([under_block_info])).status == OK
            await play(ledger, 1)
            assert [event.event_type for event in (await xo_watcher.next_events()).events] == []
            [delta] = (await clock_watcher.next_events()).events
            assert block_info.CONFIG_ADDRESS in [item.value for item in delta.attributes]

    run(scenario)


def test_catch_up_starts_after_the_newest_block_the_client_knows():
    async def scenario():
        async with running_ledger() as ledger, connected(ledger), event_client(ledger.component_endpoint) as client:
            await play(ledger, 1, 2, 3)
            known = [block_id(ledger, 1), "f" * 128, block_id(ledger, 2)]
            assert (await client.subscribe([BLOCK_COMMIT], known)).status == OK
            assert block_num(await client.next_events()) == 3
            assert await client.nothing_within(0.2)

    run(scenario)


def test_without_last_known_blocks_events_start_with_the_next_block():
    async def scenario():
        async with running_ledger() as ledger, connected(ledger), event_client(ledger.component_endpoint) as client:
            await play(ledger, 1)
            assert (await client.subscribe([BLOCK_COMMIT])).status == OK
            assert await client.nothing_within(0.2)
            await play(ledger, 2)
            assert block_num(await client.next_events()) == 2

    run(scenario)


def test_a_subscription_naming_over_a_hundred_last_known_blocks_is_refused_before_any_lookup():
    async def scenario():
        async with running_ledger() as ledger, connected(ledger), event_client(ledger.component_endpoint) as client:
            answer = await client.subscribe([BLOCK_COMMIT], ["f" * 128] * (MAX_LAST_KNOWN_BLOCK_IDS + 1))
            assert answer.status == ClientEventsSubscribeResponse.UNKNOWN_BLOCK
            assert answer.response_message.startswith("too many last known block ids: 101 (at most 100)")

    run(scenario)


def test_unknown_last_known_blocks_answer_unknown_block_and_subscribe_nothing():
    async def scenario():
        async with running_ledger() as ledger, connected(ledger), event_client(ledger.component_endpoint) as client:
            answer = await client.subscribe([BLOCK_COMMIT], ["f" * 128, "not a block id"])
            assert answer.status == ClientEventsSubscribeResponse.UNKNOWN_BLOCK
            assert answer.response_message == "none of the last known block ids is a block of this chain"
            await play(ledger, 1)
            assert await client.nothing_within(0.2)

    run(scenario)


def test_invalid_filters_are_refused_with_the_reason():
    async def scenario():
        async with running_ledger() as ledger, event_client(ledger.component_endpoint) as client:
            unset = await client.subscribe([subscription("kv/game", ("name", "g1", EventFilter.FILTER_TYPE_UNSET))])
            assert (unset.status, unset.response_message) == (
                ClientEventsSubscribeResponse.INVALID_FILTER,
                "Unknown filter type: 0",
            )
            broken = await client.subscribe([subscription("kv/game", ("name", "(", EventFilter.REGEX_ANY))])
            assert broken.status == ClientEventsSubscribeResponse.INVALID_FILTER
            assert broken.response_message.startswith("Invalid regular expression: (: ")
            backreference = await client.subscribe([subscription("kv/game", ("name", r"(a)\1", EventFilter.REGEX_ANY))])
            assert (backreference.status, backreference.response_message) == (
                ClientEventsSubscribeResponse.INVALID_FILTER,
                r"Invalid regular expression: (a)\1: invalid escape sequence: \1 (patterns run under RE2, in linear"
                " time: no backreferences, lookaround or possessive repetition)",
            )
            assert ledger.events.subscriber_count == 0

    run(scenario)


def test_filters_pick_the_processor_events_and_every_block_still_gets_its_list():
    async def scenario():
        async with running_ledger() as ledger, connected(ledger), event_client(ledger.component_endpoint) as client:
            mine = subscription("kv/game", ("name", "g1", EventFilter.SIMPLE_ANY))
            assert (await client.subscribe([mine])).status == OK
            for number, name in [(1, "g1"), (2, "g2"), (3, "g1")]:
                assert await commit(ledger, game_batch(number, name)) == ["COMMITTED"]
            lists = [await client.next_events() for _ in range(3)]
            assert [[attribute(event, "n") for event in events.events] for events in lists] == [["1"], [], ["3"]]

    run(scenario)


def test_unsubscribing_stops_the_events_and_a_second_subscribe_replaces_the_first():
    async def scenario():
        async with running_ledger() as ledger, connected(ledger), event_client(ledger.component_endpoint) as client:
            assert (await client.subscribe([GAME_EVENTS])).status == OK
            assert (await client.subscribe([BLOCK_COMMIT])).status == OK
            await play(ledger, 1)
            assert [event.event_type for event in (await client.next_events()).events] == ["sawtooth/block-commit"]
            assert await client.nothing_within(0.1)
            assert ledger.events.subscriber_count == 1

            assert (await client.unsubscribe()).status == ClientEventsUnsubscribeResponse.OK
            await play(ledger, 2)
            assert await client.nothing_within(0.2)
            await eventually(lambda: ledger.events.subscriber_count == 0)
            assert (await client.unsubscribe()).status == ClientEventsUnsubscribeResponse.OK

    run(scenario)


def test_get_answers_the_events_of_the_named_blocks_in_the_order_named():
    async def scenario():
        async with running_ledger() as ledger, connected(ledger), event_client(ledger.component_endpoint) as client:
            await play(ledger, 1, 2)
            answer = await client.get([block_id(ledger, 2), block_id(ledger, 1)], [BLOCK_COMMIT, GAME_EVENTS])
            assert answer.status == ClientEventsGetResponse.OK
            assert [(event.event_type, event.attributes[1].value) for event in answer.events] == [
                ("sawtooth/block-commit", "2"),
                ("kv/game", "2"),
                ("sawtooth/block-commit", "1"),
                ("kv/game", "1"),
            ]
            unknown = await client.get([block_id(ledger, 1), "f" * 128], [BLOCK_COMMIT])
            assert (unknown.status, list(unknown.events)) == (ClientEventsGetResponse.UNKNOWN_BLOCK, [])
            invalid = await client.get([block_id(ledger, 1)], [subscription("x", ("k", "[", EventFilter.REGEX_ALL))])
            assert invalid.status == ClientEventsGetResponse.INVALID_FILTER
            too_many = await client.get([block_id(ledger, 1)] * (MAX_GET_BLOCKS + 1), [BLOCK_COMMIT])
            assert too_many.status == ClientEventsGetResponse.INTERNAL_ERROR
            assert (await client.get([], [BLOCK_COMMIT])).status == ClientEventsGetResponse.OK

    run(scenario)


def test_requests_that_do_not_decode_get_an_error_answer_and_harm_nothing(caplog):
    async def scenario():
        async with running_ledger() as ledger, connected(ledger), event_client(ledger.component_endpoint) as client:
            garbage = b"\xff\xff\xff"
            subscribe = await client.ask(Message.CLIENT_EVENTS_SUBSCRIBE_REQUEST, garbage)
            refused = ClientEventsSubscribeResponse.FromString(subscribe.content)
            assert refused.status == ClientEventsSubscribeResponse.STATUS_UNSET
            assert "not a ClientEventsSubscribeRequest" in refused.response_message
            get = await client.ask(Message.CLIENT_EVENTS_GET_REQUEST, garbage)
            assert ClientEventsGetResponse.FromString(get.content).status == ClientEventsGetResponse.INTERNAL_ERROR
            await play(ledger, 1)

    run(scenario)
    assert not [record for record in caplog.records if record.levelno >= logging.ERROR]


def test_subscribers_beyond_the_limit_are_refused_until_a_place_is_free():
    async def scenario():
        async with running_ledger(max_subscribers=2) as ledger:
            endpoint = ledger.component_endpoint
            async with event_client(endpoint) as one, event_client(endpoint) as two, event_client(endpoint) as three:
                assert (await one.subscribe([BLOCK_COMMIT])).status == OK
                assert (await two.subscribe([BLOCK_COMMIT])).status == OK
                assert (await two.subscribe([STATE_DELTA])).status == OK, "a second subscribe keeps its place"
                refused = await three.subscribe([BLOCK_COMMIT])
                assert refused.status == ClientEventsSubscribeResponse.STATUS_UNSET
                assert "All 2 event subscriber places" in refused.response_message
                await one.unsubscribe()
                assert (await three.subscribe([BLOCK_COMMIT])).status == OK

    run(scenario)


def test_a_client_that_went_away_without_unsubscribing_frees_its_place_at_the_next_block():
    async def scenario():
        async with running_ledger(max_subscribers=1) as ledger, connected(ledger):
            gone = EventClient(ledger.component_endpoint)
            assert (await gone.subscribe([BLOCK_COMMIT])).status == OK
            gone.close()
            await asyncio.sleep(0.1)  # the ROUTER learns of the disconnection
            await play(ledger, 1)
            await eventually(lambda: ledger.events.subscriber_count == 0)
            async with event_client(ledger.component_endpoint) as client:
                assert (await client.subscribe([BLOCK_COMMIT])).status == OK

    run(scenario)


def test_a_client_that_stops_reading_is_dropped_and_the_others_miss_nothing(caplog):
    caplog.set_level(logging.INFO, "xo_devnet.events")

    async def scenario():
        async with (
            running_ledger(subscriber_stall_timeout=0.3, block_interval=0.001) as ledger,
            connected(ledger),
            event_client(ledger.component_endpoint, reading=False) as stuck,
            event_client(ledger.component_endpoint) as reader,
        ):
            assert (await stuck.subscribe([STATE_DELTA])).status == OK
            assert (await reader.subscribe([BLOCK_COMMIT])).status == OK
            loop = asyncio.get_running_loop()
            deadline = loop.time() + 30
            number = 0
            while ledger.events.subscriber_count == 2:
                assert loop.time() < deadline, "the stuck client was never dropped"
                number += 1
                await commit(ledger, game_batch(number, value="x" * 300_000))
                await asyncio.sleep(0.01)  # the loop runs the hub's stall check meanwhile
            assert ledger.events.subscriber_count == 1
            numbers = [block_num(await reader.next_events()) for _ in range(number)]
            assert numbers == list(range(1, number + 1))

    run(scenario)
    warnings = [record.getMessage() for record in caplog.records if record.levelno >= logging.WARNING]
    assert len(warnings) == 1
    assert warnings[0].startswith("dropping event subscriber zmq:")
    assert warnings[0].endswith("it took nothing for 0.3 s (not reading)")


def test_fifty_subscribers_each_get_every_block_in_order():
    async def scenario():
        async with running_ledger() as ledger, connected(ledger):
            clients = [EventClient(ledger.component_endpoint) for _ in range(50)]
            try:
                for client in clients:
                    assert (await client.subscribe([BLOCK_COMMIT, GAME_EVENTS])).status == OK
                await play(ledger, 1, 2, 3)
                for client in clients:
                    lists = [await client.next_events() for _ in range(3)]
                    assert [block_num(events) for events in lists] == [1, 2, 3]
                    assert [attribute(events.events[1], "n") for events in lists] == ["1", "2", "3"]
            finally:
                for client in clients:
                    client.close()

    run(scenario)


def test_a_hundred_backtracking_patterns_against_a_hostile_name_neither_stall_the_ledger_nor_lose_a_block(caplog):
    """Issue 23: ``^(a|aa)+$`` against ``"a" * 40 + "!"``, which a backtracking engine takes hours over."""
    hostile = [subscription("kv/game", ("name", "^(a|aa)+$", EventFilter.REGEX_ANY)), BLOCK_COMMIT]

    async def scenario():
        async with running_ledger() as ledger, connected(ledger):
            loop = asyncio.get_running_loop()
            gaps: list[float] = []

            async def tick() -> None:
                last = loop.time()
                while True:
                    await asyncio.sleep(0.005)
                    gaps.append(loop.time() - last)
                    last = loop.time()

            clients = [EventClient(ledger.component_endpoint) for _ in range(100)]
            ticker = asyncio.create_task(tick())
            try:
                for client in clients:
                    assert (await client.subscribe(hostile)).status == OK
                gaps.clear()
                for number, name in enumerate(["a" * 40 + "!", "a" * 41 + "!", "aaaa"], start=1):
                    assert await commit(ledger, game_batch(number, name=name)) == ["COMMITTED"]
                for client in clients:
                    lists = [await client.next_events() for _ in range(3)]
                    assert [block_num(events) for events in lists] == [1, 2, 3]
                    assert [len(events.events) for events in lists] == [1, 1, 2]  # only "aaaa" matches
                assert ledger.events.subscriber_count == 100
                assert max(gaps) < 0.5, f"the loop stalled for {max(gaps):.2f} s"
            finally:
                ticker.cancel()
                for client in clients:
                    client.close()

    with caplog.at_level(logging.WARNING):
        run(scenario)
    assert "too slow" not in caplog.text


def test_many_subscribers_dropped_in_one_block_are_one_warning_and_a_count(caplog, monkeypatch):
    """Issue 23: a block that drops 30 subscribers whose filters are too slow writes one line at once and one
    count (at the end of the interval, or when the ledger stops), not 30."""
    monkeypatch.setattr(matching, "BLOCK_BUDGET_SECONDS", -1.0)  # every search is over budget: every one is dropped
    searching = [subscription("kv/game", ("name", "^g", EventFilter.REGEX_ANY))]

    async def scenario():
        async with running_ledger() as ledger, connected(ledger):
            clients = [EventClient(ledger.component_endpoint) for _ in range(30)]
            try:
                for client in clients:
                    assert (await client.subscribe(searching)).status == OK
                with caplog.at_level(logging.INFO, logger="xo_devnet.events"):
                    await play(ledger, 1)
                    await eventually(lambda: ledger.events.subscriber_count == 0)
                    dropped = [record.getMessage() for record in caplog.records if "dropping" in record.getMessage()]
                    assert len(dropped) == 1
                    assert dropped[0].startswith("dropping event subscriber zmq:")
                    assert "its filter is too slow: its filters took over" in dropped[0]
            finally:
                for client in clients:
                    client.close()

    with caplog.at_level(logging.INFO, logger="xo_devnet.events"):
        run(scenario)
    dropped = [record.getMessage() for record in caplog.records if "dropping" in record.getMessage()]
    assert len(dropped) == 2
    assert dropped[1].endswith("(29 more like it in the last 10 s)")


def test_after_a_restart_catch_up_reads_the_events_back_from_the_stored_receipts(tmp_path):
    async def scenario():
        async with running_ledger(tmp_path) as ledger, connected(ledger):
            await play(ledger, 1, 2)
            ids = [block_id(ledger, number) for number in range(3)]
        async with running_ledger(tmp_path) as ledger, event_client(ledger.component_endpoint) as client:
            assert (await client.subscribe([BLOCK_COMMIT, GAME_EVENTS], [ids[0]])).status == OK
            lists = [await client.next_events() for _ in range(2)]
            assert [attribute(events.events[0], "block_id") for events in lists] == ids[1:]
            assert [attribute(events.events[1], "n") for events in lists] == ["1", "2"]

    run(scenario)
