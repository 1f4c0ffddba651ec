"""The steps every family's handler shares: one address's entry read, written back or deleted; the signer checked."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest
from sawtooth_sdk.processor.exceptions import InternalError, InvalidTransaction

from tp_runtime.handler_api import FamilyHandler, check_signer, read_entries, read_entry, write_entries, write_entry

ADDRESS = "ab" * 35
OTHER = "cd" * 35


@dataclass(frozen=True)
class Entry:
    address: str
    data: bytes


@dataclass
class FakeContext:
    """A context that stores what it is given, unless told to report nothing done (a faulty validator)."""

    state: dict[str, bytes] = field(default_factory=dict)
    faulty: bool = False

    def get_state(self, addresses: list[str]) -> list[Entry]:
        return [Entry(address, self.state[address]) for address in addresses if address in self.state]

    def set_state(self, entries: dict[str, bytes]) -> list[str]:
        if self.faulty:
            return []
        self.state.update(entries)
        return list(entries)

    def delete_state(self, addresses: list[str]) -> list[str]:
        if self.faulty:
            return []
        return [address for address in addresses if self.state.pop(address, None) is not None]

    def add_event(self, event_type: str, attributes: list[tuple[str, str]], data: bytes) -> None:
        raise AssertionError("not used")


def test_an_address_with_nothing_stored_reads_as_empty_and_a_stored_one_as_its_data():
    context = FakeContext({OTHER: b"other game"})
    assert read_entry(context, ADDRESS) == b""
    write_entry(context, ADDRESS, b"games")
    assert read_entry(context, ADDRESS) == b"games"
    assert read_entry(context, OTHER) == b"other game"


def test_no_data_deletes_the_entry():
    context = FakeContext({ADDRESS: b"games"})
    write_entry(context, ADDRESS, None)
    assert ADDRESS not in context.state


def test_a_validator_that_reports_nothing_written_or_deleted_is_an_internal_error():
    with pytest.raises(InternalError, match=f"did not write state at {ADDRESS}"):
        write_entry(FakeContext(faulty=True), ADDRESS, b"games")
    with pytest.raises(InternalError, match=f"did not delete state at {ADDRESS}"):
        write_entry(FakeContext({ADDRESS: b"games"}, faulty=True), ADDRESS, None)


def test_several_entries_are_read_and_written_in_one_request_each():
    context = FakeContext({OTHER: b"old"})
    calls: list[str] = []
    real_get, real_set, real_delete = context.get_state, context.set_state, context.delete_state
    context.get_state = lambda addresses: calls.append("get") or real_get(addresses)  # type: ignore[method-assign]
    context.set_state = lambda entries: calls.append("set") or real_set(entries)  # type: ignore[method-assign]
    context.delete_state = lambda addresses: calls.append("delete") or real_delete(addresses)  # type: ignore[method-assign]
    assert read_entries(context, [ADDRESS, OTHER]) == {ADDRESS: b"", OTHER: b"old"}
    write_entries(context, {ADDRESS: b"new", "ef" * 35: b"more", OTHER: None})
    assert context.state == {ADDRESS: b"new", "ef" * 35: b"more"}
    assert calls == ["get", "set", "delete"]


def test_entries_a_validator_does_not_report_written_are_an_internal_error():
    with pytest.raises(InternalError, match="did not write state at all of"):
        write_entries(FakeContext(faulty=True), {ADDRESS: b"games"})


def test_a_signer_key_with_another_spelling_is_refused_in_the_familys_own_quoting():
    key = "02" + "ab" * 32
    check_signer(key, repr)
    with pytest.raises(InvalidTransaction, match=r"^the signer public key <02AB.*> is not a compressed secp256k1"):
        check_signer(key.upper(), lambda text: f"<{text}>")


def test_a_family_handler_registers_under_its_three_constants():
    class Toy(FamilyHandler):
        FAMILY_NAME = "toy"
        FAMILY_VERSION = "2.1"
        NAMESPACE = "abcdef"

        def apply(self, transaction, context) -> None:
            raise NotImplementedError

    handler = Toy()
    assert (handler.family_name, handler.family_versions, handler.namespaces) == ("toy", ["2.1"], ["abcdef"])
