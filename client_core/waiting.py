"""Waiting for a submitted batch to commit, and showing a person that the command is still waiting.

The REST API can hold a status request open (``wait=N``, whole seconds) and
answer as soon as the batch is decided, so a commit is reported without polling
delay; the last fraction of a second is polled, so a wait never overruns. Requests
are cut into slices so that an unlimited wait never depends on one long HTTP
request, and a person at a terminal sees the elapsed time move. A REST API that
ignores ``wait`` answers at once; short, growing pauses then keep the client from
hammering it. A batch the REST API keeps calling UNKNOWN was dropped or never
arrived, so even an unlimited wait gives up on it after ``UNKNOWN_SECONDS``.
"""

from __future__ import annotations

import math
import sys
import time
from typing import TextIO

from client_core.rest import BatchStatus, RestClient

DECIDED = ("COMMITTED", "INVALID")
UNKNOWN_SECONDS = 60.0
SLICE_SECONDS = 20
LIVE_SLICE_SECONDS = 1
FIRST_PAUSE = 0.05
MAX_PAUSE = 1.0


class Progress:
    """A one-line ``waiting ...`` indicator on a terminal; silent elsewhere unless the wait is unlimited."""

    def __init__(self, batch_id: str, seconds: float, stream: TextIO | None = None) -> None:
        self._stream = stream if stream is not None else sys.stderr
        self.live = self._stream.isatty()
        self._batch = batch_id[:16] + "..."
        self._limit = "" if math.isinf(seconds) else f" of {seconds:g}"
        self._shown = False
        if not self.live and math.isinf(seconds):
            self._stream.write(f"waiting for batch {self._batch} to commit (Ctrl-C stops waiting)\n")
            self._stream.flush()

    def update(self, status: str, elapsed: float) -> None:
        if self.live:
            self._stream.write(f"\rwaiting for batch {self._batch}: {status}, {elapsed:.0f}{self._limit} s  ")
            self._stream.flush()
            self._shown = True

    def finish(self) -> None:
        if self._shown:
            self._stream.write("\r\033[K")
            self._stream.flush()
            self._shown = False


def wait_for_batch(client: RestClient, batch_id: str, seconds: float, progress: Progress | None = None) -> BatchStatus:
    """Return the batch's status once COMMITTED or INVALID, else its last status when waiting stops.

    Waiting stops when ``seconds`` run out, or once the status has been UNKNOWN
    for ``UNKNOWN_SECONDS`` in a row.
    """
    started = time.monotonic()
    deadline = started + seconds
    unknown_since: float | None = None
    slice_seconds = LIVE_SLICE_SECONDS if progress is not None and progress.live else SLICE_SECONDS
    pause = FIRST_PAUSE
    try:
        while True:
            remaining = deadline - time.monotonic()
            wait = int(min(remaining, slice_seconds)) if remaining >= 1 else None
            asked = time.monotonic()
            status = client.batch_status(batch_id, wait=wait)
            now = time.monotonic()
            if status.status != "UNKNOWN":
                unknown_since = None
            elif unknown_since is None:
                unknown_since = now
            forgotten = unknown_since is not None and now - unknown_since >= UNKNOWN_SECONDS
            if status.status in DECIDED or now >= deadline or forgotten:
                return status
            if progress is not None:
                progress.update(status.status, now - started)
            if wait is None or now - asked < wait / 2:
                time.sleep(min(pause, max(deadline - now, 0)))
                pause = min(pause * 2, MAX_PAUSE)
    finally:
        if progress is not None:
            progress.finish()
