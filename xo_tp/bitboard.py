"""The board as two 9-bit masks, one per mark, the way the ForceMove TicTacToe contract holds it.

Searching the game tree with strings means slicing and comparing characters at every
node; with one integer per mark, placing a mark is an ``|`` and testing a line is an
``&`` and a compare. The solver (:mod:`xo_tp.solver`) works on these masks.

Bit order: ForceMove numbers the cells 0..8 row by row from the top left and gives cell
``i`` the bit ``2**(8 - i)``, so the *top-left* cell is the *high* bit (256) and the
bottom-right cell is bit 1. Our spaces are numbered 1..9 the same way (space ``s`` is
board-string index ``s - 1``), so space ``s`` is bit ``2**(9 - s)``: space 1 -> 256,
space 5 (centre) -> 16, space 9 -> 1. With that order ForceMove's win masks read as
written: 448 = 0b111000000 is the top row (spaces 1, 2, 3), 292 = 0b100100100 the left
column (1, 4, 7), 273 the diagonal 1-5-9 and 84 the diagonal 3-5-7.

These functions hold no rules of their own beyond "three in a line": what a line means
for the game state is :mod:`xo_tp.rules`'s, and ``tests/xo_tp/test_bitboard.py`` checks
on every reachable board that the two agree.
"""

from __future__ import annotations

from typing import Final, NamedTuple

from xo_tp.rules import BOARD_LENGTH, EMPTY, PLAYER_1_MARK, PLAYER_2_MARK

TOP_ROW: Final = 448  # 0b111000000: spaces 1 2 3
MIDDLE_ROW: Final = 56  # 0b000111000: spaces 4 5 6
BOTTOM_ROW: Final = 7  # 0b000000111: spaces 7 8 9
LEFT_COLUMN: Final = 292  # 0b100100100: spaces 1 4 7
MIDDLE_COLUMN: Final = 146  # 0b010010010: spaces 2 5 8
RIGHT_COLUMN: Final = 73  # 0b001001001: spaces 3 6 9
DOWNHILL_DIAGONAL: Final = 273  # 0b100010001: spaces 1 5 9
UPHILL_DIAGONAL: Final = 84  # 0b001010100: spaces 3 5 7
#: ForceMove's eight win masks, in its order.
WIN_MASKS: Final = (
    TOP_ROW, MIDDLE_ROW, BOTTOM_ROW, LEFT_COLUMN, MIDDLE_COLUMN, RIGHT_COLUMN, DOWNHILL_DIAGONAL, UPHILL_DIAGONAL,
)  # fmt: skip
FULL_BOARD: Final = 511  # 0b111111111
#: Spaces 1..9.
SPACES: Final = tuple(range(1, BOARD_LENGTH + 1))


class Bitboard(NamedTuple):
    """A board as two disjoint masks: the spaces holding ``X`` (crosses) and those holding ``O`` (noughts)."""

    crosses: int
    noughts: int


def bit(space: int) -> int:
    """The mask of one space (1..9): ForceMove's ``2**(8 - index)`` with ``index = space - 1``."""
    return 1 << (BOARD_LENGTH - space)


def spaces_of(mask: int) -> tuple[int, ...]:
    """The spaces (1..9, ascending) whose bits are set in ``mask``."""
    return tuple(space for space in SPACES if mask & bit(space))


def from_board(board: str) -> Bitboard:
    """The masks of a 9-character board string (``X``, ``O``, ``-``)."""
    crosses = noughts = 0
    for space, cell in zip(SPACES, board, strict=True):
        if cell == PLAYER_1_MARK:
            crosses |= bit(space)
        elif cell == PLAYER_2_MARK:
            noughts |= bit(space)
    return Bitboard(crosses, noughts)


def to_board(position: Bitboard) -> str:
    """The board string of two masks; the inverse of :func:`from_board`."""
    return "".join(
        PLAYER_1_MARK if position.crosses & bit(space) else PLAYER_2_MARK if position.noughts & bit(space) else EMPTY
        for space in SPACES
    )


def _fills_a_line(marks: int) -> bool:
    return any(marks & mask == mask for mask in WIN_MASKS)


#: The 9-bit masks that fill some line, found once: the solver and the chips XO app ask millions of times.
_WINNING: Final = frozenset(marks for marks in range(FULL_BOARD + 1) if _fills_a_line(marks))


def has_won(marks: int) -> bool:
    """Whether ``marks`` fill some row, column or diagonal (ForceMove's ``hasWon``); a line is within the 9 bits."""
    return marks & FULL_BOARD in _WINNING


def empty_spaces(position: Bitboard) -> int:
    """The mask of the spaces no mark holds."""
    return FULL_BOARD & ~(position.crosses | position.noughts)
