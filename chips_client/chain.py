"""The chips records on a REST API, and transactions submitted to it and waited for: the match's chain.

Thin on purpose: reading is :mod:`chips_tp.state`'s decoding of what the REST API
returns, writing is :mod:`client_core.submission`'s; a refusal arrives as the
validator's reason (``Rejected``), an unreachable REST API as ``Unavailable``.
"""

from __future__ import annotations

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
from client_core.rest import RestClient
from client_core.submission import require_committed, submit_and_wait
from xo_core.batches import make_batch, make_batch_list
from xo_core.protobuf.transaction_pb2 import Transaction
from xo_core.signing import Signer


class RestChain:
    """A REST API as the match sees the chain; every transaction is signed into its own batch by ``signer``."""

    def __init__(self, client: RestClient, signer: Signer | None, wait_seconds: float = 120.0) -> None:
        self.client, self.signer, self.wait_seconds = client, signer, wait_seconds

    def channel(self, address: str) -> Channel | None:
        """The channel at ``address``, or None when there is none."""
        data = self.client.get_state(address)
        return decode_channel(address, data) if data else None

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
        """Submit ``transactions`` as one batch (all or none commit) and wait until it committed; its id."""
        assert self.signer is not None, "a chain without a key only reads"
        batch_id, outcome = submit_and_wait(self.client, self.signer, transactions, self.wait_seconds)
        require_committed(outcome, what, batch_id, self.wait_seconds)
        return batch_id
