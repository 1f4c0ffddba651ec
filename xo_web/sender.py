"""What every op the page asks for shares, whatever the family: the player's key, and a batch sent and waited for.

The page names a key (``player``), never holds one: the private key is read from the
key directory here, with the same permission check as ``xo`` and ``rps``
(:func:`client_core.keys.load_signer`). A transaction is sent as its command sends
it with ``--wait``: one batch, POSTed (:mod:`client_core.submission`), its outcome
waited for (:func:`client_core.waiting.wait_for_batch`). Each family's mover
(:mod:`xo_web.moves`, :mod:`xo_web.rps_moves`) adds its own checks and words.

Blocking (``http.client``): the server runs the movers in worker threads.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, Final

from client_core.errors import CommandError, Rejected, TimedOut
from client_core.keys import KeyNames, load_signer, private_key_names
from client_core.rest import RestClient
from client_core.submission import require_committed, submit
from client_core.waiting import wait_for_batch
from xo_core.protobuf.transaction_pb2 import Transaction
from xo_core.signing import Signer
from xo_core.text import quoted
from xo_web.errors import REFUSED, REJECTED, UNAVAILABLE, ApiError, bad_request

MOVE_WAIT_SECONDS: Final = 30.0
"""How long a move is waited for before the page is told it is still pending."""

Json = dict[str, Any]


class Sender:
    """Signs with keys from ``key_dir`` and sends to the REST API at ``rest_url``, waiting ``wait_seconds`` at most."""

    def __init__(
        self,
        rest_url: str,
        auth: tuple[str, str] | None,
        key_dir: Path,
        names: Callable[[], KeyNames],
        *,
        trace: Callable[[str], None] | None = None,
        wait_seconds: float = MOVE_WAIT_SECONDS,
    ) -> None:
        self.rest_url = rest_url
        self.auth = auth
        self.key_dir = key_dir
        self.names = names
        self.trace = trace
        self.wait_seconds = wait_seconds

    def signer(self, player: str) -> Signer:
        """``player``'s key: a 400 if the key directory has no private key by that name (the page offers only those).

        A key file that cannot be used raises :class:`client_core.errors.InvalidInput`.
        """
        if player not in private_key_names(self.key_dir):
            raise bad_request(f"there is no private key named {quoted(player, None)} in {self.key_dir}")
        return load_signer(self.key_dir, player, "xo web")

    def client(self) -> RestClient:
        return RestClient(self.rest_url, auth=self.auth, trace=self.trace)

    def send(
        self, client: RestClient, signer: Signer, transaction: Transaction, what: str, title: str
    ) -> tuple[str, tuple[int, Json] | None]:
        """Submit ``transaction`` in a batch of its own and wait: ``(batch id, None)`` once committed.

        ``(batch id, the 202 answer)`` while it is still pending; a 409 titled ``title``
        if the validator found it invalid; a 502 if the REST API failed after the POST,
        saying that the batch may still commit.
        """
        batch_id = submit(client, signer, [transaction])
        try:
            outcome = wait_for_batch(client, batch_id, self.wait_seconds)
        except CommandError as error:
            message = f"{error.message}; batch {batch_id} was submitted and may still commit"
            raise ApiError(502, UNAVAILABLE, "REST API Unavailable", message) from None
        try:
            require_committed(outcome, what, batch_id, self.wait_seconds)
        except Rejected as rejection:
            raise ApiError(409, REJECTED, title, rejection.message) from None
        except TimedOut as waited:
            return batch_id, (202, {"status": outcome.status, "batch_id": batch_id, "message": waited.message})
        return batch_id, None


def refused(message: str) -> ApiError:
    """A move that cannot succeed as the game stands: nothing was signed or sent."""
    return ApiError(409, REFUSED, "Move Refused", message)


def unavailable(error: CommandError) -> ApiError:
    return ApiError(502, UNAVAILABLE, "REST API Unavailable", error.message)
