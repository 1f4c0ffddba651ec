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
    """Channel records for many matches at once, over one listing at a time.

    Each commit counts a generation (:meth:`stale`), and a match that committed waits for a
    listing that started after its own commit; one listing serves every match that waits on it,
    so a hundred joins at once cost a few listings, not a hundred. A match that only polls, or
    whose commits the last listing shows, is served that listing while another is in flight,
    rather than queueing behind it: another match's commit never holds it up.
    """

    def __init__(self, chain: Lister, every: float = 0.5, clock: Callable[[], float] = time.monotonic) -> None:
        self.chain, self.every, self.clock = chain, every, clock
        self._listing = threading.Lock()
        self._counting = threading.Lock()
        self._records: dict[str, Channel] = {}
        self._read_at = float("-inf")
        self._generation = 0
        self._listed = -1
        """The generation the last listing started at: it shows every commit counted up to it."""

    def channels(self, after: int = 0) -> list[Channel]:
        """Every channel, as last listed: listed again when older than ``every`` or older than the commit counted
        as generation ``after`` (what :meth:`stale` returned to the caller)."""
        shows_mine = self._listed >= after
        if not self._listing.acquire(blocking=not shows_mine):
            return list(self._records.values())  # a listing is in flight; the last one shows all this caller committed
        try:
            if self._listed < after or self.clock() - self._read_at >= self.every:
                generation, started = self._generation, self.clock()
                self._records = {address_of(c.fixed): c for c in self.chain.channels()}
                self._listed, self._read_at = generation, started
            return list(self._records.values())
        finally:
            self._listing.release()

    def channel(self, address: str, after: int = 0) -> Channel | None:
        """The channel at ``address`` as last listed (see :meth:`channels`), or None."""
        self.channels(after)
        return self._records.get(address)

    def stale(self) -> int:
        """Something was committed: its generation, for the reads that must show it."""
        with self._counting:
            self._generation += 1
            return self._generation


class MatchChain:
    """One match's chain: records from the shared listing, submissions on the match's own connection."""

    def __init__(self, shared: SharedChain, own: Submitter, after: int = 0) -> None:
        self.shared, self.own, self.after = shared, own, after

    def channel(self, address: str) -> Channel | None:
        """The channel at ``address``, from the shared listing (one that shows this match's last commit)."""
        return self.shared.channel(address, self.after)

    def submit(self, transaction: Transaction, what: str) -> None:
        """Submit on this match's connection; this match's next reads show the commit."""
        self.own.submit(transaction, what)
        self.after = self.shared.stale()
