"""Three validators, one chain: an XO game, an rps game and a staked chips match played across three nodes' REST APIs.

Runs when XO_REST_URLS names the REST APIs of three nodes of one network (scripts/real-sawtooth starts real
Sawtooth 1.0.5 with three, each running our processors); the chips match also needs XO_CHIPS_ISSUER, as the chips
tests do. Every command goes to the next node in turn, so each node's validator gossips, validates and commits the
others' batches; before each, the nodes must agree on the head block, since a node may be a block behind the one
that committed the last command (a client reading it would see the game before that move). At the end every node
must have the same head block and, at that block, the same state under our three namespaces: a processor that
computes different state on different nodes (or a client that only works against the node it submitted to) fails
here.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os

import pytest

from tests.integration.chips_players import ChipsIssuer, ChipsPlayer, ended
from tests.integration.convergence import common_head, state_differences, state_under
from tests.integration.players import Player, Rejections, Xo
from tests.integration.rps_players import RpsPlayer, play_round

NODES = 3
CONVERGE_SECONDS = 120.0
# The families' namespaces, computed here from their specifications: the first 6 hex digits of sha512(name).
NAMESPACES = {family: hashlib.sha512(family.encode()).hexdigest()[:6] for family in ("xo", "rps", "chips")}


def named_urls() -> list[str]:
    return [url.strip().rstrip("/") for url in os.environ.get("XO_REST_URLS", "").split(",") if url.strip()]


pytestmark = pytest.mark.skipif(
    len(named_urls()) != NODES,
    reason="the three-node check needs XO_REST_URLS naming three nodes' REST APIs (scripts/real-sawtooth runs it)",
)


@pytest.fixture(scope="module")
def urls() -> list[str]:
    return named_urls()


def at(player: Player, url: str) -> Player:
    """``player`` making their moves through the REST API at ``url``."""
    return dataclasses.replace(player, xo=Xo(url, Rejections.ALWAYS))


@pytest.mark.timeout(900)
def test_games_and_a_match_played_across_three_nodes_leave_them_with_one_chain_and_one_state(
    urls: list[str], alice: Player, bob: Player, chips_issuer: ChipsIssuer, broker: str, game_namer
) -> None:
    turns = iter(urls * 20)

    def node() -> str:
        """The next node in turn, once every node has what the last command committed (a node may lag a block)."""
        common_head(urls, CONVERGE_SECONDS)
        return next(turns)

    xo_game = game_namer()
    at(alice, node()).create(xo_game)
    for player, space in [(alice, 1), (bob, 4), (alice, 2), (bob, 5), (alice, 3)]:
        at(player, node()).take(xo_game, space)

    rps_game = game_namer()
    RpsPlayer(alice, node()).committed("create", rps_game)
    RpsPlayer(bob, node()).committed("join", rps_game)
    RpsPlayer(alice, node()).committed("ready", rps_game)
    RpsPlayer(bob, node()).committed("ready", rps_game)
    result = play_round(RpsPlayer(alice, node()), "rock", RpsPlayer(bob, node()), "scissors", rps_game)
    assert (result["status"], result["round_winner"]) == ("ROUND_COMPLETE", alice.public_key)

    channel = game_namer()
    for player in (alice, bob):
        dataclasses.replace(chips_issuer, url=node()).issue(player.public_key, 100)
    terms = ("--game", "xo", "--stake", "10", "--deposit", "50", "--rounds", "1")
    ChipsPlayer(alice, node(), broker).ok("open", channel, "--with", bob.public_key, *terms)
    ChipsPlayer(bob, node(), broker).ok("join", channel)
    bots = ChipsPlayer(alice, node(), broker).bot(channel), ChipsPlayer(bob, node(), broker).bot(channel)
    for bot in bots:
        ended(bot)

    block = common_head(urls, CONVERGE_SECONDS)
    for family, namespace in NAMESPACES.items():
        assert state_under(urls[0], namespace, block), f"nothing under {family}'s namespace {namespace}"
    assert state_differences(urls, NAMESPACES, block) == []
    for url in urls:
        assert Xo(url, Rejections.ALWAYS).show(xo_game)["state"] == "P1-WIN"
        assert RpsPlayer(alice, url).show(rps_game)["state"] == "CONCLUDED"
        assert ChipsPlayer(bob, url, broker).show(channel)["status"] == "closed"
