"""How ``xo watch`` writes changes: a line per change for people (escaped), a JSON object per line (exact)."""

import json

from client_core.blocks import BlockRef
from client_core.keys import KeyNames
from xo_cli.feed import change_json, change_line, snapshot, waiting_line
from xo_client.changes import CREATED, DELETED, TAKEN, Change
from xo_client.games import Game
from xo_tp.family import game_address

ALICE, BOB = "02" + "a" * 64, "03" + "b" * 64
BLOCK = BlockRef("cd" * 64, 14)
HOSTILE = "\x1b[2Jx\nforged line"


def game(board, state, name="g1", p1=ALICE, p2=BOB):
    return Game(name, board, state, p1, p2, game_address(name))


def test_a_take_names_its_player_the_space_both_ways_and_the_new_board():
    names = KeyNames({ALICE: "alice"})
    change = Change(TAKEN, "g1", 5, ALICE, game("----X----", "P2-NEXT", p2=""))
    expected = "block 14: game 'g1': alice (02aaaa...) took 5 (B2) as X; O to move (open seat); X on B2"
    assert change_line(BLOCK, change, names) == expected


def test_a_winning_take_says_who_won():
    change = Change(TAKEN, "g1", 3, ALICE, game("XXXOO----", "P1-WIN"))
    assert change_line(BLOCK, change).endswith("; X won (player 1: 02aaaa...); X on A1 B1 C1, O on A2 B2")


def test_creates_deletes_and_snapshots_have_lines_of_their_own():
    fresh = game("---------", "P1-NEXT", p1="", p2="")
    created = change_line(BLOCK, Change(CREATED, "g1", None, None, fresh))
    assert created == "block 14: game 'g1' created; X to move (open seat); empty board"
    assert change_line(BLOCK, Change(DELETED, "g1", None, None, None)) == "block 14: game 'g1' deleted"
    stands = "block 14: game 'g1' as it stands; X to move (open seat); empty board"
    assert change_line(BLOCK, snapshot("g1", fresh)) == stands
    assert waiting_line(BLOCK, "g1").startswith("block 14: there is no game 'g1' yet; waiting")


def test_a_line_speaks_in_player_words_not_the_wire_s():
    """The spec's states and the raw board stay in --json; a line says who moves and where the marks are."""
    names = KeyNames({ALICE: "alice", BOB: "bob"})
    lines = [
        change_line(BLOCK, Change(TAKEN, "g1", 1, BOB, game("O---X----", "P1-NEXT")), names),
        change_line(BLOCK, Change(TAKEN, "g1", 9, BOB, game("OXX-O-X-O", "P2-WIN")), names),
        change_line(BLOCK, snapshot("g1", game("XOXXOOOXX", "TIE")), names),
    ]
    must = ["alice (X) to move", "X on B2, O on A1", "O won (player 2: bob", "a tie", "X on A1 C1 A2 B3 C3"]
    must_not = ["P1-NEXT", "P2-WIN", "TIE", "O---X----", "OXX-O-X-O", "XOXXOOOXX"]
    text = "\n".join(lines)
    assert [word for word in must if word not in text] == []
    assert [word for word in must_not if word in text] == []


def test_names_of_games_and_keys_cannot_garble_a_line():
    names = KeyNames({BOB: "\x1b]0;owned\x07bob"})
    change = Change(TAKEN, HOSTILE, 1, BOB, game("O---X----", "P1-NEXT", name=HOSTILE))
    line = change_line(BLOCK, change, names)
    assert "\x1b" not in line and "\n" not in line and "\x07" not in line
    assert line.startswith("block 14: game '\\x1b[2Jx\\x0aforged line': \\x1b]0;owned\\x07bob (03bbbb...) took 1")


def test_a_json_line_is_one_line_with_the_exact_name_and_the_game_as_xo_show_prints_it():
    change = Change(TAKEN, HOSTILE, 1, BOB, game("O---X----", "P1-NEXT", name=HOSTILE))
    text = change_json(BLOCK, change)
    assert "\n" not in text
    assert json.loads(text) == {
        "block_num": 14, "block_id": "cd" * 64, "action": "take", "name": HOSTILE, "space": 1, "player": BOB,
        "game": change.game.as_json(),
    }  # fmt: skip
    assert json.loads(change_json(BLOCK, Change(DELETED, "g1", None, None, None)))["game"] is None
