"""The chips records on a REST API, and transactions submitted to it and waited for: the match's chain.

Thin on purpose: reading is :mod:`chips_tp.state`'s decoding of what the REST API
returns, writing is :mod:`client_core.submission`'s; a refusal arrives as the
validator's reason (``Rejected``), an unreachable REST API as ``Unavailable``.
"""

from __future__ import annotations

import time
from typing import Final

from chips_client.channels import (
    OnChain,
    account_balance,
    account_of,
    challenge_floor,
    channel_transactions,
    channels_in,
    issuers_of,
)  # fmt: skip
from chips_tp.family import CHANNEL_TYPE, ISSUERS_ADDRESS, MIN_CHALLENGE_ADDRESS, NAMESPACE, account_address
from chips_tp.state import Account, Channel, decode_channel
from client_core.errors import Rejected, Unavailable, stopped
from client_core.rest import RestClient
from client_core.submission import STOPPED_WAITING, require_committed
from client_core.waiting import wait_for_batch
from xo_core.batches import make_batch, make_batch_list
from xo_core.protobuf.transaction_pb2 import Transaction
from xo_core.signing import Signer

#: A POST lost to the network is tried this many times in all, the same signed batch (see :meth:`RestChain.submit_all`).
POST_ATTEMPTS: Final = 4
#: Before looking whether a lost POST arrived, a pause growing by this much each time (seconds).
POST_RETRY_SECONDS: Final = 0.5


class RestChain:
    """A REST API as the match sees the chain; every transaction is signed into its own batch by ``signer``."""

    def __init__(self, client: RestClient, signer: Signer | None, wait_seconds: float = 120.0) -> None:
        self.client, self.signer, self.wait_seconds = client, signer, wait_seconds

    def channel(self, address: str) -> Channel | None:
        """The channel at ``address``, or None when there is none."""
        return self.channel_at_head(address)[0]

    def channel_at_head(self, address: str) -> tuple[Channel | None, str | None]:
        """The channel at ``address`` (None when there is none) and the id of the block it was read at, if named."""
        data, head = self.client.state_at_head(address)
        return (decode_channel(address, data) if data else None), head

    def channels(self) -> list[Channel]:
        """Every channel on the chain."""
        return channels_in(self.client.list_state(NAMESPACE + CHANNEL_TYPE))

    def transactions(self, address: str) -> list[OnChain]:
        """The chips transactions committed on the channel at ``address``, oldest first (every block is read)."""
        return channel_transactions(self.client.blocks(), address)

    def balance(self, key: str) -> int:
        """The chips in ``key``'s account (0 when it has none)."""
        return account_balance(self.client.get_state(account_address(key)), key)

    def account(self, key: str) -> Account | None:
        """``key``'s account record, or None when it holds no chips: what the processor's rules take."""
        return account_of(self.client.get_state(account_address(key)), key)

    def issuers(self) -> list[str]:
        """The keys that may issue chips (the setting ``chips.issuers``)."""
        return issuers_of(self.client.get_state(ISSUERS_ADDRESS))

    def challenge_floor(self) -> int:
        """The shortest challenge duration an open may fix here (``chips.min_challenge_seconds``, 600 when unset)."""
        return challenge_floor(self.client.get_state(MIN_CHALLENGE_ADDRESS))

    def head(self) -> int:
        """The newest block's number."""
        return self.client.head_block().block_num

    def post_each(self, transactions: list[Transaction]) -> list[str]:
        """Submit each of ``transactions`` as a batch of its own, all in one POST (one block may commit them all; one
        refused leaves the others), without waiting; the batch ids, in order."""
        assert self.signer is not None, "a chain without a key only reads"
        batches = [make_batch(self.signer, [transaction]) for transaction in transactions]
        self.client.submit_batches(make_batch_list(batches))
        return [batch.header_signature for batch in batches]

    def submit(self, transaction: Transaction, what: str) -> None:
        """Submit one transaction and wait until it committed; ``what`` names it in an error."""
        self.submit_all([transaction], what)

    def submit_all(self, transactions: list[Transaction], what: str) -> str:
        """Submit ``transactions`` as one batch (all or none commit) and wait until it committed; its id.

        A POST lost to the network (a REST API that reset the connection under a crowd's POSTs) is sent again, the
        same signed batch, only when the REST API does not know the batch: one that arrived after all is waited
        for, never sent twice, so whatever it pays in is paid once."""
        assert self.signer is not None, "a chain without a key only reads"
        batch = make_batch(self.signer, transactions)
        batch_id = batch.header_signature
        self._post(make_batch_list([batch]), batch_id)
        try:
            outcome = wait_for_batch(self.client, batch_id, self.wait_seconds)
        except KeyboardInterrupt as interrupt:
            raise stopped(interrupt, STOPPED_WAITING.replace("{batch}", batch_id)) from None
        require_committed(outcome, what, batch_id, self.wait_seconds)
        return batch_id

    def _post(self, batch_list: bytes, batch_id: str) -> None:
        """POST ``batch_list`` (of the one batch ``batch_id``), again after a lost POST while the REST API does not
        know the batch, up to :data:`POST_ATTEMPTS` times; the last failure is raised."""
        for attempt in range(1, POST_ATTEMPTS + 1):
            try:
                self.client.submit_batches(batch_list)
                return
            except KeyboardInterrupt as interrupt:
                raise stopped(interrupt, f"submitting batch {batch_id}: it may still commit") from None
            except (Unavailable, Rejected) as error:  # a resent batch that arrived meanwhile is refused as a duplicate
                if attempt > 1 and isinstance(error, Rejected) and self._known(batch_id):
                    return
                if isinstance(error, Rejected) or attempt == POST_ATTEMPTS:
                    raise
            time.sleep(POST_RETRY_SECONDS * attempt)
            if self._known(batch_id):
                return

    def _known(self, batch_id: str) -> bool:
        """Whether the REST API knows batch ``batch_id`` (pending, committed or invalid): a POST that arrived."""
        try:
            return self.client.batch_status(batch_id).status != "UNKNOWN"
        except Unavailable:
            return False
