"""``chips open`` and ``chips join`` against the real handler: what is checked before anything is sent, and said."""

from __future__ import annotations

import json

import pytest

from chips_client import transactions as tx
from tests.chips_tp.harness import ALICE, BOB, FLOOR, ISSUER


@pytest.fixture
def players(table):
    table.player("alice", ALICE)
    table.player("bob", BOB)
    for player in (ALICE, BOB):
        table.chain.submit(tx.issue(ISSUER, player.public_key, 100), "the issue")
    table.chain.submitted = 0
    return table


def opening(name: str, seconds: int) -> list[object]:
    return ["open", name, "--with", "bob", "--game", "xo", "--stake", "5", "--deposit", "20", "--challenge", seconds]


def test_an_open_below_the_networks_challenge_floor_is_refused_before_anything_is_sent(players):
    code, _, err = players.run("alice", *opening("quick", FLOOR - 1))
    assert code == 1
    assert (f"a challenge duration of {FLOOR - 1} seconds is below this network's floor of {FLOOR} (the setting "
            "chips.min_challenge_seconds)") in err  # fmt: skip
    assert "nothing was submitted" in err
    assert players.chain.submitted == 0 and players.chain.channels() == []
    assert players.run("alice", *opening("quick", FLOOR))[0] == 0


def test_a_join_says_how_long_a_challenge_lasts_and_warns_when_that_is_short(players):
    assert players.run("alice", *opening("brisk", FLOOR))[0] == 0
    assert players.run("alice", *opening("calm", 3600))[0] == 0
    code, out, err = players.run("bob", "join", "brisk")
    assert code == 0
    assert f"a challenge must be answered within {FLOOR} s" in out
    assert f"chips: warning: a challenge in this channel must be answered within {FLOOR} s, which is short " in err
    assert "keep chips play, chips bot or chips watch --defend running for the whole match" in err
    code, out, err = players.run("bob", "join", "calm", "--json")
    assert code == 0 and err == ""
    joined = json.loads(out)
    assert (joined["challenge_seconds"], joined["short_challenge"]) == (3600, False)
