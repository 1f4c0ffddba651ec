"""The XO rules, move by move, as the spec's Execution section states them."""

import pytest
from sawtooth_sdk.processor.exceptions import InvalidTransaction

from tests.xo_tp.fakes import public_key
from xo_core.text import game_label, short_key
from xo_tp.rules import (
    P1_NEXT,
    P1_WIN,
    P2_NEXT,
    P2_WIN,
    TIE,
    Game,
    IllegalMove,
    mark_to_move,
    new_game,
    state_after_move,
    take,
    winners,
)

ALICE = public_key(1)
BOB = public_key(2)
CAROL = public_key(3)


def play(game: Game, *moves: tuple[str, int]) -> Game:
    for signer, space in moves:
        game = take(game, space, signer)
    return game


def test_a_new_game_is_blank_with_player_1_to_move_and_no_players():
    assert new_game("g1") == Game("g1", "---------", "P1-NEXT", "", "")


def test_the_first_taker_becomes_player_1_and_plays_x():
    game = take(new_game("g1"), 5, ALICE)
    assert game == Game("g1", "----X----", P2_NEXT, ALICE, "")


def test_the_second_taker_becomes_player_2_and_plays_o():
    game = play(new_game("g1"), (ALICE, 5), (BOB, 1))
    assert game == Game("g1", "O---X----", P1_NEXT, ALICE, BOB)


def test_player_1_may_also_take_player_2s_empty_seat():
    # The spec checks player 2's key only when it is set, and then fills the first empty seat.
    game = play(new_game("g1"), (ALICE, 5), (ALICE, 1))
    assert game == Game("g1", "O---X----", P1_NEXT, ALICE, ALICE)
    assert take(game, 9, ALICE).board == "O---X---X"


def test_an_unclaimed_player_1_seat_goes_to_whoever_moves_even_when_player_2_is_set():
    game = Game("g1", "---------", P1_NEXT, "", BOB)
    assert take(game, 1, CAROL) == Game("g1", "X--------", P2_NEXT, CAROL, BOB)


@pytest.mark.parametrize(
    ("moves", "board", "state"),
    [
        ([1, 4, 2, 5, 3], "XXXOO----", P1_WIN),  # top row
        ([4, 1, 5, 2, 6], "OO-XXX---", P1_WIN),  # middle row
        ([7, 1, 8, 2, 9], "OO----XXX", P1_WIN),  # bottom row
        ([1, 2, 4, 3, 7], "XOOX--X--", P1_WIN),  # left column
        ([2, 1, 5, 3, 8], "OXO-X--X-", P1_WIN),  # middle column
        ([3, 1, 6, 2, 9], "OOX--X--X", P1_WIN),  # right column
        ([1, 2, 5, 3, 9], "XOO-X---X", P1_WIN),  # diagonal
        ([3, 1, 5, 2, 7], "OOX-X-X--", P1_WIN),  # anti-diagonal
        ([1, 4, 2, 5, 9, 6], "XX-OOO--X", P2_WIN),  # player 2 on the middle row
        ([1, 2, 3, 5, 4, 7, 6, 9, 8], "XOXXOXOXO", TIE),
        ([1, 2, 3, 5, 8, 4, 6, 9, 7], "XOXOOXXXO", TIE),
    ],
)
def test_games_end_in_a_win_for_a_line_or_a_tie_on_a_full_board(moves, board, state):
    game = new_game("g1")
    for turn, space in enumerate(moves):
        game = take(game, space, ALICE if turn % 2 == 0 else BOB)
    assert (game.board, game.state) == (board, state)


def test_a_winning_last_move_on_a_full_board_is_a_win_not_a_tie():
    game = play(new_game("g1"), *zip([ALICE, BOB] * 4, [1, 2, 4, 5, 6, 3, 8, 9], strict=True))
    assert (game.board, game.state) == ("XOOXOX-XO", P1_NEXT)
    won = take(game, 7, ALICE)
    assert (won.board, won.state) == ("XOOXOXXXO", P1_WIN)


