"""What POST /batches took in and what it refused: counted for /metrics, by the REST error code answered."""

from __future__ import annotations

from prometheus_client import Counter

SUBMISSION_REFUSALS = (30, 31, 34, 35, 42)
"""The error codes POST /batches answers with; each is a ``code`` label from the start, at 0."""


class Submissions:
    """The counters of one REST API's POST /batches (in no registry: /metrics collects them)."""

    def __init__(self) -> None:
        self.received = Counter(
            "xo_devnet_batches_received", "Batches taken in by POST /batches (answered 202).", registry=None
        )
        self.refused = Counter(
            "xo_devnet_batch_submissions_refused",
            "POST /batches requests refused, by the REST API error code answered.",
            labelnames=["code"],
            registry=None,
        )
        for code in SUBMISSION_REFUSALS:
            self.refused.labels(code=str(code))

    def refusal(self, code: int) -> None:
        """One POST /batches refused with ``code``: always an ``ApiError``'s, never a value the client sent."""
        self.refused.labels(code=str(code)).inc()
