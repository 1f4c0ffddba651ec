"""The rps family's identity and addressing, and what every rps transaction declares.

The processor, the client and the ledger all derive addresses from here so that a
game name can never map to two different addresses in two places.
"""

from typing import Final

from xo_core import block_info
from xo_core.addressing import address_of, namespace_of

FAMILY_NAME: Final = "rps"
#: The version this package implements: 2.0, where every op on an existing game names
#: the round and phase it was signed for (docs/rps-family.md, "Versions").
FAMILY_VERSION: Final = "2.0"
#: Versions a processor registers for only to refuse their transactions with a message
#: (a version nobody registers for would leave its transactions waiting, unexplained).
REFUSED_VERSIONS: Final = ("1.0",)
#: Every version the processor registers for: its own, then the refused ones.
FAMILY_VERSIONS: Final = (FAMILY_VERSION, *REFUSED_VERSIONS)
#: ``c56a0e``: the first 6 hex characters of SHA-512 of ``rps``.
NAMESPACE: Final = namespace_of(FAMILY_NAME)


def game_address(name: str) -> str:
    """The 70-hex-character state address of the game called ``name``.

    Distinct names may share an address (the specification's collision buckets); the
    address alone never identifies a game.
    """
    return address_of(NAMESPACE, name)


def transaction_inputs(name: str) -> list[str]:
    """What every rps transaction on the game ``name`` lists as its inputs.

    The game's address, and where BlockInfo keeps the time: its config address and its
    per-block prefix (which block is newest changes with every block, so a client
    cannot name the exact address in advance). Listing them for every op keeps clients
    simple; only ready, commit, reveal and claim read them.
    """
    return [game_address(name), block_info.CONFIG_ADDRESS, block_info.BLOCK_NAMESPACE]


def transaction_outputs(name: str) -> list[str]:
    """What every rps transaction on the game ``name`` lists as its outputs: the game's address alone."""
    return [game_address(name)]


def version_problem(version: str) -> str | None:
    """Why a transaction of rps ``version`` is refused, or ``None`` for this version.

    An rps 1.0 op names no moment of its game, so one refused once could be sent again
    and count later; this processor refuses them all, saying what to send instead.
    """
    if version == FAMILY_VERSION:
        return None
    return (
        f"this is an rps {version} transaction; this processor implements rps {FAMILY_VERSION}, in which every op "
        "on an existing game names the round and phase it was signed for, and refuses rps 1.0 ones, which could "
        f"count at another moment than the one they were signed for: sign the op again as rps {FAMILY_VERSION} "
        "(upgrade the client)"
    )
