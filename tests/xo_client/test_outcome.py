"""A finished XO game's ending in one sentence, the winner named as the key directory names them."""

from client_core.keys import KeyNames
from xo_client.games import Game
from xo_client.outcome import outcome_text
from xo_tp.family import game_address

ALICE, BOB = "02" + "a" * 64, "03" + "b" * 64
NAMES = KeyNames({ALICE: "alice"})


def game(board, state):
    return Game("g1", board, state, ALICE, BOB, game_address("g1"))


def test_a_win_names_the_winner_by_mark_seat_and_name():
    text = outcome_text(game("XXXOO----", "P1-WIN"), NAMES)
    assert text.startswith("X won (player 1: alice")
    assert ALICE[:6] in text


def test_player_two_s_win_without_a_name_shows_the_key():
    text = outcome_text(game("XX-OOOX--", "P2-WIN"))
    assert text.startswith("O won (player 2: ")
    assert BOB[:6] in text and "alice" not in text


def test_a_tie_and_a_game_in_play():
    assert outcome_text(game("XOXXOOOXX", "TIE")) == "a tie (the board is full, nobody won)"
    assert outcome_text(game("----X----", "P2-NEXT")) is None
