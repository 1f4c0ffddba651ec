"""The split of a tournament's pool by its prizes, exact to the chip. Pure.

Place k is paid the floor of pool x percentage / 100; what that leaves (the rounding,
and the shares of places nobody holds) goes to the first place, so the amounts always
add up to the pool.
"""

from collections.abc import Sequence


def split(pool: int, prizes: Sequence[int], places: int) -> list[int]:
    """What each of the first ``min(len(prizes), places)`` places is paid out of ``pool``, first place first."""
    if not prizes or places < 1:
        raise ValueError("a split needs a prize and a player")
    paid = [pool * share // 100 for share in prizes[:places]]
    paid[0] += pool - sum(paid)
    return paid
