"""The checks before a move is signed: the processor's own refusals, worded for the player."""

import pytest

from client_core.errors import InvalidInput
from client_core.keys import KeyNames
from xo_client.checks import check_name, refuse_create, refuse_delete, refuse_take
from xo_client.games import Game

ADDRESS = "5b7349" + "0" * 64
ALICE = "02" + "a" * 64
BOB = "03" + "b" * 64


def game(board="---------", state="P1-NEXT", p1="", p2="", name="g1"):
    return Game(name, board, state, p1, p2, ADDRESS)


def test_a_name_no_payload_can_carry_is_refused_even_unvalidated_and_a_forbidden_one_only_validated():
    with pytest.raises(InvalidInput, match="cannot contain ','"):
        check_name("a,b", validate=False)
    check_name("a|b", validate=False)  # sent as is, for the validator to refuse
    with pytest.raises(InvalidInput, match=r"must not contain '\|'"):
        check_name("a|b", validate=True)
    check_name("g1", validate=True)


def test_create_is_refused_for_an_existing_game_and_delete_for_a_missing_one():
    assert "already exists" in refuse_create("g1", game())
    assert refuse_create("g1", None) is None
    assert "no game" in refuse_delete("g1", None)
    assert refuse_delete("g1", game()) is None


def test_take_on_a_missing_game_is_refused():
    assert "no game named 'g1'" in refuse_take("g1", None, ALICE, 5)


@pytest.mark.parametrize("state", ["P1-WIN", "P2-WIN", "TIE"])
def test_take_in_a_finished_game_is_refused(state):
    assert "is over" in refuse_take("g1", game(state=state, p1=ALICE, p2=BOB), ALICE, 5)


def test_take_out_of_turn_is_refused():
    assert "player 2's turn" in refuse_take("g1", game(board="X--------", state="P2-NEXT", p1=ALICE, p2=BOB), ALICE, 5)
    assert "player 1's turn" in refuse_take("g1", game(board="XO-------", state="P1-NEXT", p1=ALICE, p2=BOB), BOB, 5)


def test_take_of_an_occupied_space_is_refused():
    reason = refuse_take("g1", game(board="----X----", state="P2-NEXT", p1=ALICE), BOB, 5)
    assert reason == "game 'g1': space 5 is already taken"


def test_open_seats_are_open_to_anyone_including_the_other_player_who_asks_for_both_seats():
    assert refuse_take("g1", game(), ALICE, 5) is None
    assert refuse_take("g1", game(board="----X----", state="P2-NEXT", p1=ALICE), BOB, 1) is None
    assert refuse_take("g1", game(board="----X----", state="P2-NEXT", p1=ALICE), ALICE, 1, both_seats=True) is None


def test_taking_the_second_seat_with_the_first_seats_key_is_refused_as_a_slip_naming_the_flag():
    reason = refuse_take("g1", game(board="----X----", state="P2-NEXT", p1=ALICE), ALICE, 1)
    assert reason.startswith("game 'g1': your key already holds player 1's seat (X)")
    assert "nobody else could ever join" in reason
    assert reason.endswith("add --both-seats")


def test_a_rule_breaking_move_is_refused_for_its_own_reason_before_the_both_seats_slip():
    reason = refuse_take("g1", game(board="----X----", state="P2-NEXT", p1=ALICE), ALICE, 5)
    assert reason == "game 'g1': space 5 is already taken"


def test_out_of_turn_names_the_key_whose_turn_it_is_when_the_key_directory_knows_it():
    names = KeyNames({BOB: "bob"})
    reason = refuse_take("g1", game(board="X--------", state="P2-NEXT", p1=ALICE, p2=BOB), ALICE, 5, names=names)
    assert reason == "game 'g1': it is bob's turn (player 2)"
    assert BOB[:6] not in reason, "a named key is shown by its name alone"
    unnamed = refuse_take("g1", game(board="XO-------", state="P1-NEXT", p1=ALICE, p2=BOB), BOB, 5, names=names)
    assert unnamed == "game 'g1': it is player 1's turn (02aaaa...)"


def test_a_key_name_in_a_refusal_is_escaped():
    names = KeyNames({BOB: "b\x1b[2Jb"})
    reason = refuse_take("g1", game(board="X--------", state="P2-NEXT", p1=ALICE, p2=BOB), ALICE, 5, names=names)
    assert "\x1b" not in reason
    assert "it is b\\x1b[2Jb's turn" in reason


def test_the_seated_player_may_move_on_their_turn():
    assert refuse_take("g1", game(board="X---O----", state="P1-NEXT", p1=ALICE, p2=BOB), ALICE, 9) is None
