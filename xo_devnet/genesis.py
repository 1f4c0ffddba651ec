"""What a new xo-devnet chain's genesis state holds: the chips settings and the players' opening chips.

A Sawtooth network is given its on-chain settings in its genesis block; xo-devnet,
which has no settings processor, writes the ones chips needs directly, as Sawtooth's
settings family stores them: ``chips.issuers`` naming the ledger's issuer key
(``chips-issuer`` in the key directory), and ``chips.min_challenge_seconds``, the
shortest challenge an open may fix; and an account of 1,000 chips for each player key
it makes, as the chips family stores one. A chain already started keeps what it has.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

from chips_tp.channel import MIN_CHALLENGE_SETTING
from chips_tp.family import ISSUERS_ADDRESS, ISSUERS_SETTING, MIN_CHALLENGE_ADDRESS, account_address
from chips_tp.state import Account, encode_account
from xo_core.settings import encode_setting

ISSUER_KEY_NAME: Final = "chips-issuer"
"""The key file (in the key directory) of the key that may issue chips on a new devnet chain."""
OPENING_CHIPS: Final = 1000
"""What each player key starts with on a new chain."""
MIN_CHALLENGE_SECONDS: Final = 10
"""A new chain's challenge floor: one node, whose clock nobody else sets (it is never ahead of the machine's), so
what a challenged player needs is a watchtower's few reads (every 2 s) and a block (under a second), not the
family's 600 s default, which covers a publisher running the clock 300 s ahead (docs/chips-family.md)."""


def genesis_state(
    issuer: str | None, players: Iterable[str], min_challenge: int = MIN_CHALLENGE_SECONDS
) -> dict[str, bytes]:
    """The entries of a new chain's genesis state: the issuers setting naming ``issuer`` (None: nobody issues), the
    challenge floor ``min_challenge`` (seconds), and each player's chips."""
    state = {MIN_CHALLENGE_ADDRESS: encode_setting({MIN_CHALLENGE_SETTING: str(min_challenge)})}
    if issuer is not None:
        state[ISSUERS_ADDRESS] = encode_setting({ISSUERS_SETTING: issuer})
    for player in players:
        state[account_address(player)] = encode_account(Account(player, OPENING_CHIPS))
    return state
