"""What the ledger counts as it works: batches decided, blocks built, how long a batch took from POST to COMMITTED.

The metrics are prometheus-client's, in no registry: whoever serves them (the REST
API's ``/metrics``, :mod:`xo_devnet.rest.metrics`) collects them into a registry of its
own, beside what it reads off the ledger at scrape time (queue depth, head, subscribers).
The ledger calls these methods on its loop; each costs a few microseconds per batch
or block, far below what validating and executing a batch costs.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from prometheus_client import Counter, Histogram
from prometheus_client.metrics_core import Metric

BLOCK_SECONDS_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)
COMMIT_SECONDS_BUCKETS = (0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 120.0)
BLOCK_BATCHES_BUCKETS = (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000)


class LedgerMetrics:
    """The ledger's counters and histograms, and when each batch still pending was submitted."""

    def __init__(self) -> None:
        self.batches_committed = Counter(
            "xo_devnet_batches_committed", "Batches committed in a durable block.", registry=None
        )
        self.batches_invalid = Counter(
            "xo_devnet_batches_invalid",
            "Batches decided INVALID (refused by a processor, no processor or dependency in time, failed too often).",
            registry=None,
        )
        self.block_seconds = Histogram(
            "xo_devnet_block_seconds",
            "Time from the start of a block (its BlockInfo) until it is durable and the chain head.",
            buckets=BLOCK_SECONDS_BUCKETS,
            registry=None,
        )
        self.block_batches = Histogram(
            "xo_devnet_block_batches",
            "Batches in each committed block, its BlockInfo batch not counted.",
            buckets=BLOCK_BATCHES_BUCKETS,
            registry=None,
        )
        self.commit_seconds = Histogram(
            "xo_devnet_batch_commit_seconds",
            "Time from a batch's submission (POST /batches) until the block holding it is durable.",
            buckets=COMMIT_SECONDS_BUCKETS,
            registry=None,
        )
        self._submitted_at: dict[str, float] = {}
        self._block_started_at: dict[int, float] = {}

    def submitted(self, batch_ids: Iterable[str], now: float) -> None:
        """Batches taken in at ``now`` (loop time); bounded by the pending queue, since each leaves when decided."""
        for batch_id in batch_ids:
            self._submitted_at[batch_id] = now

    def withdrawn(self, batch_ids: Iterable[str]) -> None:
        """Batches the ledger gave back (they could not be recorded): they will never be decided here."""
        for batch_id in batch_ids:
            self._submitted_at.pop(batch_id, None)

    def block_started(self, block_num: int, now: float) -> None:
        """Block ``block_num`` began at ``now`` (loop time); :meth:`decided` observes how long it took."""
        self._block_started_at[block_num] = now

    def decided(self, committed: list[str], invalid: list[str], block_num: int | None, now: float) -> None:
        """A commit record is durable: ``committed`` in block ``block_num`` (None: no block, only INVALID ones)."""
        for batch_id in committed:
            submitted = self._submitted_at.pop(batch_id, None)
            if submitted is not None:  # re-queued after a restart: its POST was another process's
                self.commit_seconds.observe(now - submitted)
        for batch_id in invalid:
            self._submitted_at.pop(batch_id, None)
        self.batches_committed.inc(len(committed))
        self.batches_invalid.inc(len(invalid))
        if block_num is None:
            return
        started = self._block_started_at.get(block_num)
        if started is not None:
            self.block_seconds.observe(now - started)
        self.block_batches.observe(len(committed))
        for number in [number for number in self._block_started_at if number <= block_num]:
            del self._block_started_at[number]

    def collect(self) -> Iterator[Metric]:
        """The counters' and histograms' samples, for the REST API's collector to yield at a scrape."""
        for metric in (
            self.batches_committed,
            self.batches_invalid,
            self.block_seconds,
            self.block_batches,
            self.commit_seconds,
        ):
            yield from metric.collect()
