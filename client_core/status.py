"""``status BATCH_ID [--wait [SECONDS]]``: a batch submitted earlier, looked up later, in any client command.

A move submitted without ``--wait``, or whose wait was cut short, is a batch id
and a promise: "it may still commit". This is how the player finds out. The
status is printed (on stdout, for people or as JSON) and also said by the exit
status, so that a script can branch on it: 0 COMMITTED, 1 INVALID, 4 PENDING or
UNKNOWN (not decided, or not known to the REST API).

The id may be shortened as the commands print it (``waiting for batch 67ab4f0c1d2e3f40...``, ``batch
67ab4f...68f9``): a committed batch is found by it among the chain's batches, newest first
(:mod:`client_core.batch_prefix`).
"""

from __future__ import annotations

import argparse
import json
import math
import re

from client_core.batch_prefix import ShortBatchId
from client_core.caller import Caller
from client_core.errors import REJECTED, TIMED_OUT, stopped
from client_core.rest import BatchStatus
from client_core.runner import sigterm_interrupts
from client_core.waiting import Progress, wait_for_batch
from xo_core.text import printable

BATCH_ID = re.compile(r"[0-9a-fA-F]{128}")
EXIT_CODES = {"COMMITTED": 0, "INVALID": REJECTED, "PENDING": TIMED_OUT, "UNKNOWN": TIMED_OUT}


def status(args: argparse.Namespace) -> int:
    """Print the batch's status; with ``--wait``, once it is decided or the wait ends (as for a move)."""
    caller = Caller.of(args)
    shortened = None if BATCH_ID.fullmatch(args.batch_id) else ShortBatchId.parse(args.batch_id)
    with caller.where.rest_client() as client:
        batch_id = args.batch_id.lower() if shortened is None else shortened.find(client)
        if args.wait is None:
            outcome = client.batch_status(batch_id)
        else:
            try:
                with sigterm_interrupts():
                    outcome = wait_for_batch(client, batch_id, args.wait, Progress(batch_id, args.wait))
            except KeyboardInterrupt as interrupt:
                raise stopped(interrupt, f"waiting for batch {batch_id}") from None
    print(as_json(batch_id, outcome) if args.format == "json" else describe(batch_id, outcome, args.wait))
    return EXIT_CODES[outcome.status]


def describe(batch_id: str, outcome: BatchStatus, waited: float | None) -> str:
    """One line for people: the status and what it means."""
    line = f"batch {batch_id}: {outcome.status}"
    if outcome.status == "INVALID":
        reason = "; ".join(reason for reason in outcome.reasons if reason) or "no reason given"
        return f"{line}: {printable(reason, escape_backslashes=False)}"
    if outcome.status == "PENDING":
        after = "" if waited is None or math.isinf(waited) else f" after {waited:g} s"
        return f"{line}{after}: not decided yet"
    if outcome.status == "UNKNOWN":
        return f"{line}: the REST API does not know it (never received, or forgotten)"
    return line


def as_json(batch_id: str, outcome: BatchStatus) -> str:
    """For scripts: ``{"batch_id", "status", "reasons"}`` (reasons as the validator gave them, INVALID only)."""
    return json.dumps({"batch_id": batch_id, "status": outcome.status, "reasons": outcome.reasons}, indent=2)
