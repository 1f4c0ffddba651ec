"""The lobby: every game of a family as of one block, read once, then kept current block by block from state changes."""

from __future__ import annotations

from client_core.answers import StateChange
from client_core.blocks import BlockChanges, BlockRef
from rps_tp.family import game_address as rps_address
from rps_tp.state import encode_bucket as encode_rps_bucket
from tests.rps_client import plays
from xo_tp import rules
from xo_tp.family import game_address
from xo_tp.state import encode_bucket
from xo_web.lobby import rps_lobby, xo_lobby

ALICE, BOB = "02" + "a" * 64, "03" + "b" * 64


def stored(*games: rules.Game) -> bytes:
    return encode_bucket(games)


def block(number: int, *changes: StateChange) -> BlockChanges:
    return BlockChanges(f"{number:0128x}", number, f"{number - 1:0128x}", changes)


def test_a_lobby_read_once_then_moved_on_by_each_block():
    lobby = xo_lobby()
    g1 = rules.Game("g1", "----X----", rules.P2_NEXT, ALICE, "")
    problems = lobby.reset(BlockRef("0" * 128, 3), [(game_address("g1"), stored(g1))])
    assert problems == []
    assert [game.name for game in lobby.games()] == ["g1"]

    taken = rules.take(g1, 1, BOB)
    changes, problems = lobby.apply(block(4, StateChange(game_address("g1"), "SET", stored(taken))))
    assert problems == []
    assert [(change.kind, change.name, change.space, change.player) for change in changes] == [
        ("take", "g1", 1, BOB)
    ]
    assert lobby.game("g1").board == "O---X----"
    assert lobby.block == BlockRef(f"{4:0128x}", 4)

    created = rules.new_game("g2")
    changes, _ = lobby.apply(
        block(
            5,
            StateChange(game_address("g1"), "DELETE", b""),
            StateChange(game_address("g2"), "SET", stored(created)),
        )
    )
    assert sorted((change.kind, change.name) for change in changes) == [("create", "g2"), ("delete", "g1")]
    assert [game.name for game in lobby.games()] == ["g2"]
    assert lobby.game("g1") is None


def test_entries_that_are_not_xo_data_are_reported_and_skipped():
    lobby = xo_lobby()
    address = game_address("g1")
    entries = [(address, b"\xff\xfe"), (game_address("ok"), stored(rules.new_game("ok")))]
    problems = lobby.reset(BlockRef("0" * 128, 1), entries)
    assert problems == [f"state at {address} is not UTF-8 text"]
    assert [game.name for game in lobby.games()] == ["ok"]
    changes, problems = lobby.apply(block(2, StateChange(address, "SET", b"not,a,game")))
    assert changes == []
    assert len(problems) == 1


def test_games_sharing_an_address_are_told_apart_by_name():
    lobby = xo_lobby()
    address = game_address("g1")
    twin = rules.Game("twin", "---------", rules.P1_NEXT, "", "")  # as if its name hashed to g1's address
    lobby.reset(BlockRef("0" * 128, 1), [(address, stored(rules.new_game("g1"), twin))])
    assert [game.name for game in lobby.games()] == ["g1", "twin"]
    assert lobby.game("g1").name == "g1"


def test_the_same_lobby_keeps_rps_games_over_rps_s_book():
    lobby = rps_lobby()
    game = plays.created("r1")
    assert lobby.reset(BlockRef("0" * 128, 1), [(rps_address("r1"), encode_rps_bucket([game]))]) == []
    assert lobby.game("r1") == game

    started = plays.started("r1")
    changes, problems = lobby.apply(block(2, StateChange(rps_address("r1"), "SET", encode_rps_bucket([started]))))
    assert problems == []
    assert [change.kind for change in changes][:1] == ["joined"]
    assert lobby.game("r1") == started and lobby.block == BlockRef(f"{2:0128x}", 2)

    changes, _ = lobby.apply(block(3, StateChange(rps_address("r1"), "DELETE", b"")))
    assert [change.kind for change in changes] == ["deleted"]
    assert lobby.games() == []
