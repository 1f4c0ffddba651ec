"""Many matches' view of the chain through one reader: what a house that plays many channels at once reads.

Each match asks for its channel's record about twice a second; a hundred matches asking
the REST API each for their own would be two hundred requests a second. Here one listing
of the channel namespace answers them all, read again only once it is older than
``every`` seconds (or after a submission, so the submitter sees what it committed). Each
match submits on a connection of its own (:class:`MatchChain`): a REST client serves one
thread, and a submission waits for its commit.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Protocol

from chips_client.channels import address_of
from chips_tp.state import Channel
from xo_core.protobuf.transaction_pb2 import Transaction


class Lister(Protocol):
    """What is read: :class:`chips_client.chain.RestChain` or a test's fake."""

    def channels(self) -> list[Channel]:
        """Every channel on the chain."""


class Submitter(Protocol):
    """What a match submits through: its own :class:`chips_client.chain.RestChain` or a test's fake."""

    def submit(self, transaction: Transaction, what: str) -> None:
        """Submit ``transaction`` and return once it committed."""


class SharedChain:
    """Channel records for many matches at once, over one listing at a time."""

    def __init__(self, chain: Lister, every: float = 0.5, clock: Callable[[], float] = time.monotonic) -> None:
        self.chain, self.every, self.clock = chain, every, clock
        self._lock = threading.Lock()
        self._records: dict[str, Channel] = {}
        self._read_at = float("-inf")

    def channels(self) -> list[Channel]:
        """Every channel, as last listed (listed again when older than ``every``)."""
        with self._lock:
            if self.clock() - self._read_at >= self.every:
                self._records = {address_of(c.fixed): c for c in self.chain.channels()}
                self._read_at = self.clock()
            return list(self._records.values())

    def channel(self, address: str) -> Channel | None:
        """The channel at ``address`` as last listed, or None."""
        self.channels()
        return self._records.get(address)

    def stale(self) -> None:
        """Something was committed: the next read lists afresh."""
        with self._lock:
            self._read_at = float("-inf")


class MatchChain:
    """One match's chain: records from the shared listing, submissions on the match's own connection."""

    def __init__(self, shared: SharedChain, own: Submitter) -> None:
        self.shared, self.own = shared, own

    def channel(self, address: str) -> Channel | None:
        """The channel at ``address``, from the shared listing."""
        return self.shared.channel(address)

    def submit(self, transaction: Transaction, what: str) -> None:
        """Submit on this match's connection; then the shared listing is read afresh, so it sees the commit."""
        self.own.submit(transaction, what)
        self.shared.stale()
