"""The shared game book: a family's games by address, moved on block by block, told as the family tells them."""

from __future__ import annotations

from client_core.answers import StateChange
from client_core.blocks import BlockChanges
from client_core.game_book import GameBook
from tests.client_core.scripted_ledger import address
from tests.client_core.toy_family import Toy, ToyChange, compare, decode, encode


def block(num: int, *changes: StateChange) -> BlockChanges:
    return BlockChanges(f"{num:0128x}", num, f"{num - 1:0128x}", changes)


def book(problems: list[str]) -> GameBook[Toy, ToyChange]:
    return GameBook(decode, compare, problems.append)


def test_a_block_s_changes_are_told_in_address_order_and_the_games_kept_by_name():
    problems: list[str] = []
    games = book(problems)
    games.load([(address("b"), encode(Toy("b", 0)))])
    first, second = sorted([address("a"), address("b")])
    told = games.apply(
        block(2, StateChange(address("b"), "SET", encode(Toy("b", 1))), StateChange(address("a"), "SET", b"a=0"))
    )
    by_address = {
        address("a"): ToyChange("created", "a", Toy("a", 0)),
        address("b"): ToyChange("scored", "b", Toy("b", 1)),
    }
    assert told == [by_address[first], by_address[second]]
    assert games.games() == [Toy("a", 0), Toy("b", 1)]
    assert games.apply(block(3, StateChange(address("a"), "DELETE", b""))) == [ToyChange("deleted", "a", None)]
    assert games.game("a", address("a")) is None
    assert problems == []


def test_names_sharing_an_address_are_found_by_name_and_a_bad_entry_is_reported_and_left_out():
    problems: list[str] = []
    games = book(problems)
    shared = address("shared")
    games.load([(shared, encode(Toy("x", 1), Toy("y", 2))), (address("bad"), b"no pairs here")])
    assert games.game("y", shared) == Toy("y", 2)
    assert games.game("y", address("y")) is None, "a game is looked up at the address it is stored at"
    assert [game.name for game in games.games()] == ["x", "y"]
    assert problems == [f"state at {address('bad')} is not toy data"]
    assert games.apply(block(2, StateChange(shared, "SET", b"garbage"))) == [
        ToyChange("deleted", "x", None),
        ToyChange("deleted", "y", None),
    ]
    assert games.games() == []
    assert problems[-1] == f"state at {shared} is not toy data"


def test_loading_starts_afresh():
    games = book([])
    games.load([(address("old"), b"old=1")])
    games.load([(address("new"), b"new=2")])
    assert games.games() == [Toy("new", 2)]
