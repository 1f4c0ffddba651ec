"""What a family's transaction handler sees of a transaction and its context, and the steps every family takes.

The protocols name the part of the SDK's ``TpProcessRequest`` and ``Context`` a
handler uses, so a handler typed against them runs under this runtime
(:class:`tp_runtime.context.Context`) and under the official SDK processor alike.
The functions are the steps that do not depend on the game: the one entry of a
game's address, written back or deleted, and the signer's key checked before it
seats a player. :class:`FamilyHandler` is the SDK's ``TransactionHandler`` with the
identity half filled in from the family's three constants.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import ClassVar, Protocol

from sawtooth_sdk.processor.exceptions import InternalError, InvalidTransaction
from sawtooth_sdk.processor.handler import TransactionHandler

from xo_core.public_keys import DESCRIPTION as KEY_DESCRIPTION
from xo_core.public_keys import is_compressed_public_key


class FamilyHandler(TransactionHandler):
    """A Sawtooth ``TransactionHandler`` whose name, version and namespace are the family's constants.

    A family's handler sets the three class attributes (from its ``family.py``) and
    writes ``apply`` only: what it registers for is then said in one place.
    """

    FAMILY_NAME: ClassVar[str]
    FAMILY_VERSION: ClassVar[str]
    NAMESPACE: ClassVar[str]

    @property
    def family_name(self) -> str:
        """The family this handler registers for, from the class's ``FAMILY_NAME``."""
        return self.FAMILY_NAME

    @property
    def family_versions(self) -> list[str]:
        """The one version this handler accepts, from ``FAMILY_VERSION``."""
        return [self.FAMILY_VERSION]

    @property
    def namespaces(self) -> list[str]:
        """The one address prefix this handler reads and writes, from ``NAMESPACE``."""
        return [self.NAMESPACE]


class StateEntry(Protocol):
    """What a handler reads of a ``TpStateEntry``."""

    @property
    def address(self) -> str: ...

    @property
    def data(self) -> bytes: ...


class TransactionHeader(Protocol):
    """What a handler reads of a ``TransactionHeader``: who signed the transaction, for which family version."""

    @property
    def signer_public_key(self) -> str:
        """The public key that signed the transaction: whom it acts for."""

    @property
    def family_version(self) -> str:
        """The family version the transaction was signed for."""


class ProcessRequest(Protocol):
    """What a handler reads of a ``TpProcessRequest``."""

    @property
    def header(self) -> TransactionHeader: ...

    @property
    def payload(self) -> bytes: ...


class StateContext(Protocol):
    """The part of the SDK's ``Context`` API a handler calls (timeouts left to the runtime)."""

    def get_state(self, addresses: list[str]) -> Sequence[StateEntry]: ...

    def set_state(self, entries: dict[str, bytes]) -> Sequence[str]: ...

    def delete_state(self, addresses: list[str]) -> Sequence[str]: ...

    def add_event(self, event_type: str, attributes: list[tuple[str, str]], data: bytes) -> None: ...


def read_entry(context: StateContext, address: str) -> bytes:
    """The data at ``address`` as the transaction sees it; empty when nothing is stored there."""
    entries = context.get_state([address])
    return next((entry.data for entry in entries if entry.address == address), b"")


def write_entry(context: StateContext, address: str, data: bytes | None) -> None:
    """Store ``data`` at ``address``, or delete the entry when ``data`` is ``None``.

    A validator that reports neither done has a fault of its own, not the
    transaction's: ``InternalError``, which it retries.
    """
    if data is not None:
        if address not in context.set_state({address: data}):
            raise InternalError(f"the validator did not write state at {address}")
    elif address not in context.delete_state([address]):
        raise InternalError(f"the validator did not delete state at {address}")


def read_entries(context: StateContext, addresses: list[str]) -> dict[str, bytes]:
    """The data at each of ``addresses`` (empty where nothing is stored), in one request to the validator."""
    found = {entry.address: entry.data for entry in context.get_state(addresses)}
    return {address: found.get(address, b"") for address in addresses}


def write_entries(context: StateContext, entries: dict[str, bytes | None]) -> None:
    """Store each entry's data, or delete the entry where it is ``None``: one request for each kind at most.

    A transaction that changes several records (a payout to two accounts, say) pays one
    round trip to the validator, not one per record.
    """
    written = {address: data for address, data in entries.items() if data is not None}
    deleted = [address for address, data in entries.items() if data is None]
    if written and not set(written) <= set(context.set_state(written)):
        raise InternalError(f"the validator did not write state at all of {sorted(written)}")
    if deleted and not set(deleted) <= set(context.delete_state(deleted)):
        raise InternalError(f"the validator did not delete state at all of {sorted(deleted)}")


def check_signer(signer: str, quoted: Callable[[str], str]) -> None:
    """Refuse a signer key that is not a compressed secp256k1 public key in lowercase hex.

    Games store keys and compare them as text to seat players, so one key must have
    one spelling: ``02AB..`` and ``02ab..`` (or a key's compressed and uncompressed
    forms) would otherwise be two players. A validator only guarantees that the key
    verified the signature, which those other spellings also do, so this is the
    transaction's fault: ``InvalidTransaction``, which rejects it for good, rather than
    ``InternalError``, which would have the validator retry it again and again. Every
    Sawtooth signing library writes keys in this form. ``quoted`` shows the key as the
    family's messages show player-supplied text.
    """
    if not is_compressed_public_key(signer):
        raise InvalidTransaction(f"the signer public key {quoted(signer)} is not {KEY_DESCRIPTION}")
