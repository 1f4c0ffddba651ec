"""Staked matches with `chips`: channels opened and joined on the chain, played off it through an MQTT broker.

The players' chips come from the network's issuer (`chips issue`); every match is checked on the chain through
`chips show` and `chips balance`: the channel closed on the final state's balances, and no chip made or lost.
Challenges run on the chain's clock (BlockInfo), which on a real validator moves only when a block is made.
"""

from __future__ import annotations

import re

import pytest

from tests.integration.chips_players import ChipsIssuer, ChipsPlayer, ended, opened
from tests.integration.players import REJECTED, Player

FUNDS = 200


@pytest.fixture(scope="module")
def players(rest_url: str, broker: str, chips_issuer: ChipsIssuer, alice: Player, bob: Player):
    """Alice and Bob at the network, each issued chips for this module's matches."""
    funded = ChipsPlayer(alice, rest_url, broker), ChipsPlayer(bob, rest_url, broker)
    for player in funded:
        issued = chips_issuer.issue(player.public_key, FUNDS)
        assert (issued["op"], issued["to"], issued["amount"]) == ("issue", player.public_key, FUNDS)
    return funded


def test_a_staked_xo_match_between_two_bots_closes_on_the_final_state(players, game: str) -> None:
    alice, bob = players
    before = alice.balance(), bob.balance()
    terms = opened(alice, bob, game, "xo", "--rounds", "1")
    assert (terms["status"], terms["funded"], terms["held"]) == ("running", [True, True], 100)

    bots = alice.bot(game), bob.bot(game, "--level", "random")
    outputs = [ended(bot) for bot in bots]

    assert all(f"channel '{game}' concluded" in output for output in outputs), outputs
    shown = alice.show(game)
    latest = shown["latest"]
    assert isinstance(latest, dict) and latest["final"] is True
    assert (shown["status"], shown["held"], shown["payout"]) == ("closed", 0, latest["balances"])
    alices, bobs = latest["balances"]
    assert (alice.balance(), bob.balance()) == (before[0] - 50 + alices, before[1] - 50 + bobs)
    assert alices + bobs == 100


def test_a_staked_rps_match_played_from_a_pipe_against_a_bot(players, game: str) -> None:
    alice, bob = players
    opened(alice, bob, game, "rps")

    bot = bob.bot(game)
    played = alice.play(game, "rock\npaper\nscissors\n")
    ended(bot)

    assert played.code == 0, played
    shown = bob.show(game)
    assert shown["status"] == "closed"
    assert [(entry["round"], entry["opener"]) for entry in shown["played"]] == [
        (1, "rock"), (2, "paper"), (3, "scissors")
    ]  # fmt: skip


def test_a_silent_opponent_is_challenged_and_finalize_pays_the_last_mover(players, game: str) -> None:
    alice, bob = players
    opened(alice, bob, game, "xo", "--challenge", "1")

    output = ended(alice.bot(game, "--patience", "0.5"))

    assert re.search(r"you challenged \S+ at turn 1", output) and "finalized" in output, output
    shown = bob.show(game)
    assert (shown["status"], shown["payout"]) == ("closed", [60, 40])
    again = bob.run("finalize", game)
    assert again.code == 0 and "closed already" in again.stdout, again


def test_only_an_issuer_creates_chips_and_the_validator_says_why(players) -> None:
    alice, _ = players
    before = alice.balance()

    refused = alice.run("issue", alice.public_key, "5", "--wait", "60")

    assert refused.code == REJECTED and "chips.issuers" in refused.stderr, refused
    assert alice.balance() == before
