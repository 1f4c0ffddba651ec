"""The XO family's identity and addressing, as the XO specification fixes them.

The processor, the client and the ledger all derive addresses from here so that a
game name can never map to two different addresses in two places.
"""

from xo_core.addressing import address_of, namespace_of

FAMILY_NAME = "xo"
FAMILY_VERSION = "1.0"
NAMESPACE = namespace_of(FAMILY_NAME)


def game_address(name: str) -> str:
    """Return the 70-hex-character state address of the game called ``name``.

    Distinct names may share an address (the spec's collision buckets); the
    address alone never identifies a game.
    """
    return address_of(NAMESPACE, name)
