"""The batches this API accepted that may still be pending, so that a clean stop can wait for them.

A 202 promises the client that its batches will be decided. Before xo-devnet stops
its processor and its ledger, it waits (for a bounded time) until every batch it
accepted has left the PENDING state. Decided ids are pruned from time to time, so
the set never holds much more than the ledger's own pending queue.
"""

from __future__ import annotations

from collections.abc import Iterable

from xo_devnet.ledger import Ledger

PRUNE_ABOVE = 10_000
"""Prune decided ids once the set grows past this (or past twice what was pending at the last prune)."""


class AcceptedBatches:
    def __init__(self, ledger: Ledger) -> None:
        self._ledger = ledger
        self._ids: set[str] = set()
        self._prune_above = PRUNE_ABOVE

    def add(self, batch_ids: Iterable[str]) -> None:
        self._ids.update(batch_ids)
        if len(self._ids) > self._prune_above:
            self._prune()

    def pending(self) -> list[str]:
        """The accepted batches that are still PENDING now."""
        self._prune()
        return sorted(self._ids)

    def _prune(self) -> None:
        statuses = self._ledger.batch_statuses(list(self._ids))
        self._ids = {status.batch_id for status in statuses if status.status == "PENDING"}
        self._prune_above = max(PRUNE_ABOVE, 2 * len(self._ids))
