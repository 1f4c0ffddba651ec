"""What a committed transaction wrote at one address, read from its receipt, for every family's client.

A command that waited for its move to commit reads the game the move left from the
receipt, the state that very transaction wrote, so a move made right after by someone
else cannot be mistaken for this one's outcome. The move has committed whatever
happens here, so a receipt that cannot be read is a warning, never the command's failure.
"""

from __future__ import annotations

from client_core.errors import CommandError
from client_core.rest import RestClient
from client_core.runner import warn


def written_entry(
    client: RestClient, transaction_id: str, address: str, *, tool: str, what: str, label: str
) -> tuple[bool, bytes | None]:
    """``(True, data)`` the transaction wrote at ``address`` (``data`` None: deleted); ``(False, None)`` if unknown.

    ``tool`` names the command in warnings, ``what`` the transaction (``move``, ``op``)
    and ``label`` the game.
    """
    try:
        changes = client.state_changes(transaction_id)
    except CommandError as error:
        warn(tool, f"the {what} committed, but its receipt cannot be read: {error.message}")
        return False, None
    for change in changes:
        if change.address == address:
            return True, None if change.type == "DELETE" else change.value
    warn(tool, f"the {what} committed, but its receipt shows no change to {label}")
    return False, None
