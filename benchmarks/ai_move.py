"""Time the computer player's moves: ``perfect`` cold and warm, and every level over every position.

``perfect`` solves the game once per process (the solver's memo fills on the first
question) and then answers from the memo. This script measures that first, cold move
from the empty board (several times, clearing the memo in between), and then, warm,
one move by each level in every unfinished position play can reach, for the mark to
move. It prints one JSON line: per level the median ("typical") and the slowest
("worst") move in microseconds, plus the cold and warm empty-board figures.

    python benchmarks/ai_move.py [--cold-runs N] [--repeat N] [--smoke]
"""

import argparse
import json
import random
import statistics
import time

from xo_client.ai import Level, choose_move
from xo_tp import rules
from xo_tp.solver import solve


def unfinished_positions() -> list[tuple[str, str]]:
    """Every (board, mark to move) reachable from the empty board with a move still to make, by the rules."""
    seen, frontier = {rules.EMPTY_BOARD: rules.P1_NEXT}, [rules.new_game("bench")]
    while frontier:
        following = []
        for game in frontier:
            if game.state in rules.FINISHED_STATES:
                continue
            for index, cell in enumerate(game.board):
                if cell == rules.EMPTY:
                    child = rules.take(game._replace(player1="", player2=""), index + 1, "bench")
                    if child.board not in seen:
                        seen[child.board] = child.state
                        following.append(child)
        frontier = following
    return [(board, mark) for board, state in seen.items() if (mark := rules.mark_to_move(state)) is not None]


def time_move(board: str, mark: str, level: Level, rng: random.Random, repeat: int) -> float:
    """The fastest of ``repeat`` calls, in microseconds: the cost of the move without scheduling noise."""
    best = float("inf")
    for _ in range(repeat):
        started = time.perf_counter()
        choose_move(board, mark, rng, level)
        best = min(best, time.perf_counter() - started)
    return best * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cold-runs", type=int, default=5, help="cold empty-board moves (memo cleared before each)")
    parser.add_argument("--repeat", type=int, default=5, help="timings per position; the fastest counts")
    parser.add_argument("--smoke", action="store_true", help="one run, every 50th position: checks it still runs")
    args = parser.parse_args()
    if args.smoke:
        args.cold_runs, args.repeat = 1, 1
    rng = random.Random(0)

    cold = []
    for _ in range(args.cold_runs):
        solve.cache_clear()
        started = time.perf_counter()
        choose_move(rules.EMPTY_BOARD, rules.PLAYER_1_MARK, rng, Level.PERFECT)
        cold.append((time.perf_counter() - started) * 1e3)
    solved = solve.cache_info().currsize

    positions = unfinished_positions()[:: 50 if args.smoke else 1]
    report: dict[str, object] = {
        "benchmark": "ai_move",
        "positions": len(positions),
        "solved_positions": solved,
        "perfect_empty_board_cold_ms": round(statistics.median(cold), 1),
        "perfect_empty_board_warm_us": round(
            time_move(rules.EMPTY_BOARD, rules.PLAYER_1_MARK, Level.PERFECT, rng, args.repeat), 1
        ),
    }
    for level in Level:
        times = [time_move(board, mark, level, rng, args.repeat) for board, mark in positions]
        report[f"{level.value}_typical_us"] = round(statistics.median(times), 1)
        report[f"{level.value}_worst_us"] = round(max(times), 1)
    print(json.dumps(report))


if __name__ == "__main__":
    main()
