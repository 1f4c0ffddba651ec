"""Whole games played with `xo`, every move a separate command signed with the key of the player making it."""

from collections.abc import Callable

from tests.integration.players import REJECTED, Player, Xo
from tests.integration.rest import state_at, xo_address


def test_a_game_played_to_a_win(xo: Xo, alice: Player, bob: Player, game: str) -> None:
    alice.create(game)
    for player, space in [(alice, 1), (bob, 4), (alice, 2), (bob, 5), (alice, 3)]:
        player.take(game, space)

    assert xo.show(game) == {
        "name": game,
        "board": "XXXOO----",
        "state": "P1-WIN",
        "player1": alice.public_key,
        "player2": bob.public_key,
        "address": xo_address(game),
    }


def test_a_game_played_to_a_tie_in_grid_notation(xo: Xo, alice: Player, bob: Player, game: str) -> None:
    alice.create(game)
    moves = [(alice, "A1"), (bob, "B1"), (alice, "C1"), (bob, "B2"), (alice, "A2")]
    moves += [(bob, "C2"), (alice, "B3"), (bob, "A3"), (alice, "C3")]
    for player, space in moves:
        player.take(game, space)

    shown = xo.show(game)
    assert (shown["board"], shown["state"]) == ("XOXXOOOXX", "TIE")


def test_the_first_two_players_to_move_take_the_seats(xo: Xo, alice: Player, bob: Player, game: str) -> None:
    alice.create(game)
    assert (xo.show(game)["player1"], xo.show(game)["player2"]) == ("", "")

    alice.take(game, 5)
    assert (xo.show(game)["player1"], xo.show(game)["player2"]) == (alice.public_key, "")

    bob.take(game, 1)
    shown = xo.show(game)
    assert (shown["player1"], shown["player2"]) == (alice.public_key, bob.public_key)
    assert (shown["board"], shown["state"]) == ("O---X----", "P1-NEXT")


def test_the_chain_holds_the_game_as_the_xo_specification_encodes_it(
    rest_url: str, alice: Player, bob: Player, game: str
) -> None:
    alice.create(game)
    alice.take(game, 9)
    bob.take(game, 1)

    entry = f"{game},O-------X,P1-NEXT,{alice.public_key},{bob.public_key}"
    assert state_at(rest_url, xo_address(game)) == entry.encode("utf-8")


def test_list_shows_every_game_sorted_by_name_and_show_shows_one(
    xo: Xo, alice: Player, game_namer: Callable[[], str]
) -> None:
    first, second = sorted([game_namer(), game_namer()])
    alice.create(second)
    alice.create(first)
    alice.take(second, 9)

    listed = xo.list_games()
    names = [listed_game["name"] for listed_game in listed]
    assert names == sorted(names)
    ours = [listed_game for listed_game in listed if listed_game["name"] in (first, second)]
    assert ours == [
        {
            "name": first,
            "board": "---------",
            "state": "P1-NEXT",
            "player1": "",
            "player2": "",
            "address": xo_address(first),
        },
        {
            "name": second,
            "board": "--------X",
            "state": "P2-NEXT",
            "player1": alice.public_key,
            "player2": "",
            "address": xo_address(second),
        },
    ]
    assert xo.show(second) == ours[1]


def test_a_deleted_game_is_gone_and_its_name_free_again(
    xo: Xo, rest_url: str, alice: Player, bob: Player, game: str
) -> None:
    alice.create(game)
    alice.take(game, 5)

    bob.delete(game)

    shown = xo.run("show", game, "--format", "json")
    assert shown.code == REJECTED, shown
    assert game in shown.stderr
    assert game not in [listed_game["name"] for listed_game in xo.list_games()]
    assert state_at(rest_url, xo_address(game)) is None

    alice.create(game)
    assert (xo.show(game)["board"], xo.show(game)["state"]) == ("---------", "P1-NEXT")
