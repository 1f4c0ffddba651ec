"""A match's view of the chain through the ledger's events: records from a followed book, submissions on a connection.

A match reads its channel's record on every pass; a thousand matches reading the REST API
would be thousands of requests a second. Here the records come from a
:class:`chips_client.channel_feed.ChannelBook` (one reading followed by the ledger's
events, shared by every match of a process), and only a submission goes to the REST API.
After its own commit a match must not read an older record than the one it committed:
it waits (briefly) for the book to reach the chain's head, and reads the REST API itself
until it does. A house's matches submit through a few connections taken in turn
(:class:`ChainPool`) rather than one each.
"""

from __future__ import annotations

import queue
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Final, Protocol

from chips_tp.state import Channel
from client_core.errors import Rejected
from xo_core.protobuf.transaction_pb2 import Transaction

#: How long a match waits, after its own commit, for the followed records to show it before reading the REST API.
CATCH_UP_SECONDS: Final = 2.0


class Book(Protocol):
    """What is read: :class:`chips_client.channel_feed.ChannelBook` or a test's."""

    @property
    def block_num(self) -> int:
        """The block the records are as of."""

    def channel(self, address: str) -> Channel | None:
        """The channel at ``address`` as of :attr:`block_num`."""

    def reaches(self, block_num: int, timeout: float) -> bool:
        """Whether the records reach block ``block_num`` within ``timeout`` seconds."""


class Own(Protocol):
    """What a match submits through and reads itself: :class:`chips_client.chain.RestChain` or a test's fake."""

    def submit(self, transaction: Transaction, what: str) -> None:
        """Submit ``transaction`` and return once it committed."""

    def channel(self, address: str) -> Channel | None:
        """The channel at ``address`` as the REST API has it now."""

    def head(self) -> int:
        """The newest block's number."""


class MatchChain:
    """One match's chain: records from the shared book, submissions (and, until the book shows them, reads) its own."""

    def __init__(self, book: Book, own: Own) -> None:
        self.book, self.own = book, own
        self._direct_until: int | None = None

    def channel(self, address: str) -> Channel | None:
        """The channel at ``address``: the book's, once it shows this match's last commit; the REST API's before."""
        if self._direct_until is not None:
            if self.book.block_num < self._direct_until:
                return self.own.channel(address)
            self._direct_until = None
        return self.book.channel(address)

    def submit(self, transaction: Transaction, what: str) -> None:
        """Submit on this match's connection; its next reads show the chain as of that commit or later (a refusal too:
        the chain may have moved on, and the match reads why)."""
        try:
            self.own.submit(transaction, what)
        except Rejected:
            self._catch_up()
            raise
        self._catch_up()

    def _catch_up(self) -> None:
        head = self.own.head()
        if not self.book.reaches(head, CATCH_UP_SECONDS):
            self._direct_until = head


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

    def channel(self, address: str) -> Channel | None:
        with self._lent() as chain:
            return chain.channel(address)

    def head(self) -> int:
        with self._lent() as chain:
            return chain.head()
