"""Moves the XO rules forbid. `xo` refuses them before submitting anything; forced through with
--no-validate, the validator rejects them and `xo` reports the validator's reason (where the network's REST
API reports rejections at all: see players.Rejections). Either way the game is unchanged."""

from tests.integration.players import Player, Xo
from tests.integration.rest import state_at, xo_address


def refused_both_ways(player: Player, *move: str, game: str, reason: str) -> None:
    """`xo` refuses ``move`` on its own, and the validator rejects it for ``reason``: the state stays as it was."""
    refused = player.refused_by_client(*move)
    assert refused.stderr.startswith("xo: error:"), refused
    assert game in refused.stderr, refused

    before = state_at(player.xo.url, xo_address(game))
    rejected = player.rejected_by_validator(*move, reason=reason)
    assert rejected.stderr.startswith("xo: error:"), rejected
    assert game in rejected.stderr, rejected
    assert state_at(player.xo.url, xo_address(game)) == before


def test_a_space_cannot_be_taken_twice(xo: Xo, alice: Player, bob: Player, game: str) -> None:
    alice.create(game)
    alice.take(game, 5)
    before = xo.show(game)

    refused_both_ways(bob, "take", game, "5", game=game, reason="already taken")

    assert xo.show(game) == before


def test_only_the_seated_player_whose_turn_it_is_may_move(
    xo: Xo, alice: Player, bob: Player, carol: Player, game: str
) -> None:
    alice.create(game)
    alice.take(game, 1)
    bob.take(game, 2)
    before = xo.show(game)

    refused_both_ways(carol, "take", game, "3", game=game, reason="turn")
    refused_both_ways(bob, "take", game, "3", game=game, reason="turn")

    assert xo.show(game) == before


def test_no_move_is_taken_after_the_game_is_won(xo: Xo, alice: Player, bob: Player, game: str) -> None:
    alice.create(game)
    for player, space in [(alice, 1), (bob, 4), (alice, 2), (bob, 5), (alice, 3)]:
        player.take(game, space)
    before = xo.show(game)
    assert before["state"] == "P1-WIN"

    refused_both_ways(bob, "take", game, "6", game=game, reason="over")

    assert xo.show(game) == before


def test_a_game_name_cannot_be_created_twice(xo: Xo, alice: Player, bob: Player, game: str) -> None:
    alice.create(game)
    alice.take(game, 5)
    before = xo.show(game)

    refused_both_ways(bob, "create", game, game=game, reason="already exists")

    assert xo.show(game) == before


def test_a_game_that_does_not_exist_cannot_be_played_or_deleted(rest_url: str, alice: Player, game: str) -> None:
    refused_both_ways(alice, "take", game, "5", game=game, reason="does not exist")
    refused_both_ways(alice, "delete", game, game=game, reason="does not exist")

    assert state_at(rest_url, xo_address(game)) is None
