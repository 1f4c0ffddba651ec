"""A best-of-3 rps game played with `rps`, every op a separate command signed by the player making it.

Each round both players run `rps throw` at once: each commits, waits until the other's commitment is committed,
reveals, and waits for the other's reveal. Only behaviour every Sawtooth network has is relied on: committed state,
batch statuses, the /subscriptions websocket (or polling), and BlockInfo for the time-outs the game runs.
"""

from __future__ import annotations

import pytest

from tests.integration.players import REJECTED, Player
from tests.integration.rps_players import RpsPlayer, play_round


@pytest.fixture
def players(rest_url: str, alice: Player, bob: Player) -> tuple[RpsPlayer, RpsPlayer]:
    return RpsPlayer(alice, rest_url), RpsPlayer(bob, rest_url)


def test_a_best_of_three_game_with_a_tie_round_played_to_its_end(players, game: str) -> None:
    alice, bob = players
    alice.committed("create", game, "--first-to", "2")
    bob.committed("join", game)
    alice.committed("ready", game)
    bob.committed("ready", game)
    assert alice.show(game)["state"] == "PLAYING_GAME"

    rounds = [
        ("rock", "scissors", alice),
        ("paper", "paper", None),
        ("scissors", "rock", bob),
        ("paper", "rock", alice),
    ]
    for number, (alices, bobs, winner) in enumerate(rounds, start=1):
        result = play_round(alice, alices, bob, bobs, game)
        assert (result["round"], result["status"], result["throws"]) == (number, "ROUND_COMPLETE", [alices, bobs])
        assert result["round_winner"] == (winner.public_key if winner else None)

    shown = alice.show(game)
    assert (shown["state"], shown["conclusion_type"], shown["round"]) == ("CONCLUDED", "normal", 4)
    assert shown["history"] == [[a, b] for a, b, _ in rounds]
    assert shown["results"] == [
        {"key": alice.public_key, "outcome": "won", "final_score": 2},
        {"key": bob.public_key, "outcome": "lost", "final_score": 1},
    ]
    assert [player["key"] for player in shown["players"]] == [alice.public_key, bob.public_key]


def test_ops_that_cannot_succeed_are_refused_before_anything_is_submitted(players, game: str) -> None:
    alice, bob = players
    alice.committed("create", game)
    before = alice.show(game)
    for who, args, reason in [
        (bob, ("delete", game), f"only the host of game '{game}'"),
        (bob, ("throw", game, "rock"), f"game '{game}' has not started yet"),
        (alice, ("create", game), f"game '{game}' already exists"),
    ]:
        outcome = who.run(*args)
        assert outcome.code == REJECTED, f"expected rps to refuse:\n{outcome}"
        assert reason in outcome.stderr and outcome.stderr.endswith("; nothing was submitted\n"), outcome
    assert alice.show(game) == before
