"""The entry a committed transaction wrote, read from its receipt: a value, a deletion, or a warning and unknown."""

from __future__ import annotations

import pytest

from client_core.answers import StateChange
from client_core.errors import Unavailable
from client_core.receipts import written_entry

ADDRESS = "5b7349" + "a" * 64
OTHER = "5b7349" + "b" * 64


class Receipts:
    """A REST client that knows one transaction's state changes, or fails to read them."""

    def __init__(self, changes: list[StateChange] | None) -> None:
        self.changes = changes

    def state_changes(self, transaction_id: str) -> list[StateChange]:
        if self.changes is None:
            raise Unavailable("cannot reach the REST API")
        return self.changes


def read(changes: list[StateChange] | None) -> tuple[bool, bytes | None]:
    return written_entry(Receipts(changes), "t" * 128, ADDRESS, tool="xo", what="move", label="game 'g1'")


def test_the_value_written_at_the_address_is_returned_whatever_else_the_transaction_wrote():
    assert read([StateChange(OTHER, "SET", b"x"), StateChange(ADDRESS, "SET", b"g1,...")]) == (True, b"g1,...")


def test_a_deleted_entry_is_known_and_none():
    assert read([StateChange(ADDRESS, "DELETE", b"")]) == (True, None)


@pytest.mark.parametrize(
    ("changes", "warning"),
    [
        (None, "xo: warning: the move committed, but its receipt cannot be read: cannot reach the REST API\n"),
        (
            [StateChange(OTHER, "SET", b"x")],
            "xo: warning: the move committed, but its receipt shows no change to game 'g1'\n",
        ),
    ],
)
def test_an_unreadable_or_silent_receipt_is_a_warning_and_unknown(capsys, changes, warning):
    assert read(changes) == (False, None)
    assert capsys.readouterr().err == warning
