"""What a processor has done, kept as plain numbers on the hot path and read when metrics are scraped.

A transaction costs the processor about 0.2 ms of CPU; prometheus-client's own
counters and histograms take a lock per update, several microseconds a transaction.
Here an update is an integer addition on the handler thread (the only writer of the
transaction counts), and :mod:`tp_runtime.metrics` turns the numbers into metric
families only when Prometheus asks. A scrape may see a transaction counted and its
time not yet added; the next one sees both.
"""

from bisect import bisect_left

from xo_core.protobuf.processor_pb2 import TpProcessResponse

#: Upper bounds (seconds) of the processing-time histogram: a transaction takes from ~0.1 ms to a validator's timeout.
DURATION_BOUNDS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)

RESULTS = {
    TpProcessResponse.OK: "ok",
    TpProcessResponse.INVALID_TRANSACTION: "invalid",
    TpProcessResponse.INTERNAL_ERROR: "internal_error",
}
"""A response status -> the ``result`` label value."""

UNKNOWN_VERSION = "unknown"
"""The ``family_version`` of a request this processor could not read or has no handler for."""


class DurationTally:
    """A histogram's buckets as plain counts: ``counts[i]`` holds observations up to ``bounds[i]`` (last: above all)."""

    __slots__ = ("bounds", "counts", "total")

    def __init__(self, bounds: tuple[float, ...] = DURATION_BOUNDS) -> None:
        self.bounds = bounds
        self.counts = [0] * (len(bounds) + 1)
        self.total = 0.0

    def observe(self, seconds: float) -> None:
        """Count one observation in the first bucket whose bound is at least ``seconds`` (Prometheus' ``le``)."""
        self.counts[bisect_left(self.bounds, seconds)] += 1
        self.total += seconds


class ProcessorTallies:
    """Counts of one processor's transactions, validator calls and sessions.

    ``results`` maps (family version, response status) to transactions answered;
    ``calls`` maps a request's message type (``TP_STATE_GET_REQUEST``...) to requests sent.
    """

    __slots__ = ("calls", "durations", "reconnects", "registered", "registrations", "results")

    def __init__(self) -> None:
        self.results: dict[tuple[str, int], int] = {}
        self.durations = DurationTally()
        self.calls: dict[int, int] = {}
        self.registrations = 0
        self.reconnects = 0
        self.registered = False

    def transaction(self, family_version: str, status: int, seconds: float) -> None:
        """One transaction answered, with its status and how long it took from request to response."""
        key = (family_version, status)
        self.results[key] = self.results.get(key, 0) + 1
        self.durations.observe(seconds)

    def call(self, message_type: int) -> None:
        """One request sent to the validator on a transaction's behalf (state, event, receipt data)."""
        self.calls[message_type] = self.calls.get(message_type, 0) + 1
