"""A block's events: what Sawtooth's validator extracts, in its order, and the REST API's websocket message."""

import base64
import json

from google.protobuf.json_format import MessageToDict

from tests.xo_devnet.harness import SIGNER, address, kv_batch
from xo_core.protobuf.events_pb2 import Event, EventFilter, EventList, EventSubscription
from xo_core.protobuf.transaction_receipt_pb2 import StateChange, StateChangeList, TransactionReceipt
from xo_devnet.chain import build_block
from xo_devnet.events.blocks import BlockEvents
from xo_devnet.events.filters import compile_subscriptions, unlimited
from xo_devnet.merkle import EMPTY_ROOT

A, B, C = address("a"), address("b"), address("c")


def xo_event(action: str, name: str) -> Event:
    return Event(
        event_type=f"xo/{action}",
        attributes=[Event.Attribute(key="name", value=name), Event.Attribute(key="game-state", value="P2-NEXT")],
        data=b"state",
    )


def set_(where: str, value: bytes) -> StateChange:
    return StateChange(address=where, value=value, type=StateChange.SET)


RECEIPTS = [
    TransactionReceipt(
        transaction_id="t1", state_changes=[set_(A, b"a1"), set_(B, b"b1")], events=[xo_event("create", "g1")]
    ),
    TransactionReceipt(
        transaction_id="t2",
        state_changes=[set_(A, b"a2"), StateChange(address=C, type=StateChange.DELETE)],
        events=[xo_event("take", "g1"), xo_event("take", "g2")],
    ),
]


def sample_block() -> BlockEvents:
    batch = kv_batch(set={A: "x"})
    block = build_block(SIGNER, block_num=7, previous_block_id="p" * 128, batches=[batch], state_root=EMPTY_ROOT)
    return BlockEvents.of(block, RECEIPTS)


def subscriptions(*items: EventSubscription):
    return compile_subscriptions(items)


def test_the_block_commit_event_carries_the_four_attributes_in_sawtooths_order():
    events = sample_block()
    assert [(item.key, item.value) for item in events.block_commit.attributes] == [
        ("block_id", events.block_id),
        ("block_num", "7"),
        ("state_root_hash", EMPTY_ROOT),
        ("previous_block_id", "p" * 128),
    ]
    assert events.block_commit.event_type == "sawtooth/block-commit"
    assert events.block_commit.data == b""


def test_the_state_delta_keeps_the_last_change_per_address_newest_first_with_an_address_attribute_each():
    delta = sample_block().state_delta
    changes = StateChangeList.FromString(delta.data).state_changes
    assert [(change.address, change.type, change.value) for change in changes] == [
        (C, StateChange.DELETE, b""),
        (A, StateChange.SET, b"a2"),
        (B, StateChange.SET, b"b1"),
    ]
    assert [(item.key, item.value) for item in delta.attributes] == [("address", C), ("address", A), ("address", B)]


def test_events_come_block_commit_first_then_processor_events_in_order_then_the_state_delta():
    chosen = sample_block().events_for(
        subscriptions(
            EventSubscription(event_type="sawtooth/state-delta"),
            EventSubscription(event_type="xo/take"),
            EventSubscription(event_type="xo/create"),
            EventSubscription(event_type="sawtooth/block-commit"),
        ),
        unlimited(),
    )
    assert [item.event_type for item in chosen] == [
        "sawtooth/block-commit",
        "xo/create",
        "xo/take",
        "xo/take",
        "sawtooth/state-delta",
    ]


def test_an_event_in_two_subscriptions_is_sent_once():
    by_name = EventFilter(key="name", match_string="g1", filter_type=EventFilter.SIMPLE_ANY)
    chosen = sample_block().events_for(
        subscriptions(
            EventSubscription(event_type="xo/take"), EventSubscription(event_type="xo/take", filters=[by_name])
        ),
        unlimited(),
    )
    assert [item.attributes[0].value for item in chosen] == ["g1", "g2"]


def test_an_address_filter_decides_whether_the_whole_delta_is_sent():
    mine = EventFilter(key="address", match_string=f"^{A[:10]}", filter_type=EventFilter.REGEX_ANY)
    nobody = EventFilter(key="address", match_string="^ff", filter_type=EventFilter.REGEX_ANY)
    events = sample_block()
    [delta] = events.events_for(
        subscriptions(EventSubscription(event_type="sawtooth/state-delta", filters=[mine])), unlimited()
    )
    assert len(StateChangeList.FromString(delta.data).state_changes) == 3
    assert (
        events.events_for(
            subscriptions(EventSubscription(event_type="sawtooth/state-delta", filters=[nobody])), unlimited()
        )
        == []
    )


def test_a_block_without_transactions_has_an_empty_state_delta():
    genesis = BlockEvents("g" * 128, 0, "0000000000000000", EMPTY_ROOT, [])
    [delta] = genesis.events_for(subscriptions(EventSubscription(event_type="sawtooth/state-delta")), unlimited())
    assert delta.data == b""
    assert list(delta.attributes) == []


def test_the_event_list_is_encoded_once_per_subscription_and_block():
    events = sample_block()
    wanted = subscriptions(EventSubscription(event_type="xo/take"))
    assert events.cached_event_list(wanted) is None
    first = events.event_list(wanted, unlimited())
    assert events.event_list(subscriptions(EventSubscription(event_type="xo/take")), unlimited()) is first
    assert events.cached_event_list(subscriptions(EventSubscription(event_type="xo/take"))) is first
    assert [item.event_type for item in EventList.FromString(first).events] == ["xo/take", "xo/take"]


def test_the_websocket_message_is_what_sawtooths_rest_api_writes_for_the_same_block():
    events = sample_block()
    # Sawtooth's REST API: json.dumps of the block-commit attributes and MessageToDict of each change,
    # default values included and proto field names kept.
    expected = json.dumps(
        {
            "block_id": events.block_id,
            "block_num": "7",
            "previous_block_id": "p" * 128,
            "state_changes": [
                MessageToDict(change, always_print_fields_with_no_presence=True, preserving_proto_field_name=True)
                for change in events.state_changes
                if change.address.startswith((A[:8], C[:8]))
            ],
        }
    )
    assert events.delta_message((A[:8], C[:8])) == expected
    document = json.loads(expected)
    assert document["state_changes"] == [
        {"address": C, "type": "DELETE", "value": ""},
        {"address": A, "value": base64.b64encode(b"a2").decode(), "type": "SET"},
    ]


def test_without_prefixes_the_websocket_message_has_every_change():
    assert len(json.loads(sample_block().delta_message(()))["state_changes"]) == 3
