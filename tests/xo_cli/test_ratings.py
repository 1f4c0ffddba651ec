"""``xo ratings`` without a ledger: its flags, the words of a table with nothing rated, a REST API not there."""

from __future__ import annotations

import pytest

from client_core.blocks import BlockRef
from client_core.keys import KeyNames
from client_core.ratings import WIN, Result, rated
from client_core.results_book import ResultBook
from xo_cli.main import main as xo
from xo_cli.ratings import RATED, ratings_json, ratings_text

A, B = "02" + "a" * 64, "03" + "b" * 64


def book_at(block: int, *results: Result) -> ResultBook:
    book = ResultBook(RATED)
    book.cursor = BlockRef("f" * 128, block)
    book.results = list(results)
    return book


def test_a_chain_with_no_rated_game_says_so():
    assert ratings_text(book_at(7), "rps", []) == "ratings as of block 7: 0 rps games (openskill)\nno rated games yet"


def test_the_table_names_players_from_the_key_directory_and_rounds_to_two_places():
    book = book_at(9, Result(3, "xo", "g", 0, A, B, WIN))
    lines = ratings_text(book, None, rated(book.results), KeyNames({A: "alice"})).splitlines()
    assert lines[0] == "ratings as of block 9: 1 XO, rps and staked game (openskill)"  # one game, said as one
    assert lines[1].split() == ["RANK", "PLAYER", "SCORE", "RATING", "DEVIATION", "GAMES", "WINS", "LOSSES", "DRAWS"]
    assert lines[2].split() == ["1", "alice", "(02aaaa...)", "3.44", "27.64?", "8.07", "1", "1", "0", "0"]
    assert lines[3].split() == ["2", "03bbbb...", "-1.83", "22.36?", "8.07", "1", "0", "1", "0"]
    assert lines[4] == ("(ranked by SCORE = RATING - 3 * DEVIATION, a rating the player is very likely above; ? marks "
                        "a provisional rating: fewer than 5 games)")  # fmt: skip
    document = ratings_json(book, "xo", rated(book.results, "xo"))
    assert (document["game"], document["games"], document["block"]["num"]) == ("xo", 1, 9)
    assert [row["key"] for row in document["players"]] == [A, B]
    assert [row["provisional"] for row in document["players"]] == [True, True]


def test_a_player_with_enough_games_is_not_provisional_and_the_order_is_said_by_its_score():
    book = book_at(9, *(Result(n, "rps", f"g{n}", 0, A, B, WIN) for n in range(5)))
    lines = ratings_text(book, "rps", rated(book.results, "rps")).splitlines()
    assert lines[0] == "ratings as of block 9: 5 rps games (openskill)"
    assert "?" not in "\n".join(lines[2:4]) and lines[4].startswith("(ranked by SCORE = RATING - 3 * DEVIATION")
    assert "provisional" not in lines[4]
    one = book_at(9, Result(1, "rps", "g", 0, A, B, WIN))
    assert ratings_text(one, "rps", rated(one.results, "rps")).splitlines()[0].endswith(": 1 rps game (openskill)")


@pytest.mark.parametrize("argv", [["--top", "0"], ["--top", "x"], ["--game", "chess"]])
def test_bad_flags_are_usage_errors(argv, capsys):
    assert xo(["ratings", *argv]) == 2
    error = capsys.readouterr().err
    assert error.startswith("xo: error: argument --") and error.endswith("(see 'xo ratings --help')\n")


def test_a_rest_api_that_is_not_there_is_exit_3_in_one_line(closed_port, capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert xo(["ratings", "--url", f"http://127.0.0.1:{closed_port}"]) == 3
    error = capsys.readouterr().err
    assert error.startswith("xo: ") and len(error.splitlines()) == 1
    assert not (tmp_path / "xo").exists()
