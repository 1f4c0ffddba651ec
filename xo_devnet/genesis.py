"""What a new xo-devnet chain's genesis state holds: the chips issuers setting and the players' opening chips.

A Sawtooth network is given its on-chain settings in its genesis block; xo-devnet,
which has no settings processor, writes the one chips needs directly: ``chips.issuers``
naming the ledger's issuer key (``chips-issuer`` in the key directory), as Sawtooth's
settings family stores it, and an account of 1,000 chips for each player key it makes,
as the chips family stores one. A chain already started keeps what it has.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

from chips_tp.family import ISSUERS_ADDRESS, ISSUERS_SETTING, account_address
from chips_tp.state import Account, encode_account
from xo_core.settings import encode_setting

ISSUER_KEY_NAME: Final = "chips-issuer"
"""The key file (in the key directory) of the key that may issue chips on a new devnet chain."""
OPENING_CHIPS: Final = 1000
"""What each player key starts with on a new chain."""


def genesis_state(issuer: str, players: Iterable[str]) -> dict[str, bytes]:
    """The entries of a new chain's genesis state: the issuers setting naming ``issuer``, and each player's chips."""
    state = {ISSUERS_ADDRESS: encode_setting({ISSUERS_SETTING: issuer})}
    for player in players:
        state[account_address(player)] = encode_account(Account(player, OPENING_CHIPS))
    return state
