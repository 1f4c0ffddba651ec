"""The events of one committed block, built from the block and its receipts as a Sawtooth validator builds them.

A block yields, in this order:

1. ``sawtooth/block-commit`` with the attributes ``block_id``, ``block_num`` (decimal
   text), ``state_root_hash`` and ``previous_block_id``, and no data;
2. every event the processors added, transaction by transaction in block order, as
   the receipts hold them (``xo/create``, ``xo/take``, ...);
3. ``sawtooth/state-delta``: the block's state changes squashed to the last one per
   address, as a serialized ``StateChangeList``, with one ``address`` attribute per
   change. Like the validator we walk the receipts (and each receipt's changes)
   backwards and keep the first change seen per address, so the list runs from the
   newest write to the oldest.

A subscriber gets the events of the block that are in its subscriptions, each once
(Sawtooth's validator repeats a processor event once per matching subscription in the
union of all its clients' subscriptions, so what one client gets depends on the
others; we do not copy that). The state delta's data is the whole block's, as the
validator sends it: a filter on ``address`` decides whether the event is sent, not what
it holds.

Everything is computed on first use and kept, and the encoded answers for a given
subscription (an ``EventList``) or address-prefix list (a websocket message) are
cached per block, so a hundred subscribers with the same interest cost one encoding.
"""

from __future__ import annotations

import base64
import functools
import json
from collections.abc import Sequence
from dataclasses import dataclass, field

from xo_core.protobuf.block_pb2 import Block, BlockHeader
from xo_core.protobuf.events_pb2 import Event, EventList
from xo_core.protobuf.transaction_receipt_pb2 import StateChange, StateChangeList, TransactionReceipt
from xo_devnet.events.filters import Budget, Subscriptions

BLOCK_COMMIT = "sawtooth/block-commit"
STATE_DELTA = "sawtooth/state-delta"
_CACHED_ENCODINGS = 16
"""Distinct subscriptions (or prefix lists) per block whose encoded answer is kept."""


@dataclass(eq=False)
class BlockEvents:
    """One committed block's events; shared by every subscriber that is sent the block."""

    block_id: str
    block_num: int
    previous_block_id: str
    state_root_hash: str
    receipts: Sequence[TransactionReceipt]
    _event_lists: dict[bytes, bytes] = field(default_factory=dict, repr=False)
    _deltas: dict[tuple[str, ...], str] = field(default_factory=dict, repr=False)

    @classmethod
    def of(cls, block: Block, receipts: Sequence[TransactionReceipt]) -> BlockEvents:
        """``receipts`` are those of the block's transactions, in block order."""
        header = BlockHeader.FromString(block.header)
        return cls(
            block_id=block.header_signature,
            block_num=header.block_num,
            previous_block_id=header.previous_block_id,
            state_root_hash=header.state_root_hash,
            receipts=receipts,
        )

    @functools.cached_property
    def block_commit(self) -> Event:
        attributes = (
            ("block_id", self.block_id),
            ("block_num", str(self.block_num)),
            ("state_root_hash", self.state_root_hash),
            ("previous_block_id", self.previous_block_id),
        )
        return Event(
            event_type=BLOCK_COMMIT, attributes=[Event.Attribute(key=key, value=value) for key, value in attributes]
        )

    @functools.cached_property
    def state_changes(self) -> tuple[StateChange, ...]:
        """The block's changes, last one per address, newest first (Sawtooth's order)."""
        seen: set[str] = set()
        squashed = []
        for receipt in reversed(self.receipts):
            for change in reversed(receipt.state_changes):
                if change.address not in seen:
                    seen.add(change.address)
                    squashed.append(change)
        return tuple(squashed)

    @functools.cached_property
    def state_delta(self) -> Event:
        return Event(
            event_type=STATE_DELTA,
            attributes=[Event.Attribute(key="address", value=change.address) for change in self.state_changes],
            data=StateChangeList(state_changes=self.state_changes).SerializeToString(),
        )

    def events_for(self, subscriptions: Subscriptions, budget: Budget) -> list[Event]:
        """The block's events in ``subscriptions``, in Sawtooth's order; FilterTimeout once ``budget`` is spent.

        One budget for the whole block, however many events and attributes it has.
        """
        types = subscriptions.event_types
        found = []
        if BLOCK_COMMIT in types and subscriptions.wants(self.block_commit, budget):
            found.append(self.block_commit)
        found.extend(
            event
            for receipt in self.receipts
            for event in receipt.events
            if event.event_type in types and subscriptions.wants(event, budget)
        )
        if STATE_DELTA in types and subscriptions.wants(self.state_delta, budget):
            found.append(self.state_delta)
        return found

    def cached_event_list(self, subscriptions: Subscriptions) -> bytes | None:
        """The ``EventList`` already encoded for equal subscriptions, if any: no search needed."""
        return self._event_lists.get(subscriptions.key)

    def event_list(self, subscriptions: Subscriptions, budget: Budget) -> bytes:
        """The serialized ``EventList`` a subscriber with ``subscriptions`` is sent for this block."""
        cached = self._event_lists.get(subscriptions.key)
        if cached is None:
            cached = EventList(events=self.events_for(subscriptions, budget)).SerializeToString()
            if len(self._event_lists) < _CACHED_ENCODINGS:
                self._event_lists[subscriptions.key] = cached
        return cached

    def delta_message(self, address_prefixes: tuple[str, ...]) -> str:
        """The REST API websocket's JSON message for this block, changes limited to ``address_prefixes``.

        Field for field what Sawtooth's REST API sends: ``block_num`` is text (it is the
        block-commit event's attribute), a change is ``{"address", "value", "type"}``
        with the value in base64 and the type by name (a DELETE: ``{"address", "type",
        "value": ""}``), and no prefix means every change.
        """
        cached = self._deltas.get(address_prefixes)
        if cached is None:
            changes = self.state_changes
            if address_prefixes:
                changes = tuple(change for change in changes if change.address.startswith(address_prefixes))
            cached = json.dumps(
                {
                    "block_id": self.block_id,
                    "block_num": str(self.block_num),
                    "previous_block_id": self.previous_block_id,
                    "state_changes": [_change_json(change) for change in changes],
                }
            )
            if len(self._deltas) < _CACHED_ENCODINGS:
                self._deltas[address_prefixes] = cached
        return cached


def _change_json(change: StateChange) -> dict[str, str]:
    """A change as protobuf's ``MessageToDict`` writes it for Sawtooth's REST API: the fields that are set,
    by number, then the defaults it was told to include, so a DELETE's empty value comes last."""
    rendered = {"address": change.address}
    if change.value:
        rendered["value"] = base64.b64encode(change.value).decode("ascii")
    rendered["type"] = StateChange.Type.Name(change.type)
    rendered.setdefault("value", "")
    return rendered
