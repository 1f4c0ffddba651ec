"""A match's view of the chain through the ledger's events: records from a followed book, submissions on a connection.

A match reads its channel's record on every pass; a thousand matches reading the REST API
would be thousands of requests a second. Here the records come from a
:class:`chips_client.channel_feed.ChannelBook` (one reading followed by the ledger's
events, shared by every match of a process), and only a submission goes to the REST API.
After its own commit a match must not read an older record than the one it committed: its
next read asks the REST API for its channel, which names the block it was read at, and the
match reads the REST API until the book has taken that block in. A house's matches submit
through a few connections taken in turn (:class:`ChainPool`) rather than one each.
"""

from __future__ import annotations

import queue
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Protocol

from chips_tp.state import Channel
from xo_core.protobuf.transaction_pb2 import Transaction


class Book(Protocol):
    """What is read: :class:`chips_client.channel_feed.ChannelBook` or a test's."""

    @property
    def readings(self) -> int:
        """How many times the records were read afresh."""

    def has_seen(self, block_id: str) -> bool:
        """Whether the records took in block ``block_id``."""

    def channel(self, address: str) -> Channel | None:
        """The channel at ``address`` as of the newest block the records took in."""


class Own(Protocol):
    """What a match submits through and reads itself: :class:`chips_client.chain.RestChain` or a test's fake."""

    def submit(self, transaction: Transaction, what: str) -> None:
        """Submit ``transaction`` and return once it committed."""

    def channel_at_head(self, address: str) -> tuple[Channel | None, str | None]:
        """The channel at ``address`` as the REST API has it now, and the id of the block it was read at."""


class MatchChain:
    """One match's chain: records from the shared book, submissions (and, until the book shows them, reads) its own."""

    def __init__(self, book: Book, own: Own) -> None:
        self.book, self.own = book, own
        self._committed = False
        self._ahead: tuple[str, int] | None = None
        """The block the REST API last read this match's channel at, while the book has not taken it in, and the
        book's readings then (a fresh reading since shows it too)."""

    def channel(self, address: str) -> Channel | None:
        """The channel at ``address``: the book's, once it shows the block the REST API read it at after this match's
        last commit; the REST API's before."""
        if self._committed or (self._ahead is not None and self._behind(*self._ahead)):
            record, head = self.own.channel_at_head(address)  # a REST API out of reach: asked again next time
            self._committed = False
            self._ahead = None if head is None or self.book.has_seen(head) else (head, self.book.readings)
            return record
        self._ahead = None
        return self.book.channel(address)

    def _behind(self, head: str, readings: int) -> bool:
        return not self.book.has_seen(head) and self.book.readings == readings

    def submit(self, transaction: Transaction, what: str) -> None:
        """Submit on this match's connection; its next reads show the chain as of that commit or later (a refusal too:
        the chain may have moved on, and the match reads why)."""
        try:
            self.own.submit(transaction, what)
        finally:
            self._committed = True


class ChainPool:
    """A few chains of one key, lent to one caller at a time: what a house's matches submit through.

    Each submission holds a connection until its commit, so a pool of N chains lets that many commits
    be awaited at once; a thousand matches share them instead of holding a thousand connections.
    """

    def __init__(self, chains: Sequence[Own]) -> None:
        self._free: queue.Queue[Own] = queue.Queue()
        for chain in chains:
            self._free.put(chain)

    @contextmanager
    def _lent(self) -> Iterator[Own]:
        chain = self._free.get()
        try:
            yield chain
        finally:
            self._free.put(chain)

    def submit(self, transaction: Transaction, what: str) -> None:
        with self._lent() as chain:
            chain.submit(transaction, what)

    def channel_at_head(self, address: str) -> tuple[Channel | None, str | None]:
        with self._lent() as chain:
            return chain.channel_at_head(address)
