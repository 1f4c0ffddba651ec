"""A chips chain in memory: transactions built by the client library, applied by the handler to a dict of state.

The BlockInfo clock is set with :meth:`Chain.at`; the issuers setting holds the
issuer's key, and the challenge floor (``chips.min_challenge_seconds``) is 60 s, as a
network may set it, so that the channels here may last a minute. Every refusal is
checked to change nothing and emit nothing.
"""

from dataclasses import dataclass, field

import pytest
from sawtooth_sdk.processor.exceptions import InvalidTransaction

from chips_tp.channel import Fixed, channel_id
from chips_tp.family import ISSUERS_ADDRESS, MIN_CHALLENGE_ADDRESS, account_address, channel_address
from chips_tp.handler import ChipsTransactionHandler
from chips_tp.state import Channel, decode_account, decode_channel
from tests.fake_context import Event, FakeContext
from tests.rps_tp.fakes import block_info_entries
from xo_core.protobuf.processor_pb2 import TpProcessRequest
from xo_core.protobuf.transaction_pb2 import Transaction, TransactionHeader
from xo_core.settings import encode_setting
from xo_core.signing import Signer

ALICE = Signer.from_hex("00" * 31 + "01")
BOB = Signer.from_hex("00" * 31 + "02")
ISSUER = Signer.from_hex("00" * 31 + "03")
CAROL = Signer.from_hex("00" * 31 + "04")
NOW = 1_700_000_000
#: The challenge floor the harness's network sets.
FLOOR = 60
XO_TERMS = Fixed((ALICE.public_key, BOB.public_key), "xo", 10, (100, 100), 60, 1)
RPS_TERMS = Fixed((ALICE.public_key, BOB.public_key), "rps", 10, (100, 100), 60, 2)


def request(transaction: Transaction) -> TpProcessRequest:
    header = TransactionHeader()
    header.ParseFromString(transaction.header)
    return TpProcessRequest(
        header=header, payload=transaction.payload, signature=transaction.header_signature, context_id="ctx"
    )


@dataclass
class Chain:
    """State as a validator would hold it for the chips family, and the time BlockInfo gives."""

    state: dict[str, bytes] = field(default_factory=dict)
    block: int = 41

    def __post_init__(self) -> None:
        self.state.update(block_info_entries(NOW, self.block))
        self.state[ISSUERS_ADDRESS] = encode_setting({"chips.issuers": f"{CAROL.public_key}, {ISSUER.public_key}"})
        self.state[MIN_CHALLENGE_ADDRESS] = encode_setting({"chips.min_challenge_seconds": str(FLOOR)})

    def at(self, timestamp: int) -> None:
        """A new block whose BlockInfo says ``timestamp``."""
        self.block += 1
        self.state.update(block_info_entries(timestamp, self.block))

    def submit(self, transaction: Transaction) -> Event:
        req = request(transaction)
        context = FakeContext(self.state, list(req.header.inputs) + list(req.header.outputs))
        ChipsTransactionHandler().apply(req, context)
        assert len(context.events) == 1
        return context.events[0]

    def refused(self, transaction: Transaction) -> str:
        before = dict(self.state)
        req = request(transaction)
        context = FakeContext(self.state, list(req.header.inputs) + list(req.header.outputs))
        with pytest.raises(InvalidTransaction) as raised:
            ChipsTransactionHandler().apply(req, context)
        assert self.state == before
        assert context.events == []
        return str(raised.value)

    def attempt(self, transaction: Transaction) -> str | None:
        """Apply ``transaction`` if the rules allow it (None), else return why not, having checked nothing changed."""
        before = dict(self.state)
        req = request(transaction)
        context = FakeContext(self.state, list(req.header.inputs) + list(req.header.outputs))
        try:
            ChipsTransactionHandler().apply(req, context)
        except InvalidTransaction as refusal:
            assert self.state == before
            assert context.events == []
            return str(refusal)
        assert len(context.events) == 1
        return None

    def balance(self, signer: Signer) -> int:
        address = account_address(signer.public_key)
        account = decode_account(address, self.state.get(address, b""), signer.public_key)
        return 0 if account is None else account.balance

    def channel(self, fixed: Fixed) -> Channel:
        address = channel_address(channel_id(fixed))
        found = decode_channel(address, self.state.get(address, b""))
        assert found is not None
        return found

    def chips(self, *signers: Signer) -> int:
        """Every chip in the accounts of ``signers`` and in every channel: what conservation keeps constant."""
        held = 0
        for address, data in self.state.items():
            if address.startswith(channel_address(bytes(32))[:8]):
                channel = decode_channel(address, data)
                assert channel is not None
                held += channel.held
        return held + sum(self.balance(signer) for signer in signers)
