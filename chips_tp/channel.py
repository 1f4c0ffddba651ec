"""What a channel is fixed to when it opens, its id, and the limits every chips amount and number keeps.

The id is a hash of everything fixed at opening (participants, app, stake, deposits,
challenge duration, nonce) tagged with the family, so that a state signed for one
channel can never be presented in another, even between the same two players.
"""

import hashlib
from typing import Final, NamedTuple

from xo_core import canonical

#: Amounts are unsigned 64-bit integers: a result above this is an overflow, refused.
MAX_AMOUNT: Final = 2**64 - 1
#: Turn numbers and nonces are bounded the same way (ForceMove uses 48 bits for turns).
MAX_TURN: Final = 2**48 - 1
MAX_NONCE: Final = 2**64 - 1
XO: Final = "xo"
RPS: Final = "rps"
APPS: Final = (XO, RPS)
MIN_DURATION: Final = 1
MAX_DURATION: Final = 30 * 24 * 60 * 60
#: What clients offer when the player names no challenge duration: an hour to answer a challenge.
DEFAULT_DURATION: Final = 3600
ID_BYTES: Final = 32
SIGNATURE_BYTES: Final = 64
#: First element of the array hashed into a channel id.
CHANNEL_PURPOSE: Final = "chips/1.0 channel"
#: How much of a key or an id messages show.
SHORT: Final = 8


class Fixed(NamedTuple):
    """Everything a channel is fixed to when it opens: what its id binds."""

    participants: tuple[str, str]
    app: str
    stake: int
    deposits: tuple[int, int]
    duration: int
    nonce: int


def channel_id(fixed: Fixed) -> bytes:
    """SHA-256 of the canonical CBOR of ``["chips/1.0 channel", participants, app, stake, deposits, duration,
    nonce]``."""
    preimage = [
        CHANNEL_PURPOSE, list(fixed.participants), fixed.app, fixed.stake, list(fixed.deposits), fixed.duration,
        fixed.nonce,
    ]  # fmt: skip
    return hashlib.sha256(canonical.encode(preimage)).digest()


def mover(turn: int) -> int:
    """The participant (0 or 1) who signs the state of ``turn``: the opener (0) signs turn 1, then they alternate.

    Turn 0 is the state the chain makes when the channel is funded; by the same rule
    its "mover" is participant 1, so the opener moves next.
    """
    return (turn + 1) % 2


def short(text: str) -> str:
    """A key or hex id as messages show it: its first characters, enough to tell two apart."""
    return text[:SHORT] + "..."


def fixed_problem(fixed: Fixed) -> str | None:
    """Why a channel cannot be opened with ``fixed``, or None."""
    first, second = fixed.participants
    if first == second:
        return "a channel needs two different participants; the opponent is the opener's own key"
    if min(fixed.deposits) < fixed.stake:
        return (
            f"each deposit must cover the stake of {fixed.stake} chips; "
            f"the deposits are {fixed.deposits[0]} and {fixed.deposits[1]}"
        )
    if sum(fixed.deposits) > MAX_AMOUNT:
        return f"the deposits total more than {MAX_AMOUNT} chips (overflow)"
    return None


def paid_problem(step: str, old: tuple[int, int], new: tuple[int, int], moved: int, amount: int) -> str | None:
    """Why ``new`` is not ``old`` with ``amount`` chips paid to participant ``moved`` by the other, or None.

    The apps state every move's effect on the balances this way, so the total never changes.
    """
    expected = list(old)
    expected[moved] += amount
    expected[1 - moved] -= amount
    if expected[1 - moved] < 0:
        return f"{step}: participant {1 - moved} cannot pay {amount} chips"
    if tuple(expected) != new:
        return (
            f"{step} by participant {moved} makes the balances {expected[0]} and {expected[1]}, "
            f"not {new[0]} and {new[1]}"
        )
    return None
