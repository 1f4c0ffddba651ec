"""An in-memory stand-in for the SDK's state ``Context``, strict the way a validator is; no family knowledge.

It serves and changes a plain dict of address -> bytes, refuses addresses outside the
transaction's declared inputs/outputs (as the validator does, with the SDK's
``AuthorizationException``; a declared prefix covers every address under it),
type-checks what the handler hands it, and records events. Every family's handler
tests use it, each with its own ``request()`` builder.
"""

from dataclasses import dataclass, field
from typing import NamedTuple

from sawtooth_sdk.processor.exceptions import AuthorizationException

from xo_core.protobuf.processor_pb2 import TpProcessRequest


class StateEntry(NamedTuple):
    address: str
    data: bytes


class Event(NamedTuple):
    event_type: str
    attributes: list[tuple[str, str]]
    data: bytes


def public_key(seed: int) -> str:
    """A compressed-public-key-shaped hex string, distinct per seed."""
    return "02" + f"{seed:064x}"


@dataclass
class FakeContext:
    """The SDK Context API over ``state``; ``allowed`` are the declared input/output prefixes.

    ``report_missing_as_empty`` makes ``get_state`` return an empty entry for an unset
    address, as some validators do, instead of leaving it out as the SDK does.
    """

    state: dict[str, bytes]
    allowed: list[str]
    report_missing_as_empty: bool = False
    events: list[Event] = field(default_factory=list)

    @classmethod
    def for_request(cls, req: TpProcessRequest, state: dict[str, bytes], **options: bool) -> "FakeContext":
        return cls(state, list(req.header.inputs), **options)

    def _check(self, addresses: list[str]) -> None:
        assert isinstance(addresses, list), addresses
        for address in addresses:
            assert isinstance(address, str) and len(address) == 70, address
            if not any(address.startswith(prefix) for prefix in self.allowed):
                raise AuthorizationException(f"address {address} is not in the transaction's inputs/outputs")

    def get_state(self, addresses: list[str], timeout: float | None = None) -> list[StateEntry]:
        self._check(addresses)
        found = [StateEntry(a, self.state[a]) for a in addresses if a in self.state]
        if self.report_missing_as_empty:
            found += [StateEntry(a, b"") for a in addresses if a not in self.state]
        return found

    def set_state(self, entries: dict[str, bytes], timeout: float | None = None) -> list[str]:
        self._check(list(entries))
        for address, data in entries.items():
            assert isinstance(data, bytes) and data, (address, data)
            self.state[address] = data
        return list(entries)

    def delete_state(self, addresses: list[str], timeout: float | None = None) -> list[str]:
        self._check(addresses)
        return [a for a in addresses if self.state.pop(a, None) is not None]

    def add_event(
        self,
        event_type: str,
        attributes: list[tuple[str, str]] | None = None,
        data: bytes | None = None,
        timeout: float | None = None,
    ) -> None:
        assert isinstance(event_type, str) and event_type, event_type
        attributes = attributes or []
        assert all(isinstance(k, str) and isinstance(v, str) for k, v in attributes), attributes
        assert data is None or isinstance(data, bytes), data
        self.events.append(Event(event_type, list(attributes), data or b""))
