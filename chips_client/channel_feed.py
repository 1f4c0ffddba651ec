"""Channel records kept current by the ledger's events: how a house, its accepters and every match learn of the chain.

Reading the chain twice a second per match is two thousand REST requests a second for a
thousand matches, and it makes a player wait up to half a second for every join, challenge
or close. Here one reading of the channels (``GET /state`` as of one block) is followed by
the ledger's events (:class:`client_core.follow_thread.FollowerThread`: the websocket
subscription both xo-devnet and Sawtooth serve, with catch-up through the REST API), so
every record is as new as the last block delivered, and whoever waits on a channel is
woken the moment a block changes it.

:class:`ChannelBook` holds the records and wakes the waiters (no I/O: tests feed it
blocks); :class:`ChannelFeed` fills it from a REST API and its events. A follower that
ends on an error it does not retry (the chain started afresh) is replaced by a fresh
reading and a new follower.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable
from typing import Final

from sawtooth_sdk.processor.exceptions import InternalError

from chips_client.channels import address_of, channels_in
from chips_tp.family import CHANNEL_TYPE, NAMESPACE
from chips_tp.state import Channel, decode_channel
from client_core.blocks import BlockChanges, BlockRef
from client_core.errors import Unavailable
from client_core.follow_thread import FollowerThread
from client_core.rest import RestClient

#: Every channel record of the chips family: what a house follows.
CHANNELS: Final = NAMESPACE + CHANNEL_TYPE
#: After the follower ended on an error it does not retry, a fresh reading is tried after this long (seconds).
RESTART_SECONDS: Final = 1.0
#: The blocks a book remembers having applied, newest last (about a minute of xo-devnet's blocks).
SEEN_BLOCKS: Final = 1024

Listener = Callable[[list[Channel]], None]
"""Called on the follower's thread with the channels one block changed (new or updated; a deleted one is absent)."""


class ChannelBook:
    """The channel records as of one block, and who waits on them."""

    def __init__(self) -> None:
        self._changed = threading.Condition()
        self._records: dict[str, Channel] = {}
        self._block_num = -1
        self._seen: OrderedDict[str, None] = OrderedDict()
        self._readings = 0
        self._listeners: list[Listener] = []

    @property
    def block_num(self) -> int:
        """The block the records are as of (-1 before the first reading)."""
        return self._block_num

    @property
    def readings(self) -> int:
        """How many times the records were read afresh (:meth:`reset`): a reading shows every block before it."""
        return self._readings

    def has_seen(self, block_id: str) -> bool:
        """Whether block ``block_id`` is one of the last SEEN_BLOCKS blocks the records took in."""
        return block_id in self._seen

    def channel(self, address: str) -> Channel | None:
        """The channel at ``address``, or None when there is none (as of :attr:`block_num`)."""
        return self._records.get(address)

    def channels(self) -> list[Channel]:
        """Every channel followed."""
        with self._changed:
            return list(self._records.values())

    def listen(self, listener: Listener) -> None:
        """Have ``listener`` called with the channels each block changes, from now on."""
        with self._changed:
            self._listeners.append(listener)

    def unlisten(self, listener: Listener) -> None:
        with self._changed:
            if listener in self._listeners:
                self._listeners.remove(listener)

    def reset(self, channels: Iterable[Channel], at: BlockRef) -> None:
        """Start afresh from a reading of every channel as of block ``at``; listeners hear of all of them."""
        fresh = list(channels)
        with self._changed:
            self._records = {address_of(channel.fixed): channel for channel in fresh}
            self._block_num = at.block_num
            self._seen.clear()
            self._saw(at.block_id)
            self._readings += 1
            listeners = list(self._listeners)
            self._changed.notify_all()
        for listener in listeners:
            listener(fresh)

    def apply(self, block: BlockChanges) -> None:
        """The changes of the next block: records set or deleted, waiters woken, listeners told."""
        changed: list[Channel] = []
        with self._changed:
            for change in block.changes:
                if not change.address.startswith(CHANNELS):
                    continue
                record = None if change.type == "DELETE" else _decoded(change.address, change.value)
                if record is None:
                    self._records.pop(change.address, None)
                else:
                    self._records[change.address] = record
                    changed.append(record)
            self._block_num = block.block_num
            self._saw(block.block_id)
            listeners = list(self._listeners) if changed else []
            self._changed.notify_all()
        for listener in listeners:
            listener(changed)

    def _saw(self, block_id: str) -> None:
        self._seen[block_id] = None
        if len(self._seen) > SEEN_BLOCKS:
            self._seen.popitem(last=False)

    def wake(self) -> None:
        """Have the waiters look again now (something else they wait on happened)."""
        with self._changed:
            self._changed.notify_all()

    def wait_for(self, ready: Callable[[], bool], timeout: float) -> bool:
        """Wait up to ``timeout`` seconds until ``ready()`` holds (looked at after every block); whether it does."""
        ends = time.monotonic() + timeout
        with self._changed:
            while not ready():
                left = ends - time.monotonic()
                if left <= 0:
                    return False
                self._changed.wait(left)
            return True

    def reaches(self, block_num: int, timeout: float) -> bool:
        """Whether the records are as of block ``block_num`` or later within ``timeout`` seconds."""
        return self.wait_for(lambda: self._block_num >= block_num, timeout)


