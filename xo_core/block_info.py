"""Where Sawtooth's block_info family keeps the chain's clock in state, and its defaults.

At the start of every block the validator's BlockInfo batch injector adds one
``block_info`` transaction describing the previous block (its number, its id and
the id before it) with a timestamp the validator takes as it starts the new block.
The block_info processor stores that description at an address derived from the
block number, keeps the last ``target_count`` of them, and records which ones it
keeps in a config entry. Any family that needs the time reads the config, then the
newest description. The messages are in :mod:`xo_core.protobuf.block_info_pb2`.
"""

from typing import Final

FAMILY_NAME: Final = "block_info"
FAMILY_VERSION: Final = "1.0"
#: The family's namespace; not derived from its name, as most namespaces are.
NAMESPACE: Final = "00b10c"
#: Prefix of the per-block descriptions (``BlockInfo`` messages).
BLOCK_NAMESPACE: Final = NAMESPACE + "00"
#: The one address of the ``BlockInfoConfig`` message: the "metadata namespace" followed by zeros.
CONFIG_ADDRESS: Final = NAMESPACE + "01" + "0" * 62
#: What the block_info processor uses when a transaction sets neither.
DEFAULT_TARGET_COUNT: Final = 256
DEFAULT_SYNC_TOLERANCE: Final = 300

_BLOCK_NUMBER_DIGITS: Final = 62


def block_address(block_num: int) -> str:
    """The address of the description of block ``block_num``: its number in hex, zero-padded to 62 digits."""
    if not 0 <= block_num < 16**_BLOCK_NUMBER_DIGITS:
        raise ValueError(f"block number {block_num} has no BlockInfo address")
    return BLOCK_NAMESPACE + f"{block_num:0{_BLOCK_NUMBER_DIGITS}x}"