def test_an_empty_line_is_not_a_win():
    assert winners("---------") == frozenset()
    assert winners("---XO----") == frozenset()
    assert state_after_move("X--------", P1_NEXT) == P2_NEXT


def test_winners_lists_every_mark_with_a_line():
    assert winners("XXX------") == {"X"}
    assert winners("--O-O-O--") == {"O"}
    assert winners("XXXOOO---") == {"X", "O"}


def test_a_board_where_both_marks_have_a_line_follows_the_spec_order():
    # Unreachable in play; the spec's order makes it a tie when full, else the turn passes.
    assert state_after_move("XXXOOOXOX", P1_NEXT) == TIE
    assert state_after_move("XXXOOO-X-", P2_NEXT) == P1_NEXT


@pytest.mark.parametrize("state", [P1_WIN, P2_WIN, TIE])
def test_no_move_in_a_finished_game(state):
    game = Game("g1", "XXXOO----", state, ALICE, BOB)
    with pytest.raises(IllegalMove, match=rf"^game 'g1' is over \({state}\)$"):
        take(game, 9, ALICE)


def test_player_1_cannot_move_for_player_2():
    game = play(new_game("g1"), (ALICE, 5), (BOB, 1))
    game = take(game, 2, ALICE)
    with pytest.raises(IllegalMove, match=rf"^game 'g1': it is player 2's turn \({BOB[:6]}\.\.\.\)$"):
        take(game, 3, ALICE)


def test_a_stranger_cannot_move_for_a_seated_player():
    game = play(new_game("g1"), (ALICE, 5), (BOB, 1))
    with pytest.raises(IllegalMove, match=rf"^game 'g1': it is player 1's turn \({ALICE[:6]}\.\.\.\)$"):
        take(game, 3, CAROL)
    with pytest.raises(IllegalMove, match="player 2's turn"):
        take(take(game, 3, ALICE), 2, CAROL)


def test_an_occupied_space_cannot_be_taken_again():
    game = take(new_game("g1"), 5, ALICE)
    with pytest.raises(IllegalMove, match=r"^game 'g1': space 5 is already taken$"):
        take(game, 5, BOB)


@pytest.mark.parametrize("space", [0, 10, -1])
def test_a_space_off_the_board_is_refused(space):
    # The payload parser never yields one; the rules still refuse rather than wrap around.
    with pytest.raises(IllegalMove, match=rf"^game 'g1': there is no space {space}; spaces are 1 to 9$"):
        take(new_game("g1"), space, ALICE)


def test_a_finished_game_is_reported_before_whose_turn_or_which_space():
    game = Game("g1", "XXXOO----", P1_WIN, ALICE, BOB)
    with pytest.raises(IllegalMove, match="is over"):
        take(game, 1, CAROL)


def test_whose_turn_is_reported_before_an_occupied_space():
    game = take(new_game("g1"), 5, ALICE)
    game = take(game, 1, BOB)
    with pytest.raises(IllegalMove, match="player 1's turn"):
        take(game, 5, CAROL)


def test_illegal_moves_are_the_sdks_invalid_transaction():
    assert issubclass(IllegalMove, InvalidTransaction)


def test_messages_quote_names_and_shorten_keys():
    assert game_label("g1") == "game 'g1'"
    assert game_label("it's") == 'game "it\'s"'
    assert game_label("a\nb") == "game 'a\\x0ab'"
    assert game_label("\x1b[31mred\u202e") == "game '\\x1b[31mred\\u202e'"
    assert game_label("n" * 100) == f"game '{'n' * 64}'..."
    assert short_key(ALICE) == "020000..."


def test_moves_do_not_change_the_game_they_are_given():
    game = new_game("g1")
    take(game, 1, ALICE)
    assert game == new_game("g1")


def test_the_mark_to_move_is_x_for_player_1_o_for_player_2_and_none_once_over():
    assert [mark_to_move(state) for state in (P1_NEXT, P2_NEXT, P1_WIN, P2_WIN, TIE)] == ["X", "O", None, None, None]
