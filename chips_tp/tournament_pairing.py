"""Seeding and the pairing of each round (Swiss and knockout), as the chain computes them. Pure and deterministic.

Players are their places in the seed order. Swiss pairs by points with Monrad's
adjacent pairing, never the same two twice, a bye to the lowest-placed player without
one; knockout fills a bracket in the standard seed order, byes to the top seeds. The
Swiss search is bounded (:data:`SEARCH_LIMIT` candidates), so the processor's work is.
"""

import hashlib
from collections.abc import Sequence
from typing import Final

from chips_tp.tournament import BYE, Pairing
from chips_tp.tournament_ranking import Rounds, knockout_winner, swiss_points
from xo_core import canonical

SEED_PURPOSE: Final = "chips/1.0 tournament seed"
#: The candidates (byes included) a Swiss search may try before it says the round cannot be paired.
SEARCH_LIMIT: Final = 100_000


def seed_order(name: str, draw: str, players: Sequence[str]) -> tuple[str, ...]:
    """``players`` in seed order: by the SHA-256 of ``["chips/1.0 tournament seed", name, draw, key]``."""
    return tuple(sorted(players, key=lambda key: hashlib.sha256(canonical.encode([SEED_PURPOSE, name, draw, key]))
                        .digest()))  # fmt: skip


class _Exhausted(Exception):
    """The search tried :data:`SEARCH_LIMIT` candidates."""


def swiss_round(players: int, rounds: Rounds, limit: int = SEARCH_LIMIT) -> tuple[Pairing, ...] | None:
    """The next Swiss round after ``rounds`` (byes last), or None when no pairing without a repeat was found."""
    points = swiss_points(players, rounds)
    order = sorted(range(players), key=lambda p: (-points[p], p))
    met = {frozenset((p.white, p.black)) for r in rounds for p in r if p.white is not None and p.black is not None}
    byes = {p.white for r in rounds for p in r if p.black is None and p.white is not None}
    whites = [0] * players
    for pairing in (p for r in rounds for p in r if p.black is not None and p.white is not None):
        whites[pairing.white] += 1  # type: ignore[index]
    budget = [limit]

    def spend() -> None:
        budget[0] -= 1
        if budget[0] < 0:
            raise _Exhausted

    def pair(unpaired: list[int]) -> list[tuple[int, int]] | None:
        if not unpaired:
            return []
        top, rest = unpaired[0], unpaired[1:]
        for other in rest:
            if frozenset((top, other)) in met:
                continue
            spend()
            below = pair([p for p in rest if p != other])
            if below is not None:
                return [(top, other), *below]
        return None

    try:
        if players % 2 == 0:
            found = pair(order)
            bye = None
        else:
            lowest_first = order[::-1]
            found, bye = None, None
            for candidate in [p for p in lowest_first if p not in byes] + [p for p in lowest_first if p in byes]:
                spend()
                found = pair([p for p in order if p != candidate])
                if found is not None:
                    bye = candidate
                    break
    except _Exhausted:
        return None
    if found is None:
        return None
    rank = {player: place for place, player in enumerate(order)}
    pairings = [_coloured(a, b, whites, rank) for a, b in found]
    return (*pairings, Pairing(bye, None, BYE)) if bye is not None else tuple(pairings)


def _coloured(first: int, second: int, whites: list[int], rank: dict[int, int]) -> Pairing:
    """White to the one of the two who has had white less often; equal, the higher in pairing order."""
    white, black = sorted((first, second), key=lambda p: (whites[p], rank[p]))
    return Pairing(white, black)


def bracket_order(size: int) -> list[int]:
    """Seeds 1..``size`` (a power of two) in bracket order: 1 and 2 meet only in the final (8: 1 8 4 5 2 7 3 6)."""
    order = [1]
    while len(order) < size:
        total = 2 * len(order) + 1
        order = [seed for first in order for seed in (first, total - first)]
    return order


def knockout_rounds(players: int) -> int:
    """The rounds of a knockout of ``players``: log2 of the smallest power of two not below it."""
    return max(1, (players - 1).bit_length())


def knockout_first_round(players: int) -> tuple[Pairing, ...]:
    """Round 1 of a knockout: the bracket filled by seed, the slots past the field empty (byes for the top seeds)."""
    slots = [seed - 1 if seed <= players else None for seed in bracket_order(1 << knockout_rounds(players))]
    return _pair_slots(slots)


def knockout_next_round(previous: Sequence[Pairing]) -> tuple[Pairing, ...]:
    """The next knockout round: the winners of ``previous`` (every result in), in order, paired two by two."""
    return _pair_slots([knockout_winner(pairing) for pairing in previous])


def _pair_slots(slots: list[int | None]) -> tuple[Pairing, ...]:
    pairings = []
    for first, second in zip(slots[::2], slots[1::2], strict=True):
        present = sorted(p for p in (first, second) if p is not None)
        if len(present) == 2:
            pairings.append(Pairing(present[0], present[1]))
        else:
            pairings.append(Pairing(present[0] if present else None, None, BYE))
    return tuple(pairings)
