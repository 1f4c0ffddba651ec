"""rps's game book: games loaded as of one block, then moved on block by block with what each block did."""

from client_core.answers import StateChange
from client_core.blocks import BlockChanges
from rps_client import changes
from rps_client.game_book import GameBook
from rps_tp.family import game_address
from rps_tp.state import encode_bucket
from tests.rps_client.plays import ALICE, commit, created, started

G1 = game_address("g1")


def block(num, *state_changes):
    return BlockChanges(f"{num:0128x}", num, f"{num - 1:0128x}", state_changes)


def test_a_loaded_game_moves_on_with_each_block_and_says_what_happened():
    problems = []
    book = GameBook(problems.append)
    book.load([(G1, encode_bucket([started()]))])
    assert book.game("g1", G1) == started()

    told = book.apply(block(2, StateChange(G1, "SET", encode_bucket([commit(started(), ALICE, "rock")]))))
    assert [(change.kind, change.player) for change in told] == [(changes.COMMITTED, ALICE)]
    assert book.game("g1", G1).players[0].commitment is not None

    told = book.apply(block(3, StateChange(G1, "DELETE", b"")))
    assert [change.kind for change in told] == [changes.DELETED]
    assert book.games() == []
    assert problems == []


def test_data_that_is_not_a_bucket_is_reported_and_holds_no_game():
    problems = []
    book = GameBook(problems.append)
    book.load([(G1, encode_bucket([created()]))])
    book.apply(block(2, StateChange(G1, "SET", b"not rps")))
    assert book.games() == []
    assert len(problems) == 1
