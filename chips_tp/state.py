"""The chips records in state and their canonical CBOR: accounts, and channels from opening to close.

Data that does not decode to a record the rules could have written is corrupt state:
``InternalError``, since no player can have written it.
"""

from collections.abc import Callable
from typing import Final, NamedTuple, TypeVar

from sawtooth_sdk.processor.exceptions import InternalError

from chips_tp.channel import APPS, ID_BYTES, MAX_DURATION, MAX_NONCE, MAX_TURN, MIN_DURATION, Fixed
from chips_tp.channel_state import amount
from xo_core import canonical
from xo_core.canonical import Malformed
from xo_core.public_keys import is_compressed_public_key

_T = TypeVar("_T")
FUNDING: Final = "funding"
RUNNING: Final = "running"
CLOSED: Final = "closed"
STATUSES: Final = (FUNDING, RUNNING, CLOSED)
CHANNEL_KEYS: Final = (
    "id", "app", "held", "turn", "nonce", "stake", "state", "funded", "payout", "status", "deposits", "duration",
    "challenge", "participants",
)  # fmt: skip


class Account(NamedTuple):
    """A public key's chips."""

    key: str
    balance: int


class ChallengeRecord(NamedTuple):
    """An ongoing challenge: when it expires (BlockInfo seconds) and who called it."""

    deadline: int
    challenger: str


class Channel(NamedTuple):
    """A channel as the chain holds it.

    ``state`` is the canonical bytes of the latest supported off-chain state (None while
    funding), ``turn`` its turn number: the record that only goes up. ``payout`` is what
    was paid to each participant when it closed.
    """

    id: bytes
    fixed: Fixed
    status: str
    funded: tuple[bool, bool]
    held: int
    turn: int
    state: bytes | None
    challenge: ChallengeRecord | None
    payout: tuple[int, int] | None


def encode_account(account: Account) -> bytes:
    """An account's canonical CBOR: ``{"key": ..., "balance": ...}``."""
    return canonical.encode_ordered({"key": account.key, "balance": account.balance})


def decode_account(address: str, data: bytes, key: str) -> Account | None:
    """The account of ``key`` in ``data`` (None if empty); ``InternalError`` if corrupt or another key's."""
    if not data:
        return None
    try:
        fields = canonical.fields(canonical.decode(data, "the account"), "the account", ("key", "balance"))
        account = Account(canonical.text(fields["key"], "'key'"), amount(fields["balance"], "'balance'", 1))
        canonical.check_canonical(fields, data, "the account")
    except Malformed as error:
        raise InternalError(f"corrupt chips account at {address}: {error}") from None
    if account.key != key:
        raise InternalError(f"corrupt chips account at {address}: it is {account.key}'s, not {key}'s")
    return account


def encode_channel(channel: Channel) -> bytes:
    """A channel record's canonical CBOR (keys in canonical order, as :data:`CHANNEL_KEYS`)."""
    fixed = channel.fixed
    challenge = channel.challenge
    return canonical.encode(
        {
            "id": channel.id,
            "app": fixed.app,
            "held": channel.held,
            "turn": channel.turn,
            "nonce": fixed.nonce,
            "stake": fixed.stake,
            "state": channel.state,
            "funded": list(channel.funded),
            "payout": None if channel.payout is None else list(channel.payout),
            "status": channel.status,
            "deposits": list(fixed.deposits),
            "duration": fixed.duration,
            "challenge": None
            if challenge is None
            else {"deadline": challenge.deadline, "challenger": challenge.challenger},
            "participants": list(fixed.participants),
        }
    )


def decode_channel(address: str, data: bytes) -> Channel | None:
    """The channel record in ``data`` (None if empty); ``InternalError`` if it is not one."""
    if not data:
        return None
    try:
        fields = canonical.fields(canonical.decode(data, "the channel"), "the channel", CHANNEL_KEYS)
        channel = Channel(
            canonical.byte_string(fields["id"], "'id'", ID_BYTES),
            Fixed(
                _pair(fields["participants"], "'participants'", _key),
                canonical.choice(fields["app"], "'app'", APPS),
                amount(fields["stake"], "'stake'", 1),
                _pair(fields["deposits"], "'deposits'", amount),
                canonical.whole_number(fields["duration"], "'duration'", MIN_DURATION, MAX_DURATION),
                canonical.whole_number(fields["nonce"], "'nonce'", 0, MAX_NONCE),
            ),
            canonical.choice(fields["status"], "'status'", STATUSES),
            _pair(fields["funded"], "'funded'", canonical.flag),
            amount(fields["held"], "'held'"),
            canonical.whole_number(fields["turn"], "'turn'", 0, MAX_TURN),
            None if fields["state"] is None else _bytes(fields["state"], "'state'"),
            None if fields["challenge"] is None else _challenge(fields["challenge"]),
            None if fields["payout"] is None else _pair(fields["payout"], "'payout'", amount),
        )
        canonical.check_canonical(fields, data, "the channel")
    except Malformed as error:
        raise InternalError(f"corrupt chips channel at {address}: {error}") from None
    return channel


def _pair(value: object, what: str, read: Callable[[object, str], _T]) -> tuple[_T, _T]:
    items = canonical.array(value, what, 2)
    if len(items) != 2:
        raise Malformed(f"{what} must have 2 items, not {len(items)}")
    return (read(items[0], what), read(items[1], what))


def _key(value: object, what: str) -> str:
    key = canonical.text(value, what)
    if not is_compressed_public_key(key):
        raise Malformed(f"{what} holds a key that is not a compressed public key")
    return key


def _bytes(value: object, what: str) -> bytes:
    if not isinstance(value, bytes):
        raise Malformed(f"{what} must be a byte string, not {canonical.describe(value)}")
    return value


def _challenge(value: object) -> ChallengeRecord:
    fields = canonical.fields(value, "'challenge'", ("deadline", "challenger"))
    return ChallengeRecord(
        canonical.whole_number(fields["deadline"], "'deadline'", 0, 2**64 - 1),
        _key(fields["challenger"], "'challenger'"),
    )
