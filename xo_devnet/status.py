"""What a client can learn about a submitted batch, in the vocabulary of the Sawtooth REST API.

Kept apart from the ledger so storage can persist and return these values without
importing the engine.
"""

from __future__ import annotations

from dataclasses import dataclass

COMMITTED = "COMMITTED"
INVALID = "INVALID"
PENDING = "PENDING"
UNKNOWN = "UNKNOWN"


@dataclass(frozen=True)
class InvalidTransactionInfo:
    """Why one transaction made its batch invalid, as the REST batch_statuses answer reports it."""

    id: str
    message: str
    extended_data: bytes


@dataclass(frozen=True)
class BatchStatus:
    """A batch's fate: "COMMITTED" | "INVALID" | "PENDING" | "UNKNOWN"."""

    batch_id: str
    status: str
    invalid_transactions: tuple[InvalidTransactionInfo, ...] = ()
