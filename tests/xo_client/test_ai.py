"""The computer player: ``perfect`` proved over the whole game tree, ``heuristic`` beatable, ``random`` legal.

The proof plays the AI against *every* sequence of opponent moves, and lets the AI play
*every* move it might pick (each of its equally good choices), so it holds for every seed.
Game ends are decided by ``xo_tp.rules`` and "forced win" by the plain minimax of
``tests/xo_tp/game_tree.py``, not by the solver the AI itself uses.
"""

import random
from collections import Counter
from functools import cache
from typing import NamedTuple

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.xo_tp import game_tree
from xo_client.ai import DEFAULT_LEVEL, Level, choices, choose_move, heuristic_choices, perfect_choices
from xo_tp import rules


class Explored(NamedTuple):
    outcomes: frozenset[str]  # how the games below can end
    positions: frozenset[str]  # boards reached, this one included
    games: int  # distinct move sequences from here to a game end


def moves_in(game: rules.Game, ai: str, level: Level) -> list[int]:
    """Every move the AI might pick (any seed) when it is to move, every legal move otherwise."""
    if rules.mark_to_move(game.state) == ai:
        return list(choices(game.board, ai, level))
    return game_tree.accepted_moves(game)


@cache
def explore(board: str, state: str, ai: str, level: Level = Level.PERFECT) -> Explored:
    """Depth first, memoised per position: the AI (``ai``, playing ``level``) against every opponent."""
    if state in rules.FINISHED_STATES:
        return Explored(frozenset({game_tree.RESULT[state]}), frozenset({board}), 1)
    game = game_tree.start(board, state)
    below = [explore(*game_tree.after(game, space)[1:3], ai, level) for space in moves_in(game, ai, level)]
    return Explored(
        frozenset().union(*(part.outcomes for part in below)),
        frozenset({board}).union(*(part.positions for part in below)),
        sum(part.games for part in below),
    )


def explore_forward(ai: str) -> tuple[int, int]:
    """Breadth first from the empty board, counting move orders per position: (positions, complete games)."""
    layer = Counter({game_tree.start(): 1})
    positions, games = set(), 0
    while layer:
        following: Counter[rules.Game] = Counter()
        for game, paths in layer.items():
            positions.add(game.board)
            if game.state in rules.FINISHED_STATES:
                games += paths
                continue
            for space in moves_in(game, ai, Level.PERFECT):
                following[game_tree.after(game, space)] += paths
        layer = following
    return len(positions), games


@pytest.mark.parametrize(
    ("ai", "positions", "games"),
    [
        # As X the AI may open anywhere (every first move draws), so it meets more positions.
        ("X", 3406, 10640),
        ("O", 1914, 6112),
    ],
)
def test_perfect_never_loses_from_the_empty_board_against_every_sequence(ai, positions, games):
    explored = explore(rules.EMPTY_BOARD, rules.P1_NEXT, ai)
    opponent = "O" if ai == "X" else "X"
    assert opponent not in explored.outcomes
    assert explored.outcomes == {ai, "draw"}  # it wins whenever the opponent lets it
    # The size of the proof, counted two independent ways: memoised depth first, and breadth
    # first with path multiplicities. Pinned so that a change in the AI's choices shows here.
    assert (len(explored.positions), explored.games) == explore_forward(ai) == (positions, games)


@pytest.mark.parametrize("ai", ["X", "O"])
def test_perfect_never_does_worse_than_perfect_play_from_any_reachable_position(ai):
    # From every position play can reach (the AI's turn or not), every game the AI then plays
    # ends at least as well for it as minimax says the position is worth: it never loses a
    # position that is not already lost, and it converts every forced win a mistake handed it.
    checked = 0
    for board, state in game_tree.reachable().items():
        if state in rules.FINISHED_STATES:
            continue
        worth = game_tree.value(game_tree.perfect_outcome(board, state), ai)
        outcomes = explore(board, state, ai).outcomes
        assert min(game_tree.value(outcome, ai) for outcome in outcomes) >= worth, (board, state)
        if worth == 1:
            assert outcomes == {ai}, (board, state)
        checked += 1
    assert checked == 4520  # every unfinished reachable position (see tests/xo_tp/test_solver.py)


def test_perfect_takes_the_quickest_win():
    # X has 1 and 5, O has 2 and 7: 9 wins now; 4 and 6 also win, but later.
    assert perfect_choices("XO--X-O--", "X") == (9,)


def test_perfect_opens_anywhere_and_answers_a_corner_with_the_centre():
    assert perfect_choices(rules.EMPTY_BOARD, "X") == tuple(range(1, 10))
    assert perfect_choices("X--------", "O") == (5,)


def test_the_default_level_is_perfect():
    assert DEFAULT_LEVEL is Level.PERFECT
    assert choices("X--------", "O") == (5,)


def play_game(x_player, o_player) -> str:
    """Play a whole game between two ``board, mark -> space`` functions; return the final board."""
    game = game_tree.start()
    while game.state not in rules.FINISHED_STATES:
        mover = rules.mark_to_move(game.state)
        space = (x_player if mover == "X" else o_player)(game.board, mover)
        game = game_tree.after(game, space)
    return game.board


