"""What the banner says of each key's chips: what it holds on the chain now, and whether it may issue more.

Read from the head's state once the devnet is ready, as Anvil lists its funded accounts: a new chain shows
what genesis gave (xo_devnet.genesis), a chain played on shows what is left. Pure: it is given a reader of
state, so the ledger stays out of it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from sawtooth_sdk.processor.exceptions import InternalError

from chips_tp.family import ISSUERS_ADDRESS, ISSUERS_SETTING, account_address
from chips_tp.state import decode_account
from xo_core.settings import CorruptSetting, listed, setting_value

StateReader = Callable[[str], "bytes | None"]
"""The bytes at an address in the head's state, or None when nothing is there."""


@dataclass(frozen=True)
class KeyChips:
    """One key's chips: ``balance`` None when it has no account (or one that cannot be read)."""

    balance: int | None
    issuer: bool

    def words(self) -> str:
        """``1,000 chips``, ``no chips``; ``may issue chips`` for an issuer (after what it holds, if anything)."""
        if self.balance is None:
            return "may issue chips" if self.issuer else "no chips"
        held = f"{self.balance:,} chip{'' if self.balance == 1 else 's'}"
        return f"{held}, may issue chips" if self.issuer else held


def key_chips(read: StateReader, public_keys: Iterable[str]) -> dict[str, KeyChips]:
    """Each public key's chips in the state ``read`` reads; a corrupt entry counts as none, never a crash."""
    try:
        issuers = set(listed(setting_value(read(ISSUERS_ADDRESS) or b"", ISSUERS_SETTING)))
    except CorruptSetting:
        issuers = set()
    found = {}
    for key in public_keys:
        address = account_address(key)
        try:
            account = decode_account(address, read(address) or b"", key)
        except InternalError:
            account = None
        found[key] = KeyChips(account.balance if account is not None else None, key in issuers)
    return found
