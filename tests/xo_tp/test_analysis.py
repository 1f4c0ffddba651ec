"""Board analysis: winners, legal moves, perfect-play outcome and best moves, as the rules decide them."""

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.xo_tp import game_tree
from xo_client.games import Game as ClientGame
from xo_tp import rules
from xo_tp.analysis import Analysis, analyze, analyze_game, legal_moves, winners

ANY_BOARD = st.text(alphabet=rules.MARKS, min_size=9, max_size=9)
ANY_STATE = st.sampled_from(sorted(rules.GAME_STATES))


def test_the_empty_board_is_a_draw_and_every_first_move_keeps_it():
    assert analyze(rules.EMPTY_BOARD, rules.P1_NEXT) == Analysis(
        winners=(), legal_moves=tuple(range(1, 10)), outcome="draw", best_moves=tuple(range(1, 10))
    )


def test_after_a_corner_only_the_centre_holds_the_draw():
    assert analyze("X--------", rules.P2_NEXT).best_moves == (5,)


def test_best_moves_put_the_quickest_win_first():
    # X has 1 and 5, O has 2 and 7: 9 wins at once, 4 and 6 fork and win two moves later, 3 and 8 only draw.
    analysis = analyze("XO--X-O--", rules.P1_NEXT)
    assert analysis.outcome == "X"
    assert analysis.best_moves == (9, 4, 6)
    assert analysis.legal_moves == (3, 4, 6, 8, 9)


def test_best_moves_put_the_slowest_loss_first():
    # O to move, X on 1 and 5 threatening 9: blocking on 9 loses two moves later (X forks), anything else at once.
    analysis = analyze("XO--X----", rules.P2_NEXT)
    assert analysis.outcome == "X"
    assert analysis.best_moves == (9, 3, 4, 6, 7, 8)


def test_a_finished_game_has_no_moves_and_its_result_as_outcome():
    assert analyze("XXXOO----", rules.P1_WIN) == Analysis(("X",), (), "X", ())
    assert analyze("XX-OOOX--", rules.P2_WIN) == Analysis(("O",), (), "O", ())
    assert analyze("XOXXOOOXX", rules.TIE) == Analysis((), (), "draw", ())


def test_both_marks_in_line_are_both_winners_and_play_goes_on_as_the_rules_say():
    # Foreign state only: the rules play on while the board has space (see state_after_move).
    analysis = analyze("XXXOOO---", rules.P1_NEXT)
    assert analysis.winners == ("X", "O")
    assert analysis.legal_moves == (7, 8, 9)
    assert analysis.outcome == "draw"  # each later board still has both lines: play ends on a full board


def test_a_line_the_state_ignores_decides_at_the_next_move():
    # Foreign state: X has a line, yet the state says O moves. Any move leaving X alone in line
    # loses at once; 4 gives O a line too, and with both in line the rules play on to a full board.
    analysis = analyze("XXX-OO---", rules.P2_NEXT)
    assert analysis.legal_moves == (4, 7, 8, 9)
    assert analysis.outcome == "draw"
    assert analysis.best_moves == (4,)


def test_a_full_board_whose_state_names_a_mover_has_no_move_and_the_boards_verdict():
    assert analyze("XOXXOOOXX", rules.P1_NEXT) == Analysis((), (), "draw", ())
    assert analyze("XXXOOXOXO", rules.P2_NEXT) == Analysis(("X",), (), "X", ())


def test_whose_turn_comes_from_the_state_not_from_counting_marks():
    # Three Xs and no O, O to move: impossible in play, answered as the rules would play it.
    assert analyze("XXX------", rules.P2_NEXT).legal_moves == (4, 5, 6, 7, 8, 9)
    assert analyze("X--------", rules.P1_NEXT).outcome == "X"  # X simply moves twice in a row


@pytest.mark.parametrize(
    ("board", "state", "message"),
    [
        ("XO", rules.P1_NEXT, "not a board"),
        ("XO-xo-XO-", rules.P1_NEXT, "not a board"),
        (rules.EMPTY_BOARD, "P3-NEXT", "not a game state"),
    ],
)
def test_values_the_rules_cannot_hold_are_refused(board, state, message):
    with pytest.raises(ValueError, match=message):
        analyze(board, state)


def test_the_json_shape_is_lists_and_strings():
    analysis = analyze("XO--X-O--", rules.P1_NEXT)
    assert json.loads(json.dumps(analysis.as_json())) == {
        "winners": [],
        "legal_moves": [3, 4, 6, 8, 9],
        "outcome": "X",
        "best_moves": [9, 4, 6],
    }
    assert analyze("XXXOO----", rules.P1_WIN).as_json() == {
        "winners": ["X"], "legal_moves": [], "outcome": "X", "best_moves": [],
    }  # fmt: skip


def test_games_as_the_processor_and_the_client_hold_them_are_analysed_alike():
    processor_game = rules.Game("g1", "X--------", rules.P2_NEXT, "02" + "a" * 64, "")
    client_game = ClientGame(*processor_game, address="5b7349" + "0" * 64)
    assert analyze_game(processor_game) == analyze_game(client_game) == analyze("X--------", rules.P2_NEXT)


def check_against_the_rules(board: str, state: str) -> None:
    analysis = analyze(board, state)
    game = game_tree.start(board, state)
    assert analysis.winners == tuple(mark for mark in "XO" if mark in rules.winners(board)) == winners(board)
    assert list(analysis.legal_moves) == game_tree.accepted_moves(game) == list(legal_moves(board, state))
    assert analysis.outcome == game_tree.perfect_outcome(board, state)
    assert set(analysis.best_moves) == {
        space
        for space in analysis.legal_moves
        if game_tree.perfect_outcome(*game_tree.after(game, space)[1:3]) == analysis.outcome
    }
    assert (analysis.best_moves == ()) == (analysis.legal_moves == ())


def test_every_reachable_position_agrees_with_the_rules_and_minimax():
    for board, state in game_tree.reachable().items():
        check_against_the_rules(board, state)


@settings(max_examples=300, deadline=None)
@given(ANY_BOARD, ANY_STATE)
def test_any_board_in_any_state_agrees_with_the_rules_and_minimax(board, state):
    check_against_the_rules(board, state)
