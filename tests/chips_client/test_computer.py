"""The computer's player: its one-off work done before the first move, when asked to be ready."""

from __future__ import annotations

from chips_client.computer import Computer
from xo_tp.solver import solve


def test_a_ready_perfect_player_has_solved_the_game_so_its_first_move_solves_nothing() -> None:
    solve.cache_clear()
    computer = Computer("perfect").ready()
    solved = solve.cache_info().currsize
    assert solved > 4000  # every position reachable from the empty board, X to move first
    assert computer.xo_space("---------", "X") in range(1, 10)
    assert solve.cache_info().currsize == solved and solve.cache_info().misses == solved


def test_the_other_levels_have_nothing_to_prepare() -> None:
    solve.cache_clear()
    Computer("random").ready()
    Computer("heuristic").ready()
    assert solve.cache_info().currsize == 0
