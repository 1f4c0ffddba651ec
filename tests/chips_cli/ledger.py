"""``chips`` commands run in-process against the real chips handler: a stand-in for the REST API's chain.

:class:`HandlerChain` answers what :class:`chips_client.chain.RestChain` answers (channels,
balances, settings) from a dict of state, and applies a submitted transaction with
``ChipsTransactionHandler`` itself, so a refusal comes back in the validator's own words,
exactly as ``require_committed`` reports an INVALID batch. ``submitted`` counts what was
sent, so a test can tell a refusal made before submitting from one the chain made.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from sawtooth_sdk.processor.exceptions import InvalidTransaction

from chips_client.channels import account_balance, account_of, challenge_floor, channels_in, issuers_of
from chips_tp.family import ISSUERS_ADDRESS, MIN_CHALLENGE_ADDRESS, account_address
from chips_tp.handler import ChipsTransactionHandler
from chips_tp.state import Account, Channel, decode_channel
from client_core.caller import Where
from client_core.errors import Rejected
from tests.chips_tp.harness import Chain, request
from tests.fake_context import FakeContext
from xo_core.keyfiles import write_key_pair
from xo_core.protobuf.transaction_pb2 import Transaction
from xo_core.signing import Signer


@dataclass
class StateReader:
    """The state reads of :class:`client_core.rest.RestClient`, from the in-memory ledger."""

    ledger: Chain

    def get_state(self, address: str) -> bytes | None:
        return self.ledger.state.get(address)

    def list_state(self, prefix: str) -> list[tuple[str, bytes]]:
        return sorted((a, d) for a, d in self.ledger.state.items() if a.startswith(prefix))


@dataclass
class HandlerChain:
    """The chain a ``chips`` command reads and submits to, applying the real handler; ``submitted`` counts batches."""

    ledger: Chain = field(default_factory=Chain)
    submitted: int = 0

    def channel(self, address: str) -> Channel | None:
        return decode_channel(address, self.ledger.state.get(address, b""))

    def channels(self) -> list[Channel]:
        return channels_in(self.ledger.state.items())

    def balance(self, key: str) -> int:
        return account_balance(self.ledger.state.get(account_address(key)), key)

    def account(self, key: str) -> Account | None:
        return account_of(self.ledger.state.get(account_address(key)), key)

    def issuers(self) -> list[str]:
        return issuers_of(self.ledger.state.get(ISSUERS_ADDRESS))

    def challenge_floor(self) -> int:
        return challenge_floor(self.ledger.state.get(MIN_CHALLENGE_ADDRESS))

    def submit(self, transaction: Transaction, what: str) -> None:
        self.submit_all([transaction], what)

    @property
    def client(self) -> StateReader:
        """What the REST client answers of state, for the commands that read it directly (tournaments)."""
        return StateReader(self.ledger)

    def submit_all(self, transactions: list[Transaction], what: str) -> str:
        self.submitted += 1
        before = dict(self.ledger.state)
        for transaction in transactions:
            req = request(transaction)
            context = FakeContext(self.ledger.state, list(req.header.inputs) + list(req.header.outputs))
            try:
                ChipsTransactionHandler().apply(req, context)
            except InvalidTransaction as refusal:
                self.ledger.state = before
                raise Rejected(f"the validator rejected {what}: {refusal}") from None
        return f"batch{self.submitted}"


@dataclass
class Table:
    """Players with keys in one key directory, ``chips`` run in-process against ``chain``."""

    chain: HandlerChain
    key_dir: str
    capsys: pytest.CaptureFixture[str]

    def player(self, name: str, signer: Signer | None = None) -> Signer:
        signer = signer or Signer.generate()
        write_key_pair(Path(self.key_dir), name, signer)
        return signer

    def run(self, name: str, *argv: object) -> tuple[int, str, str]:
        from chips_cli.main import main  # noqa: PLC0415 - after the monkeypatch below

        code = main([str(arg) for arg in argv] + ["--username", name, "--key-dir", self.key_dir])
        captured = self.capsys.readouterr()
        return code, captured.out, captured.err


def chain_at(chain: HandlerChain) -> Callable[..., contextlib.AbstractContextManager]:
    """A stand-in for :func:`chips_cli.context.chain` that always yields ``chain``, wherever and however long."""

    @contextlib.contextmanager
    def at(_where: Where, _key: Signer | None, _wait: float | None = None) -> Iterator[HandlerChain]:
        yield chain

    return at
