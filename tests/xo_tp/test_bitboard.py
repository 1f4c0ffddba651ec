"""The ForceMove bitmask board: its bit order against our board string, and agreement with the string rules."""

from collections import Counter
from functools import cache

import pytest

from tests.xo_tp import game_tree
from xo_tp import rules
from xo_tp.bitboard import (
    BOTTOM_ROW,
    DOWNHILL_DIAGONAL,
    FULL_BOARD,
    LEFT_COLUMN,
    MIDDLE_COLUMN,
    MIDDLE_ROW,
    RIGHT_COLUMN,
    TOP_ROW,
    UPHILL_DIAGONAL,
    WIN_MASKS,
    Bitboard,
    bit,
    empty_spaces,
    from_board,
    has_won,
    spaces_of,
    to_board,
)
from xo_tp.solver import other, play, verdict


def test_space_1_top_left_is_the_high_bit_and_space_9_bottom_right_is_bit_1():
    # ForceMove: cell index i (0..8, row by row) is 2**(8 - i); our space s is index s - 1.
    assert [bit(space) for space in range(1, 10)] == [256, 128, 64, 32, 16, 8, 4, 2, 1]


def test_forcemoves_example_reads_as_its_picture():
    # The ForceMove comment: noughts = 1 (bottom right), crosses = 128 (top middle).
    assert to_board(Bitboard(crosses=128, noughts=1)) == "-X------O"
    assert from_board("-X------O") == Bitboard(128, 1)


@pytest.mark.parametrize(
    ("mask", "spaces"),
    [
        (TOP_ROW, (1, 2, 3)),
        (MIDDLE_ROW, (4, 5, 6)),
        (BOTTOM_ROW, (7, 8, 9)),
        (LEFT_COLUMN, (1, 4, 7)),
        (MIDDLE_COLUMN, (2, 5, 8)),
        (RIGHT_COLUMN, (3, 6, 9)),
        (DOWNHILL_DIAGONAL, (1, 5, 9)),
        (UPHILL_DIAGONAL, (3, 5, 7)),
    ],
)
def test_each_forcemove_win_mask_is_the_line_its_name_says(mask, spaces):
    assert spaces_of(mask) == spaces


def test_the_win_masks_are_exactly_the_rules_lines():
    assert WIN_MASKS == (448, 56, 7, 292, 146, 73, 273, 84)
    lines = {tuple(index + 1 for index in line) for line in rules.LINES}
    assert {spaces_of(mask) for mask in WIN_MASKS} == lines
    assert spaces_of(FULL_BOARD) == tuple(range(1, 10))


def test_has_won_is_true_exactly_when_the_marks_cover_a_win_mask_whatever_else_they_hold():
    for marks in range(-FULL_BOARD - 1, 4 * (FULL_BOARD + 1)):  # any 9 bits, and bits beyond them
        assert has_won(marks) == any(marks & mask == mask for mask in WIN_MASKS), marks


def test_every_reachable_board_round_trips_and_its_lines_agree_with_the_rules():
    boards = game_tree.reachable()
    for board, state in boards.items():
        position = from_board(board)
        assert to_board(position) == board
        assert position.crosses & position.noughts == 0
        assert spaces_of(empty_spaces(position)) == tuple(i + 1 for i, cell in enumerate(board) if cell == "-")
        lines = rules.winners(board)
        assert has_won(position.crosses) == ("X" in lines), board
        assert has_won(position.noughts) == ("O" in lines), board
        decided = verdict(position)
        assert (decided is not None) == (state in rules.FINISHED_STATES), board
        if decided is not None:
            assert decided == game_tree.RESULT[state], board


def test_verdict_on_foreign_boards_follows_state_after_move():
    # Both marks in line: the rules call a full board a tie and otherwise play on.
    assert verdict(from_board("XXXOOO---")) is None
    assert verdict(from_board("XXXOOOXOX")) == "draw"
    assert rules.state_after_move("XXXOOOXOX", rules.P1_NEXT) == rules.TIE


@cache
def bitboard_games(position: Bitboard, mover: str) -> tuple[frozenset[Bitboard], int]:
    """Positions reachable from ``position`` (itself included) and the number of complete games, with masks only."""
    if verdict(position) is not None:
        return frozenset({position}), 1
    seen, games = {position}, 0
    for space in spaces_of(empty_spaces(position)):
        below, count = bitboard_games(play(position, space, mover), other(mover))
        seen |= below
        games += count
    return frozenset(seen), games


def test_the_bitboard_and_the_string_rules_reach_the_same_5478_positions_and_255168_games():
    # Two walks: breadth first over rules.take on strings, depth first over masks.
    # 5,478 positions and 255,168 complete games are the well-known size of the tic-tac-toe tree.
    positions, games = bitboard_games(Bitboard(0, 0), "X")
    reachable = game_tree.reachable()
    assert {to_board(position) for position in positions} == set(reachable)
    assert len(positions) == len(reachable) == 5478
    assert games == game_tree.complete_games() == 255168
    finished = Counter(state for state in reachable.values() if state in rules.FINISHED_STATES)
    assert finished == {rules.P1_WIN: 626, rules.P2_WIN: 316, rules.TIE: 16}
