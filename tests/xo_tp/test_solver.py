"""The memoised perfect-play solver against plain minimax over the string rules."""

import pytest

from tests.xo_tp import game_tree
from xo_tp import rules
from xo_tp.bitboard import Bitboard, from_board
from xo_tp.solver import DRAW, Result, move_results, rank, solve


def test_the_empty_board_is_a_draw_after_nine_moves():
    assert solve(Bitboard(0, 0), "X") == Result(DRAW, 9)


def test_a_win_on_the_next_move_takes_one_ply():
    assert solve(from_board("XX-OO----"), "X") == Result("X", 1)
    assert solve(from_board("XX-OO----"), "O") == Result("O", 1)


def test_a_fork_wins_in_three():
    # X on 1 and 9, O on 3 and 5 (threatening 7): X blocks on 7 and so threatens 4 and 8 at once.
    assert move_results(from_board("X-O-O---X"), "X")[7] == Result("X", 3)


def test_a_lost_position_is_lost_as_slowly_as_possible():
    # O cannot stop the fork X has (X on 1, 7, 9 threatens 4 and 8): one block, then X wins.
    assert solve(from_board("X-O-O-X-X"), "O") == Result("X", 2)


def test_solve_agrees_with_minimax_over_the_rules_on_every_reachable_position():
    for board, state in game_tree.reachable().items():
        mover = rules.mark_to_move(state)
        if mover is None:
            continue
        assert solve(from_board(board), mover).outcome == game_tree.perfect_outcome(board, state), board


def test_each_position_is_solved_once_the_memo_holds_every_unfinished_reachable_position():
    solve.cache_clear()
    solve(Bitboard(0, 0), "X")
    unfinished = sum(state not in rules.FINISHED_STATES for state in game_tree.reachable().values())
    assert solve.cache_info().currsize == unfinished == 4520
    hits = solve.cache_info().hits
    solve(Bitboard(0, 0), "X")
    assert solve.cache_info().hits == hits + 1


def test_rank_orders_win_fast_then_draw_then_lose_slow():
    results = [Result("O", 2), Result("X", 5), Result(DRAW, 4), Result("O", 6), Result("X", 1)]
    assert sorted(results, key=lambda result: rank(result, "X"), reverse=True) == [
        Result("X", 1), Result("X", 5), Result(DRAW, 4), Result("O", 6), Result("O", 2),
    ]  # fmt: skip


def test_a_full_board_has_nothing_to_solve():
    with pytest.raises(ValueError, match="full board"):
        solve(from_board("XOXXOOOXX"), "X")
