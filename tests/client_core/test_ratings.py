"""The rating table (``client_core.ratings``) and the book of results read off blocks (``client_core.results_book``).

The table is checked against openskill's own ``rate`` called game by game; the book
with a toy family whose data at an address is the finished games there, one per line.
"""

from __future__ import annotations

import json

import pytest
from openskill.models import PlackettLuce

from client_core.answers import StateChange
from client_core.blocks import BlockChanges, BlockRef
from client_core.ratings import DRAW, LOSS, WIN, Finished, Outcome, Ratings, Result, order_key, rated
from client_core.results_book import Family, ResultBook, UnreadableBook

A, B, C, D = "02" + "a" * 64, "02" + "b" * 64, "02" + "c" * 64, "02" + "d" * 64


def result(block: int, family: str, game: str, first: str, second: str, outcome: str, place: int = 0) -> Result:
    return Result(block, family, game, place, first, second, outcome)


def test_each_game_is_one_update_by_openskill_in_chain_order_and_the_counts_follow():
    games = [result(2, "rps", "r", B, C, DRAW), result(1, "xo", "g", A, B, WIN), result(2, "xo", "z", C, A, LOSS)]
    model = PlackettLuce()
    ratings = {key: model.rating() for key in (A, B, C)}
    for first, second, ranks in ((A, B, [0, 1]), (C, A, [1, 0]), (B, C, [0, 0])):  # block 1; block 2: xo before rps
        [[ratings[first]], [ratings[second]]] = model.rate([[ratings[first]], [ratings[second]]], ranks=ranks)
    table = {row.key: row for row in rated(games)}
    assert {key: (row.rating, row.deviation) for key, row in table.items()} == {
        key: (rating.mu, rating.sigma) for key, rating in ratings.items()
    }
    assert (table[A].games, table[A].wins, table[A].losses, table[A].draws) == (2, 2, 0, 0)
    assert (table[B].wins, table[B].losses, table[B].draws) == (0, 1, 1)
    assert (table[C].wins, table[C].losses, table[C].draws) == (0, 1, 1)


def test_the_order_within_a_block_is_family_then_game_then_place_and_one_family_can_be_rated_alone():
    games = [result(5, "chips", "ch", A, B, WIN, 1), result(5, "rps", "a", A, B, WIN), result(5, "xo", "b", A, B, WIN),
             result(5, "chips", "ch", A, B, DRAW, 0), result(4, "chips", "zz", A, B, LOSS)]  # fmt: skip
    assert [(r.block_num, r.family, r.place) for r in sorted(games, key=order_key)] == [
        (4, "chips", 0), (5, "xo", 0), (5, "rps", 0), (5, "chips", 0), (5, "chips", 1)
    ]  # fmt: skip
    only_xo = rated(games, "xo")
    assert [(row.key, row.games) for row in only_xo] == [(A, 1), (B, 1)]


def test_players_with_the_same_record_are_ranked_by_key_and_the_best_first():
    table = rated([result(1, "xo", "g", D, C, WIN), result(2, "xo", "h", B, A, WIN)])
    assert [row.key for row in table] == [B, D, A, C]
    assert table[0].rating == table[1].rating and table[0].ordinal > table[2].ordinal
    assert table[0].as_json(1) == {
        "rank": 1, "key": B, "rating": round(table[0].rating, 6), "deviation": round(table[0].deviation, 6),
        "ordinal": round(table[0].rating - 3 * table[0].deviation, 6), "games": 1, "wins": 1, "losses": 0, "draws": 0,
        "provisional": True,
    }  # fmt: skip
    assert table[0].words() == f"rated {table[0].rating:.2f}? ± {table[0].deviation:.2f} (1 game)"


def toy_reader(address: str, data: bytes) -> tuple[list[Finished], list[str]]:
    """Each line ``name first second outcome`` is a finished game; a line ``?`` does not decode."""
    found, notes = [], []
    for line in data.decode().splitlines():
        if line == "?":
            notes.append(f"{address}: not a game")
            continue
        name, first, second, outcome = line.split()
        found.append(Finished(line, name, (Outcome(first, second, outcome),)))
    return found, notes


TOY = Family("xo", "aa", toy_reader)


def block(number: int, *changes: tuple[str, str | None]) -> BlockChanges:
    return BlockChanges(
        f"b{number}", number, f"b{number - 1}",
        tuple(StateChange(address, "DELETE" if data is None else "SET", (data or "").encode())
              for address, data in changes),
    )  # fmt: skip


def test_a_game_counts_once_in_the_block_it_finished_and_again_only_once_played_anew():
    book = ResultBook([TOY])
    assert book.apply(block(1, ("aa01", f"g {A} {B} win"), ("bb01", f"x {A} {B} win")))[0] == [
        result(1, "xo", "g", A, B, WIN)
    ]
    assert book.apply(block(2, ("aa01", f"g {A} {B} win\nh {B} {A} draw")))[0] == [result(2, "xo", "h", B, A, DRAW)]
    assert book.apply(block(3, ("aa01", None)))[0] == []
    found, notes = book.apply(block(4, ("aa01", f"g {A} {B} win\n?")))
    assert found == [result(4, "xo", "g", A, B, WIN)]
    assert notes == ["block 4: aa01: not a game"]
    assert book.cursor == BlockRef("b4", 4)
    assert len(book.results) == 3


def test_a_saved_book_stands_where_it_stood_and_anything_else_is_refused():
    book = ResultBook([TOY])
    book.apply(block(1, ("aa01", f"g {A} {B} win")))
    again = ResultBook([TOY])
    again.load(json.loads(json.dumps(book.as_json())))
    assert (again.cursor, again.results, again.seen) == (book.cursor, book.results, book.seen)
    assert again.apply(block(2, ("aa01", f"g {A} {B} win")))[0] == []
    broken = book.as_json()
    broken["results"][0][6] = "forfeit"
    for document in (broken, {**book.as_json(), "format": 0}, {**book.as_json(), "families": ["rps"]}, [], None):
        with pytest.raises(UnreadableBook):
            ResultBook([TOY]).load(document)


def test_a_pool_resumed_from_its_saved_state_is_bit_for_bit_the_pool_fed_everything():
    players = [A, B, C, D]
    games = [
        result(number, "xo" if number % 3 else "rps", f"g{number}", players[number % 4], players[(number * 7 + 1) % 4],
               (WIN, LOSS, DRAW)[number % 5 % 3])
        for number in range(1, 41)
        if number % 4 != (number * 7 + 1) % 4
    ]  # fmt: skip
    for family in (None, "xo"):
        whole = Ratings(family)
        whole.add(games)
        half = Ratings(family)
        half.add(games[:17])
        saved = json.loads(json.dumps(half.state(17)))
        resumed = Ratings.resumed(family, games, saved)
        assert resumed.standings() == whole.standings() and resumed.count == whole.count
        assert resumed.state(len(games)) == whole.state(len(games))
    for spoilt in ({**saved, "upto": 99}, {**saved, "family": "rps"}, {**saved, "players": {A: [1, 2, 0, 0, 0]}}, None):
        assert Ratings.resumed("xo", games, spoilt).standings() == whole.standings()  # from the first game instead


def test_a_saved_book_whose_results_are_out_of_chain_order_is_refused():
    book = ResultBook([TOY])
    book.apply(block(1, ("aa01", f"g {A} {B} win")))
    book.apply(block(2, ("aa02", f"h {A} {B} win")))
    document = book.as_json()
    document["results"].reverse()
    with pytest.raises(UnreadableBook):
        ResultBook([TOY]).load(document)