def seeded(level: Level, seed: int):
    rng = random.Random(seed)
    return lambda board, mark: choose_move(board, mark, rng, level)


@pytest.mark.parametrize("level", list(Level))
def test_a_seed_replays_the_same_game(level):
    first = play_game(seeded(level, 7), seeded(Level.RANDOM, 8))
    again = play_game(seeded(level, 7), seeded(Level.RANDOM, 8))
    assert first == again
    boards = {play_game(seeded(level, seed), seeded(Level.RANDOM, seed + 1000)) for seed in range(20)}
    assert len(boards) > 1  # the seed matters: choices among equals vary


def test_choose_move_picks_among_the_choices():
    rng = random.Random(1)
    picked = {choose_move(rules.EMPTY_BOARD, "X", rng) for _ in range(200)}
    assert picked == set(range(1, 10))


# The heuristic as O, beaten by the classic double corner: X takes opposite corners, the
# heuristic (centre first) answers the second corner with the third corner -- one of its
# choices -- and must then block on 7, handing X the fork 4/8.
BEATING_GAME = [("X", 1), ("O", 5), ("X", 9), ("O", 3), ("X", 7), ("O", 8), ("X", 4)]


def test_heuristic_is_beatable_by_a_fork():
    game = game_tree.start()
    for mark, space in BEATING_GAME:
        if mark == "O":
            assert space in heuristic_choices(game.board, "O"), (game.board, space)
        game = game_tree.after(game, space)
    assert game.state == rules.P1_WIN


def test_some_seed_makes_the_heuristic_fall_for_the_fork():
    for seed in range(50):
        rng, game = random.Random(seed), game_tree.start()
        for mark, space in BEATING_GAME:
            if mark == "O" and choose_move(game.board, "O", rng, Level.HEURISTIC) != space:
                break
            game = game_tree.after(game, space)
        else:
            assert game.state == rules.P1_WIN
            return
    pytest.fail("no seed in 0..49 made the heuristic play into the fork")


def test_heuristic_as_o_can_lose_but_as_x_never_does():
    # Against every opponent sequence and every choice it might make: as O a fork can beat it;
    # as X, opening in the centre and playing line by line, it never loses.
    assert "X" in explore(rules.EMPTY_BOARD, rules.P1_NEXT, "O", Level.HEURISTIC).outcomes
    assert explore(rules.EMPTY_BOARD, rules.P1_NEXT, "X", Level.HEURISTIC).outcomes == {"X", "draw"}


def unfinished_positions():
    for board, state in game_tree.reachable().items():
        mark = rules.mark_to_move(state)
        if mark is not None:
            yield board, mark


@pytest.mark.parametrize("level", list(Level))
def test_every_level_offers_only_legal_moves_in_every_reachable_position(level):
    for board, mark in unfinished_positions():
        offered = choices(board, mark, level)
        state = rules.P1_NEXT if mark == "X" else rules.P2_NEXT
        assert offered, board
        assert set(offered) <= set(game_tree.accepted_moves(game_tree.start(board, state))), board


def test_heuristic_wins_when_it_can_and_blocks_when_it_must():
    for board, mark in unfinished_positions():
        opponent = "O" if mark == "X" else "X"
        wins = {space for space in range(1, 10) if board[space - 1] == "-" and wins_with(board, mark, space)}
        threats = {space for space in range(1, 10) if board[space - 1] == "-" and wins_with(board, opponent, space)}
        offered = set(heuristic_choices(board, mark))
        if wins:
            assert offered <= wins, board
        elif threats:
            assert offered <= threats, board


def wins_with(board: str, mark: str, space: int) -> bool:
    return mark in rules.winners(board[: space - 1] + mark + board[space:])


def test_random_offers_every_empty_space():
    assert choices("XO--X-O--", "X", Level.RANDOM) == (3, 4, 6, 8, 9)


@pytest.mark.parametrize(
    ("board", "mark", "message"),
    [
        ("XXXOO----", "O", "over"),
        ("XOXXOOOXX", "X", "over"),
        ("---------", "x", "not a mark"),
        ("---------", "", "not a mark"),
        ("XO", "X", "not a board"),
    ],
)
@pytest.mark.parametrize("level", list(Level))
def test_no_move_is_chosen_where_there_is_none(board, mark, message, level):
    with pytest.raises(ValueError, match=message):
        choose_move(board, mark, random.Random(0), level)


def test_levels_are_named_for_the_command_line():
    assert [level.value for level in Level] == ["perfect", "heuristic", "random"]
    assert Level("heuristic") is Level.HEURISTIC


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=rules.MARKS, min_size=9, max_size=9), st.sampled_from("XO"), st.sampled_from(list(Level)))
def test_any_board_gets_a_legal_move_or_a_clear_refusal(board, mark, level):
    # Foreign boards included: wrong counts, both marks in line.
    try:
        space = choose_move(board, mark, random.Random(0), level)
    except ValueError as refusal:
        assert "over" in str(refusal)
        assert rules.state_after_move(board, rules.P1_NEXT) in rules.FINISHED_STATES
    else:
        assert board[space - 1] == rules.EMPTY
