"""Channels and accounts as the chain holds them, found by the name the players chose.

The specification's channel id hashes the channel's terms and a 64-bit nonce. The
players name a channel instead: its nonce is the SHA-256 of the name (tagged, so no
other hash collides with it) cut to 56 bits, followed by one byte holding the number of
rounds to play (0: until a player cannot cover the stake). So the opener's terms, the
joiner's lookup and the rounds both clients stop after all follow from the name and the
chain, and two channels of the same name between different players or on different
terms still have different ids.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from typing import Final, NamedTuple

from chips_tp.channel import DEFAULT_MIN_DURATION, MIN_CHALLENGE_SETTING, Fixed, channel_id, min_duration
from chips_tp.family import CHANNEL_TYPE, FAMILY_NAME, ISSUERS_SETTING, NAMESPACE, account_address, channel_address
from chips_tp.payload import InvalidPayload, parse_payload
from chips_tp.state import Account, Channel, decode_account, decode_channel
from client_core.blocks import ChainBlock
from client_core.errors import InvalidInput
from xo_core.settings import CorruptSetting, listed, setting_value
from xo_core.text import quoted

NAME_PURPOSE: Final = b"chips/1.0 channel name\x00"
#: A challenge duration below this is *short*: under the floor the family sets where a network sets none (600 s),
#: so it holds only on a network that trusts its clock more, and only for a player whose watchtower never stops.
SHORT_CHALLENGE: Final = DEFAULT_MIN_DURATION
MAX_ROUNDS: Final = 255
MAX_NAME_LENGTH: Final = 64


def name_problem(name: str) -> str | None:
    """Why ``name`` cannot name a channel, or None: 1 to 64 printable characters."""
    if not name or len(name) > MAX_NAME_LENGTH or not name.isprintable():
        return f"a channel name is 1 to {MAX_NAME_LENGTH} printable characters, not {name[:MAX_NAME_LENGTH]!r}"
    return None


def name_tag(name: str) -> int:
    """The 56 high bits of the nonce of every channel named ``name``."""
    return int.from_bytes(hashlib.sha256(NAME_PURPOSE + name.encode("utf-8")).digest()[:7], "big")


def nonce_of(name: str, rounds: int) -> int:
    """The nonce of the channel ``name`` playing ``rounds`` games or rounds."""
    if not 0 <= rounds <= MAX_ROUNDS:
        raise ValueError(f"rounds must be 0 (until a player cannot cover the stake) to {MAX_ROUNDS}")
    return name_tag(name) << 8 | rounds


def rounds_of(fixed: Fixed) -> int:
    """The rounds the channel's name bound into its nonce."""
    return fixed.nonce & 0xFF


def tag_of(fixed: Fixed) -> int:
    """The tag of the name the channel's nonce binds (:func:`name_tag`): which name it has, without knowing it."""
    return fixed.nonce >> 8


def named(fixed: Fixed, name: str) -> bool:
    """Whether ``fixed`` is a channel named ``name``."""
    return tag_of(fixed) == name_tag(name)


def challenge_floor(data: bytes | None) -> int:
    """The shortest challenge an open may fix, from the data at the setting's address, as chips-tp reads it."""
    try:
        return min_duration(setting_value(data or b"", MIN_CHALLENGE_SETTING))
    except (ValueError, CorruptSetting) as error:
        raise InvalidInput(str(error)) from None


def short_challenge_note(duration: int) -> str | None:
    """What a player joining a channel whose challenges last ``duration`` seconds should know, or None."""
    if duration >= SHORT_CHALLENGE:
        return None
    return (
        f"a challenge in this channel must be answered within {duration} s, which is short (under {SHORT_CHALLENGE} s, "
        "the floor the chips family sets for a network whose clock a validator may run 300 s ahead): keep chips play, "
        "chips bot or chips watch --defend running for the whole match, or a challenge can be lost unanswered"
    )


def channels_in(entries: Iterable[tuple[str, bytes]]) -> list[Channel]:
    """The channel records among state ``entries`` (address, data) under the chips namespace."""
    prefix = NAMESPACE + CHANNEL_TYPE
    found = []
    for address, data in entries:
        if address.startswith(prefix):
            channel = decode_channel(address, data)
            if channel is not None:
                found.append(channel)
    return found


def name_taken(name: str, existing: Channel) -> str:
    """Why a channel of this name cannot be opened again with this opponent on these terms, in a player's words: the
    processor says "open with another nonce", and a player chooses the nonce by choosing the name."""
    return (f"a channel {quoted(name, None)} with this opponent on these terms was opened before (it is "
            f"{existing.status}): give the new one another name")  # fmt: skip


def find_named(channels: Iterable[Channel], name: str, key: str) -> list[Channel]:
    """The channels named ``name`` that ``key`` takes part in, newest-looking first (running before closed)."""
    mine = [c for c in channels if named(c.fixed, name) and key in c.fixed.participants]
    return sorted(mine, key=lambda c: ("funding", "running", "closed").index(c.status))


def account_balance(data: bytes | None, key: str) -> int:
    """The free chips of ``key`` in its account's state ``data`` (0 when it has no record)."""
    account = account_of(data, key)
    return 0 if account is None else account.balance


def account_of(data: bytes | None, key: str) -> Account | None:
    """The account of ``key`` in its state ``data``, as chips-tp reads it (None when it has no record)."""
    return decode_account(account_address(key), data or b"", key)


def issuers_of(data: bytes | None) -> list[str]:
    """The keys the setting ``chips.issuers`` lists, from the data at its address, as chips-tp reads them."""
    try:
        return listed(setting_value(data or b"", ISSUERS_SETTING))
    except CorruptSetting as error:
        raise InvalidInput(str(error)) from None


def address_of(fixed: Fixed) -> str:
    """Where the channel ``fixed`` is recorded."""
    return channel_address(channel_id(fixed))


class OnChain(NamedTuple):
    """A committed chips transaction that touched a channel: its block, op, signer and id."""

    block: int
    op: str
    signer: str
    transaction_id: str


def channel_transactions(blocks: Iterable[ChainBlock], address: str) -> list[OnChain]:
    """The chips transactions among ``blocks`` (in any order) that may write the channel at ``address``, oldest first.

    A transaction's outputs name what it may write, so an ``open`` (whose payload names
    no channel) is found as well as the ops that name it.
    """
    found = []
    for block in blocks:
        for index, transaction in enumerate(block.transactions):
            if transaction.family_name != FAMILY_NAME or address not in transaction.outputs:
                continue
            try:
                op = parse_payload(transaction.payload).NAME
            except InvalidPayload:  # committed, so the processor parsed it: another processor's data, shown as such
                op = "unreadable"
            found.append((block.block_num, index, OnChain(block.block_num, op, transaction.signer,
                                                          transaction.transaction_id)))  # fmt: skip
    return [entry for _, _, entry in sorted(found, key=lambda item: item[:2])]
