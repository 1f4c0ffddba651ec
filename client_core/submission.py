"""Submitting a signed move and following it to its outcome, the same for every family's command.

Once the POST has gone out, every way a command can end names the batch: it may
commit whatever happens to the command, and its id is how the player finds out.
"""

from __future__ import annotations

from collections.abc import Sequence

from client_core.errors import CommandError, Rejected, TimedOut, stopped
from client_core.rest import BatchStatus, RestClient
from client_core.waiting import Progress, wait_for_batch
from xo_core.batches import make_batch, make_batch_list
from xo_core.protobuf.transaction_pb2 import Transaction
from xo_core.signing import Signer


def submit(client: RestClient, signer: Signer, transactions: Sequence[Transaction]) -> str:
    """Sign ``transactions`` as one batch, POST it, and return the batch id."""
    batch = make_batch(signer, transactions)
    try:
        client.submit_batches(make_batch_list([batch]))
    except KeyboardInterrupt as interrupt:
        raise stopped(interrupt, f"submitting batch {batch.header_signature}: it may still commit") from None
    return batch.header_signature


def await_outcome(client: RestClient, batch_id: str, seconds: float) -> BatchStatus:
    """Wait for the batch; if waiting fails, the error still names the batch, which may commit regardless."""
    try:
        return wait_for_batch(client, batch_id, seconds, Progress(batch_id, seconds))
    except KeyboardInterrupt as interrupt:
        raise stopped(interrupt, f"waiting: batch {batch_id} was submitted and may still commit") from None
    except CommandError as error:
        raise type(error)(f"{error.message}; batch {batch_id} was submitted and may still commit") from error


STOPPED_WAITING = "waiting: batch {batch} was submitted and may still commit"


def submit_and_wait(
    client: RestClient,
    signer: Signer,
    transactions: Sequence[Transaction],
    seconds: float,
    *,
    interrupted: str = STOPPED_WAITING,
) -> tuple[str, BatchStatus]:
    """Submit ``transactions`` as one batch and wait for its outcome, without a progress line; the id and the outcome.

    For commands that show their own progress (``xo play``, ``xo bot``, the page's
    computer player) and decide themselves what a refusal means. Ctrl-C or SIGTERM
    while waiting says ``interrupted``, with the batch id in place of ``{batch}``.
    """
    batch_id = submit(client, signer, transactions)
    try:
        return batch_id, wait_for_batch(client, batch_id, seconds)
    except KeyboardInterrupt as interrupt:
        raise stopped(interrupt, interrupted.replace("{batch}", batch_id)) from None


def require_committed(outcome: BatchStatus, what: str, batch_id: str, seconds: float) -> None:
    """Return if the batch committed; otherwise raise the error that says how ``what`` ended."""
    if outcome.status == "COMMITTED":
        return
    if outcome.status == "INVALID":
        reason = "; ".join(reason for reason in outcome.reasons if reason) or "no reason given"
        raise Rejected(f"the validator rejected {what}: {reason}")
    if outcome.status == "UNKNOWN":
        raise TimedOut(
            f"the REST API does not know batch {batch_id} ({what}): the validator never received it or has "
            "forgotten it, so it may never commit"
        )
    raise TimedOut(f"{what} is still {outcome.status} after {seconds:g} s (batch {batch_id})")
