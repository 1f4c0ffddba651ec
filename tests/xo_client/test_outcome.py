"""An XO game in words: its ending, the winner named as the key directory names them; how it stands; the mover's
mark; the board in grid notation."""

from client_core.keys import KeyNames
from xo_client.games import Game
from xo_client.notation import board_in_grid
from xo_client.outcome import mover_text, outcome_text, state_words
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


def test_how_a_game_stands_in_words_never_the_spec_s():
    said = [
        state_words(game("----X----", "P2-NEXT"), NAMES),
        state_words(game("O---X----", "P1-NEXT"), NAMES),
        state_words(game("XX-OOOX--", "P2-WIN"), NAMES),
        state_words(game("XOXXOOOXX", "TIE"), NAMES),
        state_words(Game("g2", "X--------", "P2-NEXT", ALICE, "", game_address("g2")), NAMES),
    ]
    assert said == ["03bbbb... (O) to move", "alice (X) to move", "03bbbb... (O) won", "a tie", "O to move (open seat)"]
    assert not any(spec in " ".join(said) for spec in ("NEXT", "WIN", "TIE", "---"))


def test_a_mover_is_told_the_mark_they_play_while_the_game_goes_on():
    assert mover_text(game("X---O----", "P1-NEXT"), BOB) == "you play O"
    assert mover_text(game("X---O----", "P1-NEXT"), ALICE) == "you play X"
    assert mover_text(game("X---O----", "P1-NEXT"), "02" + "c" * 64) is None, "a key with no seat plays no mark"
    assert mover_text(game("XXXOO----", "P1-WIN"), ALICE) is None, "the ending says who won instead"
    both = Game("g1", "X---O----", "P1-NEXT", ALICE, ALICE, game_address("g1"))
    assert mover_text(both, ALICE) == "you play both X and O"


def test_the_board_in_one_line_of_grid_notation():
    assert board_in_grid("---------") == "empty board"
    assert board_in_grid("X---O---X") == "X on A1 C3, O on B2"
    assert board_in_grid("O--------") == "O on A1"
