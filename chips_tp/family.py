"""The chips family's identity and addressing, and what each chips transaction declares.

Records sit at type-prefixed addresses: the namespace, a 2-hex-digit record type
(``00`` an account, ``01`` a channel), then 62 hex digits of the SHA-512 of the
record's key. Processor, clients and ledger all derive addresses from here.
"""

import hashlib
from typing import Final

from chips_tp.channel import MIN_CHALLENGE_SETTING
from xo_core import block_info
from xo_core.addressing import namespace_of
from xo_core.settings import setting_address

FAMILY_NAME: Final = "chips"
FAMILY_VERSION: Final = "1.0"
#: ``7d3d52``: the first 6 hex characters of SHA-512 of ``chips``.
NAMESPACE: Final = namespace_of(FAMILY_NAME)
ACCOUNT_TYPE: Final = "00"
CHANNEL_TYPE: Final = "01"
TOURNAMENT_TYPE: Final = "02"
#: The on-chain Sawtooth setting listing the keys that may issue chips (comma-separated).
ISSUERS_SETTING: Final = "chips.issuers"
ISSUERS_ADDRESS: Final = setting_address(ISSUERS_SETTING)
#: Where the setting holding the shortest challenge duration an ``open`` may fix is kept.
MIN_CHALLENGE_ADDRESS: Final = setting_address(MIN_CHALLENGE_SETTING)
#: Where BlockInfo keeps the time: channel ops list both (which block is newest changes every block).
CLOCK_INPUTS: Final = (block_info.CONFIG_ADDRESS, block_info.BLOCK_NAMESPACE)
_HASH_DIGITS: Final = 62


def _address(record_type: str, key: str) -> str:
    return NAMESPACE + record_type + hashlib.sha512(key.encode("utf-8")).hexdigest()[:_HASH_DIGITS]


def account_address(public_key: str) -> str:
    """The address of the account of ``public_key`` (66 lowercase hex characters)."""
    return _address(ACCOUNT_TYPE, public_key)


def channel_address(channel_id: bytes) -> str:
    """The address of the channel whose id is ``channel_id`` (32 bytes), keyed by the id in lowercase hex."""
    return _address(CHANNEL_TYPE, channel_id.hex())


def issue_addresses(recipient: str) -> tuple[list[str], list[str]]:
    """Inputs and outputs of an ``issue`` to ``recipient``: the setting naming the issuers is read, not written."""
    return [ISSUERS_ADDRESS, account_address(recipient)], [account_address(recipient)]


def transfer_addresses(sender: str, recipient: str) -> tuple[list[str], list[str]]:
    """Inputs and outputs of a ``transfer``: both accounts."""
    accounts = [account_address(sender), account_address(recipient)]
    return accounts, list(accounts)


def channel_addresses(channel_id: bytes, participants: tuple[str, str]) -> tuple[list[str], list[str]]:
    """Inputs and outputs of every channel op: the channel, both participants' accounts, and (inputs only) BlockInfo.

    One list for every op keeps clients simple; only open, join, cancel, conclude and finalize
    write accounts, and only challenge, checkpoint, respond, conclude and finalize read the time.
    """
    outputs = [channel_address(channel_id), account_address(participants[0]), account_address(participants[1])]
    return [*outputs, *CLOCK_INPUTS], outputs


def open_addresses(channel_id: bytes, participants: tuple[str, str]) -> tuple[list[str], list[str]]:
    """Inputs and outputs of an ``open``: those of every channel op, and (read only) the setting naming the shortest
    challenge duration it may fix."""
    inputs, outputs = channel_addresses(channel_id, participants)
    return [*inputs, MIN_CHALLENGE_ADDRESS], outputs


def tournament_address(name: str) -> str:
    """The address of the tournament named ``name``, keyed by the name in UTF-8."""
    return _address(TOURNAMENT_TYPE, name)


def tournament_addresses(name: str, *more: str) -> tuple[list[str], list[str]]:
    """Inputs and outputs of a tournament op: its record and ``more`` (accounts, channels or their prefixes), and
    (inputs only) BlockInfo."""
    outputs = [tournament_address(name), *more]
    return [*outputs, *CLOCK_INPUTS], outputs