class ChannelFeed(ChannelBook):
    """A :class:`ChannelBook` filled from the REST API ``client`` reads and kept current by its events.

    ``prefix`` narrows what is followed: every channel (:data:`CHANNELS`, a house) or one channel's
    address (a player's match). ``say`` hears the follower's notices (the websocket refused, the
    connection lost and back) and a restart.
    """

    def __init__(self, client: RestClient, prefix: str = CHANNELS, say: Callable[[str], None] | None = None) -> None:
        super().__init__()
        self.client, self.prefix = client, prefix
        self._say = say if say is not None else _ignore
        self._lock = threading.Lock()
        self._follower: FollowerThread | None = None
        self._stopped = False

    def start(self) -> ChannelFeed:
        """Read every channel under the prefix as of the newest block, then follow from that block; Unavailable when
        the REST API cannot be read."""
        head = self.client.head_block().ref
        self.reset(channels_in(self.client.list_state(self.prefix, head=head.block_id)), head)
        follower = FollowerThread(self.client.base_url, [self.prefix], after=head, deliver=self._deliver,
                                  auth=self.client.auth, on_notice=self._say)  # fmt: skip
        with self._lock:
            if self._stopped:
                return self
            self._follower = follower.start()
        return self

    def stop(self) -> None:
        """Stop following (the records stay as they were)."""
        with self._lock:
            self._stopped = True
            follower, self._follower = self._follower, None
        if follower is not None:
            follower.stop()

    def __enter__(self) -> ChannelFeed:
        return self.start()

    def __exit__(self, *_exc: object) -> None:
        self.stop()

    def _deliver(self, item: BlockChanges | BaseException) -> None:
        if isinstance(item, BlockChanges):
            self.apply(item)
            return
        message = item.message if isinstance(item, Unavailable) else repr(item)
        self._say(f"following the chain stopped ({message}): reading it afresh")
        threading.Thread(target=self._restart, name="chips-feed-restart", daemon=True).start()

    def _restart(self) -> None:
        """A fresh reading and a new follower, tried every RESTART_SECONDS until it takes or the feed is stopped."""
        while True:
            time.sleep(RESTART_SECONDS)
            with self._lock:
                if self._stopped:
                    return
                self._follower = None
            try:
                self.start()
                return
            except Unavailable:
                continue


def _decoded(address: str, data: bytes) -> Channel | None:
    """The record in a change, or None when it is none the chips processor writes (it is dropped, not trusted)."""
    try:
        return decode_channel(address, data)
    except InternalError:  # a value no chips-tp wrote: the record is left out rather than the follower stopped
        return None


def _ignore(_line: str) -> None:
    pass
