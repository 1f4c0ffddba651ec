"""Perfect play: the result of every position when both players play their best, memoised.

Tic-tac-toe is small enough to solve outright. From the empty board play reaches 5,478
distinct positions (4,520 of them with a move still to make); :func:`solve` caches its
answer per position, so the first question costs one search of those and every later
one is a dictionary look-up.

The game tree searched is the one :func:`xo_tp.rules.take` defines, on any board: after
each move the board decides as :func:`xo_tp.rules.state_after_move` does -- a line for
one mark alone wins, otherwise a full board is a draw, otherwise play passes. So boards
that cannot arise in play (both marks in line, wrong mark counts, foreign state) get the
answer the rules would play out, not an error.

"Best" is: win rather than draw rather than lose; among wins the quickest, among losses
the slowest (make the opponent prove it). Draws end on a full board, so every draw from
a position takes the same number of moves.
"""

from __future__ import annotations

from functools import cache
from typing import Final, NamedTuple

from xo_tp.bitboard import FULL_BOARD, SPACES, Bitboard, bit, empty_spaces, has_won
from xo_tp.rules import PLAYER_1_MARK, PLAYER_2_MARK

DRAW: Final = "draw"


class Result(NamedTuple):
    """How a game ends from some position with perfect play.

    ``outcome`` is ``"X"``, ``"O"`` or ``"draw"``; ``plies`` counts the moves still to
    be made, the last (winning or filling) move included.
    """

    outcome: str
    plies: int


def verdict(position: Bitboard) -> str | None:
    """What the rules decide for a board just played: the sole mark with a line, a full board's draw, or None.

    A board on which both marks have a line (foreign state only) is, as in the rules,
    a draw if full and otherwise not decided.
    """
    crosses_won, noughts_won = has_won(position.crosses), has_won(position.noughts)
    if crosses_won != noughts_won:
        return PLAYER_1_MARK if crosses_won else PLAYER_2_MARK
    if position.crosses | position.noughts == FULL_BOARD:
        return DRAW
    return None


def rank(result: Result, mover: str) -> tuple[int, int]:
    """A sort key, higher is better for ``mover``: win > draw > loss, then win fast, lose slow."""
    if result.outcome == mover:
        return (1, -result.plies)
    if result.outcome == DRAW:
        return (0, 0)
    return (-1, result.plies)


def play(position: Bitboard, space: int, mover: str) -> Bitboard:
    """The board once ``mover`` has placed a mark on the (empty) ``space``."""
    if mover == PLAYER_1_MARK:
        return Bitboard(position.crosses | bit(space), position.noughts)
    return Bitboard(position.crosses, position.noughts | bit(space))


def other(mark: str) -> str:
    """The opponent's mark."""
    return PLAYER_2_MARK if mark == PLAYER_1_MARK else PLAYER_1_MARK


def move_results(position: Bitboard, mover: str) -> dict[int, Result]:
    """For each empty space (ascending), how the game ends with perfect play after ``mover`` takes it."""
    empty = empty_spaces(position)
    results = {}
    for space in SPACES:
        if empty & bit(space):
            after = play(position, space, mover)
            decided = verdict(after)
            if decided is None:
                outcome, plies = solve(after, other(mover))
                results[space] = Result(outcome, plies + 1)
            else:
                results[space] = Result(decided, 1)
    return results


@cache
def solve(position: Bitboard, mover: str) -> Result:
    """How the game ends with perfect play when ``mover`` is to move on ``position``.

    Memoised per (position, mover): ``solve.cache_info()`` tells how many positions
    have been solved. A full board has no move: ``ValueError``.
    """
    results = move_results(position, mover)
    if not results:
        raise ValueError("a full board has no move to solve")
    return max(results.values(), key=lambda result: rank(result, mover))
