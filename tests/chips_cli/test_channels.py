"""``chips open`` and ``chips join`` against the real handler: what is checked before anything is sent, and said."""

from __future__ import annotations

import json

import pytest

from chips_client import transactions as tx
from chips_client.match import Match
from client_core.errors import TerminateRequest
from tests.chips_tp.harness import ALICE, BOB, FLOOR, ISSUER


@pytest.fixture
def players(table):
    table.player("alice", ALICE)
    table.player("bob", BOB)
    for player in (ALICE, BOB):
        table.chain.submit(tx.issue(ISSUER, player.public_key, 100), "the issue")
    table.chain.submitted = 0
    return table


def opening(name: str, seconds: int, deposit: int = 20) -> list[object]:
    return ["open", name, "--with", "bob", "--game", "xo", "--stake", "5", "--deposit", deposit, "--challenge", seconds]


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


@pytest.mark.parametrize(
    ("who", "argv", "what", "reason"),
    [
        ("alice", ["transfer", "bob", "500"], "the transfer", "the transfer needs 500 chips but the account "),
        ("alice", ["issue", "bob", "5"], "the issue", "only the keys in the setting chips.issuers may issue chips"),
    ],
    ids=["transfer", "issue"],
)  # fmt: skip
def test_the_validators_refusal_comes_first_in_its_own_words_unless_no_validate(players, who, argv, what, reason):
    before = players.chain.balance(ALICE.public_key)
    code, _, err = players.run(who, *argv)
    assert code == 1 and reason in err and err.rstrip().endswith("; nothing was submitted"), err
    assert players.chain.submitted == 0
    said = err.split("error: ", 1)[1].rstrip().removesuffix("; nothing was submitted")
    code, _, err = players.run(who, *argv, "--no-validate")
    assert code == 1 and f"the validator rejected {what}: {said}" in err, err
    assert players.chain.submitted == 1 and players.chain.balance(ALICE.public_key) == before


def test_a_deposit_too_large_says_your_free_chips_and_where_chips_come_from(players):
    code, _, err = players.run("alice", *opening("rich", 60, deposit=150))
    assert code == 1 and players.chain.submitted == 0
    assert err == ("chips: error: your 100 free chips cannot cover a deposit of 150 (on xo-devnet 'chips faucet' "
                   "gives a key chips; elsewhere ask the network's issuer); nothing was submitted\n")  # fmt: skip
    assert ALICE.public_key[:8] not in err and "the account" not in err
    code, _, err = players.run("alice", *opening("rich", 60, deposit=150), "--no-validate")
    assert code == 1 and "the validator rejected the open: the deposit into channel " in err  # its own words


def test_a_join_the_chain_would_refuse_is_refused_first_with_its_words(players):
    players.chain.submit(tx.transfer(BOB, ALICE.public_key, 90), "a transfer")
    players.chain.submitted = 0
    assert players.run("alice", *opening("dear", 3600))[0] == 0
    code, _, err = players.run("bob", "join", "dear")
    assert code == 1 and players.chain.submitted == 1  # the open only
    assert "your 10 free chips cannot cover a deposit of 20 (on xo-devnet 'chips faucet' gives" in err
    assert err.rstrip().endswith("; nothing was submitted") and BOB.public_key[:8] not in err
    code, _, err = players.run("bob", "join", "dear", "--no-validate")
    assert code == 1 and players.chain.submitted == 2
    assert "the validator rejected the join: the deposit into channel " in err and "holds 10" in err
    players.chain.submit(tx.transfer(ALICE, BOB.public_key, 90), "a transfer")
    assert players.run("bob", "join", "dear")[0] == 0
    code, _, err = players.run("bob", "join", "dear")
    assert code == 1 and "is running: it is joined only while it is funding; nothing was submitted" in err


def test_list_says_whose_move_it_is_and_what_comes_next_by_the_channels_name(players):
    assert players.run("alice", *opening("duel", 3600))[0] == 0
    code, out, _ = players.run("bob", "list")
    ident = players.chain.channels()[0].id.hex()[:8]  # bob's store does not know its name yet: its id names it
    assert code == 0
    assert f"next (open to you): pay your deposit of 20 chips in: chips join {ident} --username bob" in out
    assert players.run("bob", "join", "duel")[0] == 0
    code, out, _ = players.run("alice", "list")
    assert code == 0
    assert "running: game 1 of 3, you (X) to move" in out and "next: your move: chips play duel --username alice" in out
    code, out, _ = players.run("bob", "list")
    assert "running: game 1 of 3, alice (X) to move" in out and "next: alice's move" in out
    assert "on chain" not in out and "turn 0" not in out
    listed = json.loads(players.run("bob", "list", "--json")[1])
    assert (listed[0]["status"], listed[0]["turn"]) == ("running", 0)  # the raw forms stay in --json


@pytest.mark.parametrize(("interrupt", "how", "code"), [(KeyboardInterrupt, "Ctrl-C", 130),
                                                        (TerminateRequest, "SIGTERM", 143)])  # fmt: skip
def test_leaving_a_match_says_where_it_stands_and_how_to_go_on_with_no_error_line(players, monkeypatch, interrupt,
                                                                                   how, code):  # fmt: skip
    assert players.run("alice", *opening("duel", 3600))[0] == 0
    assert players.run("bob", "join", "duel")[0] == 0

    def leave(match: Match, time_limit: float | None = None) -> str:
        match._load(match.chain.channel(match.address))
        raise interrupt

    monkeypatch.setattr(Match, "run", leave)
    left, out, err = players.run("bob", "play", "duel")
    assert (left, err) == (code, "")
    for must in (f"you left ({how}): channel 'duel' stays open on the chain, the match unfinished: game 1 of 3, "
                 "alice (X) to move", "at stake: your deposit of 20 chips", "if alice challenges you, your move must "
                 "be on chain within 1 h 0 min (by ", "to go on with it: chips play duel --username bob"):  # fmt: skip
        assert must in out, out
    assert "error" not in out and "turn 0" not in out
    code_bot, out, _ = players.run("alice", "bot", "duel")
    assert code_bot == code and "to go on with it: chips bot duel --username alice" in out


def test_a_name_used_before_with_the_same_opponent_and_terms_says_to_choose_another_name(players):
    assert players.run("alice", *opening("duel", 3600))[0] == 0
    code, _, err = players.run("alice", *opening("duel", 3600))
    assert code == 1 and players.chain.submitted == 1
    assert err == ("chips: error: a channel 'duel' with this opponent on these terms was opened before (it is "
                   "funding): give the new one another name; nothing was submitted\n")  # fmt: skip
    assert "nonce" not in err
    assert players.run("alice", *opening("duel-2", 3600))[0] == 0
