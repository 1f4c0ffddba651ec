"""XO's game book: games loaded as of one block, then moved on block by block with what each block did."""

from client_core.answers import StateChange
from client_core.blocks import BlockChanges
from xo_client.changes import Change
from xo_client.game_book import GameBook
from xo_client.games import Game
from xo_tp.family import game_address

ALICE, BOB = "02" + "a" * 64, "03" + "b" * 64
G1 = game_address("g1")


def block(num, *changes):
    return BlockChanges(f"{num:0128x}", num, f"{num - 1:0128x}", changes)


def test_a_loaded_game_moves_on_with_each_block_and_says_what_happened():
    problems = []
    book = GameBook(problems.append)
    book.load([(G1, b"g1,---------,P1-NEXT,,")])
    assert book.game("g1", G1) == Game("g1", "---------", "P1-NEXT", "", "", G1)

    told = book.apply(block(2, StateChange(G1, "SET", f"g1,----X----,P2-NEXT,{ALICE},".encode())))
    assert [(c.kind, c.name, c.space, c.player) for c in told] == [("take", "g1", 5, ALICE)]
    assert book.game("g1", G1).board == "----X----"

    assert book.apply(block(3, StateChange(G1, "DELETE", b""))) == [Change("delete", "g1", None, None, None)]
    assert book.games() == []
    assert problems == []


def test_an_entry_that_is_not_xo_data_is_reported_and_holds_no_game():
    problems = []
    book = GameBook(problems.append)
    book.load([(G1, b"not a game")])
    assert book.games() == []
    assert len(problems) == 1 and G1 in problems[0]
