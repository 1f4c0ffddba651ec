"""One transaction's view of state while a processor executes it, and what it may touch.

A processor may read an address only if one of the transaction's ``inputs`` is a
prefix of it and write or delete only under its ``outputs`` (Sawtooth's rule: inputs
and outputs may be namespaces). Writes and deletes must also fall under a namespace
the processor registered for the transaction's family (``restrict_writes``), so that no
family's processor can change another family's state, which Sawtooth 1.x does not
check; reads stay governed by the inputs alone, since one family may read another's
state (BlockInfo, say). Two namespaces belong to the ledger whatever a processor
registered (``LEDGER_NAMESPACES``): BlockInfo's ``00b10c`` and the settings' ``000000``;
only their own family may write there, for the chain's clock and configuration are
what every other family trusts. Reads see the state the transaction would see if the
block were executed serially: committed state, then earlier batches of the block,
then earlier transactions of its own batch, then its own writes.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from xo_core.protobuf.events_pb2 import Event
from xo_core.protobuf.transaction_receipt_pb2 import StateChange, TransactionReceipt
from xo_devnet.merkle import ADDRESS_PATTERN

Reader = Callable[[str], bytes | None]


LEDGER_NAMESPACES: dict[str, str] = {"00b10c": "block_info", "000000": "sawtooth_settings"}
"""Namespace -> the one family that may write it, whatever namespaces another family's processor registers."""


class AuthorizationError(Exception):
    """The processor touched an address it may not (outside inputs/outputs, or not an address).

    ``condition`` names which rule refused it, from a small fixed set (never an address or
    anything else a client chose), so that the log can hold each rule's repeats to one line.
    """

    def __init__(self, message: str, condition: str) -> None:
        super().__init__(message)
        self.condition = condition


class TxnContext:
    """State access for one attempt at one transaction; discarded if the attempt fails."""

    __slots__ = ("_family", "_inputs", "_namespaces", "_outputs", "_owner", "_read", "data", "events", "writes")

    def __init__(self, inputs: Sequence[str], outputs: Sequence[str], read: Reader) -> None:
        self._inputs = tuple(inputs)
        self._outputs = tuple(outputs)
        self._namespaces: tuple[str, ...] | None = None
        self._family = ""
        self._owner = ""
        self._read = read
        self.writes: dict[str, bytes | None] = {}
        self.events: list[Event] = []
        self.data: list[bytes] = []

    def restrict_writes(self, namespaces: Sequence[str], family: str, version: str) -> None:
        """Allow writes and deletes only under ``namespaces``, those the processor of ``family`` ``version``
        registered, and never under a ledger namespace of another family; without this call only the
        outputs limit them."""
        self._namespaces = tuple(namespaces)
        self._family = family
        self._owner = f"{family} {version}"

    def get(self, addresses: Iterable[str]) -> list[tuple[str, bytes]]:
        """Each address with its value (empty bytes when unset), as Sawtooth answers TP_STATE_GET."""
        addresses = list(addresses)
        _authorize(addresses, self._inputs, "read", "inputs")
        found = []
        for address in addresses:
            value = self.writes[address] if address in self.writes else self._read(address)
            found.append((address, value or b""))
        return found

    def set(self, entries: Iterable[tuple[str, bytes]]) -> list[str]:
        entries = list(entries)
        self._authorize_writes([address for address, _ in entries], "write")
        for address, value in entries:
            self.writes[address] = value
        return [address for address, _ in entries]

    def delete(self, addresses: Iterable[str]) -> list[str]:
        addresses = list(addresses)
        self._authorize_writes(addresses, "delete")
        for address in addresses:
            self.writes[address] = None
        return addresses

    def _authorize_writes(self, addresses: list[str], verb: str) -> None:
        _authorize(addresses, self._outputs, verb, "outputs")
        namespaces = self._namespaces
        if namespaces is None:
            return
        for address in addresses:
            owner = LEDGER_NAMESPACES.get(address[:6])
            if owner is not None and owner != self._family:
                raise AuthorizationError(
                    f"cannot {verb} {address}: the namespace {address[:6]} belongs to the ledger ({owner});"
                    f" {self._owner} may not write it, whatever namespaces its processor registered",
                    f"ledger namespace {address[:6]}",
                )
            if not address.startswith(namespaces):
                registered = ", ".join(namespaces) or "none"
                raise AuthorizationError(
                    f"cannot {verb} {address}: not under the namespaces {self._owner} registered ({registered})",
                    "unregistered namespace",
                )

    def receipt(self, txn_id: str) -> TransactionReceipt:
        """The receipt a committed transaction gets: its final writes, events and data."""
        changes = [
            StateChange(address=address, type=StateChange.DELETE)
            if value is None
            else StateChange(address=address, value=value, type=StateChange.SET)
            for address, value in self.writes.items()
        ]
        return TransactionReceipt(state_changes=changes, events=self.events, data=self.data, transaction_id=txn_id)


def _authorize(addresses: list[str], allowed: tuple[str, ...], verb: str, field: str) -> None:
    for address in addresses:
        if not ADDRESS_PATTERN.fullmatch(address):
            raise AuthorizationError(f"cannot {verb} {address!r}: not a 70-character lowercase hex address", "address")
        if not address.startswith(allowed):
            raise AuthorizationError(f"cannot {verb} {address}: not under the transaction's {field}", field)


def layered_reader(layers: Sequence[dict[str, bytes | None]], base: Reader) -> Reader:
    """Read through write layers (first wins; None means deleted) down to committed state."""

    def read(address: str) -> bytes | None:
        for layer in layers:
            if address in layer:
                return layer[address]
        return base(address)

    return read
