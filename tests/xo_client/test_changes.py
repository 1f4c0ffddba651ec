"""From two versions of a game address to what happened: created, spaces taken (in play order), deleted."""

from xo_client.changes import CHANGED, CREATED, DELETED, TAKEN, changes_between, game_changes
from xo_client.games import Game
from xo_tp.family import game_address

ALICE, BOB = "02" + "a" * 64, "03" + "b" * 64


def game(board: str, state: str, p1: str = ALICE, p2: str = BOB, name: str = "g1") -> Game:
    return Game(name, board, state, p1, p2, game_address(name))


def summary(changes):
    return [(change.kind, change.space, change.player, change.game and change.game.state) for change in changes]


def test_one_take_names_the_key_seated_for_its_mark():
    before = game("----X----", "P2-NEXT", p2="")
    after = game("O---X----", "P1-NEXT")
    assert summary(game_changes(before, after)) == [(TAKEN, 1, BOB, "P1-NEXT")]


def test_a_game_created_and_played_in_one_block_is_a_create_then_its_takes_in_turn():
    after = game("O---X----", "P1-NEXT")
    changes = game_changes(None, after)
    assert summary(changes) == [
        (CREATED, None, None, "P1-NEXT"),
        (TAKEN, 5, ALICE, "P2-NEXT"),
        (TAKEN, 1, BOB, "P1-NEXT"),
    ]
    assert changes[0].game.board == "---------"
    assert changes[1].game == game("----X----", "P2-NEXT", p2="")


def test_the_order_of_one_mark_s_moves_is_the_one_the_rules_allow():
    before = game("OO--XX---", "P1-NEXT")
    after = game("OO-XXX-XO", "P1-WIN")  # X took 8, O took 9, X took 4 and won: 4 first would have ended the game
    assert summary(game_changes(before, after)) == [
        (TAKEN, 8, ALICE, "P2-NEXT"),
        (TAKEN, 9, BOB, "P1-NEXT"),
        (TAKEN, 4, ALICE, "P1-WIN"),
    ]


def test_a_deleted_game_is_a_delete_without_a_game():
    assert summary(game_changes(game("----X----", "P2-NEXT", p2=""), None)) == [(DELETED, None, None, None)]


def test_a_game_deleted_and_created_again_in_one_block_says_so():
    before = game("XO--X---O", "P1-NEXT")
    after = game("--X------", "P2-NEXT", p1=BOB, p2="")
    assert summary(game_changes(before, after)) == [
        (DELETED, None, None, None),
        (CREATED, None, None, "P1-NEXT"),
        (TAKEN, 3, BOB, "P2-NEXT"),
    ]


def test_an_entry_no_moves_explain_is_a_plain_change():
    before = game("X--------", "P2-NEXT", p2="")
    after = game("X--------", "TIE", p2="")
    assert summary(game_changes(before, after)) == [(CHANGED, None, None, "TIE")]


def test_only_the_game_that_changed_in_a_shared_address_is_reported():
    neighbour = game("---------", "P1-NEXT", p1="", p2="", name="other")
    before = [neighbour, game("---------", "P1-NEXT", p1="", p2="")]
    after = [neighbour, game("X--------", "P2-NEXT", p2="")]
    assert [(change.name, change.kind) for change in changes_between(before, after)] == [("g1", TAKEN)]


def test_nothing_changed_is_no_change():
    same = game("X--------", "P2-NEXT", p2="")
    assert changes_between([same], [same]) == []
