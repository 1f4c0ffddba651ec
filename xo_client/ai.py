"""The computer player: a board and the mark to play in, in; a space (1-9), out. Pure, no I/O.

Three levels, each a set of moves it considers equally good, from which a
``random.Random`` picks -- so a seeded generator replays a game move for move:

- ``perfect`` (the default): a move with the best perfect-play result (:mod:`xo_tp.solver`):
  win rather than draw rather than lose, the quickest win, the slowest loss. It never
  loses, from any position, as X or as O, and converts every forced win an opponent's
  mistake hands it (``tests/xo_client/test_ai.py`` proves both over the whole game tree).
- ``heuristic``: line-based, in the spirit of the reference AI of the Aries Tic Tac Toe
  Protocol: for each side find the open lines (no opposing mark) closest to complete,
  preferring lines through the centre; play where my best line crosses theirs, else on
  my line if I am at least as close to finishing as they are, else on theirs (which
  wins, or blocks, when a line is one move from complete); always the centre when it is
  a candidate. It looks one line ahead and no further, so a fork beats it as O; as X,
  opening in the centre, it happens never to lose (the tests check both over the tree).
- ``random``: any legal move.

The caller says which mark the computer plays; it must be that mark's turn on a board
that is not over (a sole line or a full board), otherwise ``ValueError``.
"""

from __future__ import annotations

import random
from enum import StrEnum
from typing import Final, NamedTuple

from xo_tp import rules
from xo_tp.analysis import check_position
from xo_tp.bitboard import from_board
from xo_tp.solver import move_results, other, rank

#: The centre, as a board-string index: the reference AI's favourite cell.
CENTRE: Final = 4


class Level(StrEnum):
    """How well the computer plays."""

    PERFECT = "perfect"
    HEURISTIC = "heuristic"
    RANDOM = "random"


DEFAULT_LEVEL: Final = Level.PERFECT


def state_to_move(board: str, mark: str) -> str:
    """The game state in which ``mark`` moves on ``board``; ``ValueError`` if that cannot be asked."""
    if mark not in (rules.PLAYER_1_MARK, rules.PLAYER_2_MARK):
        raise ValueError(f"{mark!r} is not a mark: X or O")
    state = rules.P1_NEXT if mark == rules.PLAYER_1_MARK else rules.P2_NEXT
    check_position(board, state)
    if rules.state_after_move(board, state) in rules.FINISHED_STATES:
        raise ValueError(f"the game on {board} is over: there is no move to choose")
    return state


def solve_every_position() -> None:
    """Solve the game from its empty board now (50 to 90 ms, once a process): every later perfect move is a look-up."""
    perfect_choices(rules.EMPTY * rules.BOARD_LENGTH, rules.PLAYER_1_MARK)


def perfect_choices(board: str, mark: str) -> tuple[int, ...]:
    """The spaces with the best perfect-play result for ``mark``, ascending."""
    state_to_move(board, mark)
    results = move_results(from_board(board), mark)
    best = max(rank(result, mark) for result in results.values())
    return tuple(space for space, result in results.items() if rank(result, mark) == best)


class Reach(NamedTuple):
    """One side's open lines closest to complete: how many marks they still need, and the lines."""

    need: int
    lines: tuple[tuple[int, int, int], ...]


def moves_needed(line: tuple[int, int, int], board: str, mark: str) -> int | None:
    """How many more marks ``mark`` needs to fill ``line``; None once the other mark holds a cell of it."""
    if any(board[index] == other(mark) for index in line):
        return None
    return sum(board[index] == rules.EMPTY for index in line)


def closest_lines(board: str, mark: str) -> Reach | None:
    """The open lines ``mark`` is closest to completing (those through the centre, if any); None if none is open."""
    open_lines = [(need, line) for line in rules.LINES if (need := moves_needed(line, board, mark)) is not None]
    if not open_lines:
        return None
    fewest = min(need for need, _ in open_lines)
    closest = tuple(line for need, line in open_lines if need == fewest)
    through_centre = tuple(line for line in closest if CENTRE in line)
    return Reach(fewest, through_centre or closest)


def heuristic_choices(board: str, mark: str) -> tuple[int, ...]:
    """The spaces the line-based heuristic considers for ``mark``, ascending (see the module docstring)."""
    state_to_move(board, mark)
    empty = {index for index, cell in enumerate(board) if cell == rules.EMPTY}
    mine, theirs = closest_lines(board, mark), closest_lines(board, other(mark))

    def cells(reach: Reach | None) -> set[int]:
        return {index for line in reach.lines for index in line} & empty if reach else set()

    candidates = cells(mine) & cells(theirs)
    if not candidates and mine and (theirs is None or mine.need <= theirs.need):
        candidates = cells(mine)
    if not candidates:
        candidates = cells(theirs) or empty
    if CENTRE in candidates:
        return (CENTRE + 1,)
    return tuple(sorted(index + 1 for index in candidates))


def random_choices(board: str, mark: str) -> tuple[int, ...]:
    """Every empty space, ascending."""
    state_to_move(board, mark)
    return tuple(index + 1 for index, cell in enumerate(board) if cell == rules.EMPTY)


CHOICES: Final = {
    Level.PERFECT: perfect_choices,
    Level.HEURISTIC: heuristic_choices,
    Level.RANDOM: random_choices,
}


def choices(board: str, mark: str, level: Level = DEFAULT_LEVEL) -> tuple[int, ...]:
    """The spaces ``level`` considers equally good for ``mark`` on ``board``, ascending; never empty."""
    return CHOICES[Level(level)](board, mark)


def choose_move(board: str, mark: str, rng: random.Random, level: Level = DEFAULT_LEVEL) -> int:
    """The space (1-9) the computer plays as ``mark`` on ``board``: one of :func:`choices`, picked by ``rng``.

    Give each game one ``random.Random(seed)`` and the same seed replays the same game
    against the same moves.
    """
    return rng.choice(choices(board, mark, level))
