"""A game name's committed moves read off the chain's blocks, and told as ``xo history --json`` and an Aries thread.

The chain is a stand-in with the one method :func:`committed_moves` reads
(``blocks()``, newest first, as :class:`client_core.rest.RestClient` gives them).
"""

from client_core.blocks import ChainBlock, ChainTransaction
from xo_client.history import aries_thread, committed_moves, history_json
from xo_client.timeline import replay
from xo_tp.family import FAMILY_NAME, game_address

ALICE, BOB = "02" + "a" * 64, "03" + "b" * 64
G1 = game_address("g1")


def txn(number, signer, payload, family=FAMILY_NAME, outputs=(G1,)):
    return ChainTransaction(f"{number:0128x}", family, "1.0", signer, outputs, outputs, payload)


class Chain:
    """Blocks 1.. holding the given transactions (one list per block), served newest first."""

    def __init__(self, *blocks):
        self._blocks = [
            ChainBlock(f"{num:0128x}", num, f"{num - 1:0128x}", tuple(txns)) for num, txns in enumerate(blocks, start=1)
        ]

    def blocks(self):
        return iter(reversed(self._blocks))


def played():
    return Chain(
        [txn(1, ALICE, b"g1,create,"), txn(2, ALICE, b"other,create,", outputs=(game_address("other"),))],
        [txn(3, ALICE, b"g1,take,5"), txn(4, BOB, b"not,an,xo,payload")],
        [txn(5, BOB, b"g1,take,1", family="intkey")],
        [txn(6, BOB, b"g1,take,1")],
    )


def test_only_the_name_s_xo_moves_are_kept_in_chain_order():
    moves = committed_moves(played(), "g1")
    assert [(m.block_num, m.signer, m.action, m.space) for m in moves] == [
        (1, ALICE, "create", None),
        (2, ALICE, "take", 5),
        (4, BOB, "take", 1),
    ]


def test_the_json_gives_each_move_with_the_game_after_it():
    games, problems = replay("g1", committed_moves(played(), "g1"))
    shown = history_json("g1", games)
    assert problems == []
    assert (shown["name"], shown["address"]) == ("g1", G1)
    [game] = shown["games"]
    assert (game["number"], game["deleted"], game["game"]["board"]) == (1, False, "O---X----")
    assert [(m["player"], m["action"], m["space"], m["game"]["state"]) for m in game["moves"]] == [
        (ALICE, "create", None, "P1-NEXT"),
        (ALICE, "take", 5, "P2-NEXT"),
        (BOB, "take", 1, "P1-NEXT"),
    ]


def test_the_game_as_an_aries_thread_has_one_move_message_per_take():
    [game], _ = replay("g1", committed_moves(played(), "g1"))
    thread = aries_thread(game)
    assert [message["@type"].rsplit("/", 1)[-1] for message in thread] == ["move", "move"]
