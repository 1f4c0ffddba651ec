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
#: The smallest stake an open may fix: a game played for nothing is no staked match.
MIN_STAKE: Final = 1
MAX_DURATION: Final = 30 * 24 * 60 * 60
#: The on-chain setting naming the shortest challenge duration an ``open`` may fix (whole seconds).
MIN_CHALLENGE_SETTING: Final = "chips.min_challenge_seconds"
#: The floor when the setting is not set: the 300 s a publishing validator may run the clock ahead (BlockInfo's
#: sync tolerance), plus 300 s for a watchtower to see a challenge and have its answer committed.
DEFAULT_MIN_DURATION: Final = 600
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


def min_duration(value: str | None) -> int:
    """The shortest challenge duration an ``open`` may fix, from the value of :data:`MIN_CHALLENGE_SETTING`.

    No value is :data:`DEFAULT_MIN_DURATION`; one that is no whole number of seconds from
    :data:`MIN_DURATION` to :data:`MAX_DURATION` is a ``ValueError`` saying so.
    """
    if value is None:
        return DEFAULT_MIN_DURATION
    text = value.strip()
    if not (text.isascii() and text.isdigit() and MIN_DURATION <= int(text) <= MAX_DURATION):
        raise ValueError(
            f"the setting {MIN_CHALLENGE_SETTING} is {value[:20]!r}, not a whole number of seconds from {MIN_DURATION} "
            f"to {MAX_DURATION}: no channel can be opened until it is corrected"
        )
    return int(text)


def terms_problem(
    app: str, stake: int, deposits: tuple[int, int], duration: int, floor: int = MIN_DURATION
) -> str | None:
    """Why chips-tp refuses an open on these terms, whoever opens it with whom, where challenges last at least
    ``floor`` seconds; None when it opens them.

    Every check of an ``open`` that looks at its terms alone, in one place: the payload's bounds (with the
    parser's words) and the rules' relations. The processor applies it to every open (:func:`fixed_problem`),
    and every board of offers lists an offer only if its terms pass it, so nothing is listed that the chain
    would refuse to open.
    """
    try:
        canonical.choice(app, "'app'", APPS)
        canonical.whole_number(stake, "'stake'", MIN_STAKE, MAX_AMOUNT, " of chips")
        for deposit in deposits:
            canonical.whole_number(deposit, "a deposit", 0, MAX_AMOUNT, " of chips")
        canonical.whole_number(duration, "'duration'", MIN_DURATION, MAX_DURATION, " of seconds")
    except canonical.Malformed as error:
        return str(error)
    if duration < floor:
        return (
            f"a challenge duration of {duration} seconds is below this network's floor of {floor} (the setting "
            f"{MIN_CHALLENGE_SETTING}): a challenge that short could expire before a watchtower can answer it"
        )
    if min(deposits) < stake:
        return f"each deposit must cover the stake of {stake} chips; the deposits are {deposits[0]} and {deposits[1]}"
    if sum(deposits) > MAX_AMOUNT:
        return f"the deposits total more than {MAX_AMOUNT} chips (overflow)"
    return None


def fixed_problem(fixed: Fixed, floor: int = MIN_DURATION) -> str | None:
    """Why a channel cannot be opened with ``fixed`` where challenges last at least ``floor`` seconds, or None."""
    first, second = fixed.participants
    if first == second:
        return "a channel needs two different participants; the opponent is the opener's own key"
    return terms_problem(fixed.app, fixed.stake, fixed.deposits, fixed.duration, floor)


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
