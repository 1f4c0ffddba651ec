"""Standings of a tournament from its pairings alone: Swiss points and Buchholz, knockout rounds gone through.

Pure: the processor ranks for the payout with these functions and every client shows
the same table. Players are their places in the seed order, so the last tie-break, the
seed, is the player's number itself.
"""

from collections.abc import Sequence
from typing import Final, NamedTuple

from chips_tp.tournament import BLACK, BYE, DRAW, SWISS, WHITE, Pairing

#: Swiss points (whole numbers: a win is 2, so a draw needs no half point).
WIN_POINTS: Final = 2
DRAW_POINTS: Final = 1
BYE_POINTS: Final = 2

Rounds = Sequence[Sequence[Pairing]]


class Standing(NamedTuple):
    """One player's line: points (Swiss) or rounds gone through (knockout), then the tie-breaks."""

    player: int
    points: int
    buchholz: int
    wins: int


def swiss_points(players: int, rounds: Rounds) -> list[int]:
    """Each player's points after ``rounds``: a win 2, a draw 1, a bye 2, a loss or an unplayed pairing 0."""
    points = [0] * players
    for pairing in (p for r in rounds for p in r):
        for seat, player in ((WHITE, pairing.white), (BLACK, pairing.black)):
            if player is not None:
                points[player] += _points(pairing.result, seat)
    return points


def _points(result: str | None, seat: str) -> int:
    if result == seat:
        return WIN_POINTS
    if result == DRAW:
        return DRAW_POINTS
    return BYE_POINTS if result == BYE else 0


def wins(players: int, rounds: Rounds) -> list[int]:
    """How many pairings each player won on the board (byes not counted)."""
    won = [0] * players
    for pairing in (p for r in rounds for p in r):
        winner = pairing.white if pairing.result == WHITE else pairing.black if pairing.result == BLACK else None
        if winner is not None:
            won[winner] += 1
    return won


def swiss_standings(players: int, rounds: Rounds) -> list[Standing]:
    """The Swiss table: points, then Buchholz (the points of every opponent paired with the player), wins, seed."""
    points = swiss_points(players, rounds)
    buchholz = [0] * players
    for pairing in (p for r in rounds for p in r):
        if pairing.white is not None and pairing.black is not None:
            buchholz[pairing.white] += points[pairing.black]
            buchholz[pairing.black] += points[pairing.white]
    won = wins(players, rounds)
    lines = [Standing(p, points[p], buchholz[p], won[p]) for p in range(players)]
    return sorted(lines, key=lambda s: (-s.points, -s.buchholz, -s.wins, s.player))


def knockout_winner(pairing: Pairing) -> int | None:
    """Who goes through from a knockout pairing: the winner, black after a draw, the player with a bye, or nobody
    (an unplayed match, an empty slot)."""
    if pairing.result in (WHITE, BYE):
        return pairing.white
    if pairing.result in (BLACK, DRAW):
        return pairing.black
    return None


def knockout_standings(players: int, rounds: Rounds) -> list[Standing]:
    """The knockout table: rounds gone through (by a win or a bye), most first, then seed."""
    through = [0] * players
    for pairing in (p for r in rounds for p in r):
        winner = knockout_winner(pairing)
        if winner is not None:
            through[winner] += 1
    won = wins(players, rounds)
    lines = [Standing(p, through[p], 0, won[p]) for p in range(players)]
    return sorted(lines, key=lambda s: (-s.points, s.player))


def standings(format_name: str, players: int, rounds: Rounds) -> list[Standing]:
    """The table of a tournament of ``format_name``, best first."""
    return (swiss_standings if format_name == SWISS else knockout_standings)(players, rounds)
