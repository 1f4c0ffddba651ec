"""``xo show --analyze`` in words and in JSON: the verdict first, the best moves from the mover's side."""

import json

from xo_client.analysis_view import analysis_lines, analyze, game_with_analysis_json, lines_text, spaces_text
from xo_client.games import Game
from xo_tp.family import game_address

ALICE, BOB = "02" + "a" * 64, "03" + "b" * 64


def game(board, state):
    return Game("g1", board, state, ALICE, BOB, game_address("g1"))


def test_spaces_are_given_in_both_notations():
    assert spaces_text([1, 9]) == "1 (A1), 9 (C3)"


def test_a_winning_position_names_the_winning_move_first():
    position = game("XX-OO----", "P1-NEXT")
    verdict, legal, lines = analysis_lines(position, analyze(position))
    assert verdict.startswith("With perfect play: X wins. Best moves: 3 (")
    assert legal.startswith("Legal moves: 3 (") and "9 (C3)" in legal
    assert lines == "Lines: none"


def test_the_empty_board_is_a_draw_every_move_keeps():
    position = game("---------", "P1-NEXT")
    verdict, _, _ = analysis_lines(position, analyze(position))
    assert verdict == "With perfect play: a draw. Every legal move keeps the draw"


def test_a_finished_game_says_its_result():
    position = game("XXXOO----", "P1-WIN")
    verdict, legal, lines = analysis_lines(position, analyze(position))
    assert verdict == "The game is over: X won."
    assert legal == "Legal moves: none"
    assert lines == "Lines: X has a line"


def test_both_lines_on_one_board_is_called_unreachable():
    assert "no game played by the rules can reach" in lines_text(["X", "O"])


def test_the_json_is_the_game_s_object_with_the_analysis_added():
    position = game("XX-OO----", "P1-NEXT")
    shown = json.loads(game_with_analysis_json(position, analyze(position)))
    assert shown["name"] == "g1" and shown["board"] == "XX-OO----"
    assert 3 in shown["analysis"]["best_moves"]
