"""``chips tournament create|join|leave|list|show`` against the real handler, and the values their flags take."""

from __future__ import annotations

import argparse
import json

import pytest

from chips_cli.tournament_arguments import duration, first_to, players, prizes
from chips_client import tournament_transactions as ttx
from chips_client import transactions as tx
from tests.chips_tp.harness import ALICE, BOB, CAROL, ISSUER

CREATE = ("tournament", "create", "spring cup", "--game", "xo", "--format", "swiss", "--rounds", "3", "--buy-in", "10",
          "--players", "2..8", "--join-for", "5m", "--round-for", "3m", "--prizes", "60,30,10")  # fmt: skip


@pytest.fixture
def field(table):
    for name, signer in (("alice", ALICE), ("bob", BOB), ("carol", CAROL)):
        table.player(name, signer)
        table.chain.submit(tx.issue(ISSUER, signer.public_key, 100), "the issue")
    return table


def test_an_organiser_creates_players_join_and_everyone_sees_it(field):
    code, out, err = field.run("carol", *CREATE)
    assert code == 0, err
    assert out.startswith("created tournament 'spring cup': xo swiss of 3 rounds, buy-in 10, 2..8 players, prizes ")
    assert "chips tournament join spring cup" in out
    code, out, _ = field.run("alice", "tournament", "join", "spring cup")
    assert code == 0 and "paying 10 chips: 1 of 8 players, pool 10" in out
    field.run("bob", "tournament", "join", "spring cup")
    assert field.chain.balance(BOB.public_key) == 90
    code, out, _ = field.run("bob", "tournament", "list")
    assert code == 0 and out.startswith("'spring cup': xo swiss of 3 rounds") and "2 in, pool 20" in out
    code, out, _ = field.run("alice", "tournament", "show", "spring cup", "--json")
    shown = json.loads(out)
    assert shown["status"] == "joining" and [p["name"] for p in shown["players"]] == ["alice", "bob"]
    code, out, _ = field.run("alice", "tournament", "show", "spring cup")
    assert "players:\n  1. alice: " in out and "\n  2. bob: " in out  # a key's name alone, never alice (02...)
    assert ALICE.public_key[:6] not in out and BOB.public_key[:6] not in out
    code, out, _ = field.run("bob", "tournament", "leave", "spring cup")
    assert code == 0 and out == "you left tournament 'spring cup': 10 chips back\n"
    assert field.chain.balance(BOB.public_key) == 100


def test_the_chain_refusal_comes_back_in_its_own_words(field):
    field.run("carol", *CREATE)
    code, _, err = field.run("carol", *CREATE)
    assert code == 1 and "tournament 'spring cup' exists already (joining)" in err
    code, _, err = field.run("alice", "tournament", "join", "autumn")
    assert code == 1 and "there is no tournament 'autumn'" in err


def test_a_knockout_takes_no_rounds_and_a_swiss_needs_them(field):
    knockout = [*CREATE[:6], "knockout", *CREATE[7:]]
    code, _, err = field.run("carol", *knockout)
    assert code == 1 and "a knockout's rounds follow from its field: leave out --rounds" in err
    swiss = [*CREATE[:7], *CREATE[9:]]
    code, _, err = field.run("carol", *swiss)
    assert code == 1 and "a swiss needs --rounds R" in err


@pytest.mark.parametrize(("text", "seconds"), [("90", 90), ("90s", 90), ("5m", 300), ("1h", 3600)])
def test_a_duration_is_seconds_or_a_number_with_a_unit(text, seconds):
    assert duration(text) == seconds


BAD = [(duration, "5d"), (duration, "0"), (duration, "1.5m"), (players, "8..4"), (players, "1..4"), (players, "4-8"),
       (prizes, "60,30"), (prizes, "a"), (first_to, "0"), (first_to, "26"), (first_to, "two")]  # fmt: skip


@pytest.mark.parametrize(("parse", "text"), BAD)
def test_bad_flag_values_are_usage_errors(parse, text):
    with pytest.raises(argparse.ArgumentTypeError):
        parse(text)


def test_a_round_channel_is_listed_as_a_tournaments_match_not_as_stakes_of_nothing(field):
    two = [{"2..8": "2..2", "60,30,10": "100"}.get(arg, arg) for arg in CREATE]
    assert field.run("carol", *two)[0] == 0
    for name in ("alice", "bob"):
        assert field.run(name, "tournament", "join", "spring cup")[0] == 0
    field.chain.submit(ttx.start(CAROL, "spring cup"), "the start")
    shown = json.loads(field.run("alice", "tournament", "show", "spring cup", "--json")[1])
    ident = shown["pairings"][0][0]["channel"]
    listing = field.run("alice", "list")[1]
    assert "a tournament's match, for points, no chips  rounds 1" in listing  # a round's match: one game for points
    assert "deposits 0/0" not in listing
    code, out, err = field.run("alice", "list", "--json")
    assert code == 0, err
    [listed] = [c for c in json.loads(out) if c["channel"] == ident]
    assert listed["status"] == "running" and listed["deposits"] == [0, 0]


def test_an_rps_tournament_is_first_to_n_and_says_so_and_xo_takes_no_first_to(field):
    rps = [{"xo": "rps"}.get(arg, arg) for arg in CREATE]
    code, out, err = field.run("carol", *rps, "--first-to", "3")
    assert code == 0, err
    assert out.startswith("created tournament 'spring cup': rps first to 3 (at most 5 rounds a match) swiss of 3 ")
    shown = json.loads(field.run("alice", "tournament", "show", "spring cup", "--json")[1])
    assert shown["game"] == "rps" and shown["first_to"] == 3
    assert field.run("alice", "tournament", "show", "spring cup")[1].startswith(
        "tournament 'spring cup': rps first to 3 (at most 5 rounds a match) swiss of 3 rounds"
    )
    code, _, err = field.run("carol", *[{"spring cup": "autumn cup"}.get(a, a) for a in rps])
    assert code == 0, err
    assert json.loads(field.run("alice", "tournament", "show", "autumn cup", "--json")[1])["first_to"] == 2  # default
    code, _, err = field.run("carol", *[{"spring cup": "xo cup"}.get(a, a) for a in CREATE], "--first-to", "2")
    assert code == 1 and "an xo match is one game: --first-to is for rps" in err
    code, _, err = field.run("carol", *rps, "--first-to", "26")
    assert code == 2 and "expected round wins from 1 to 25, got '26'" in err


def test_the_standings_count_in_words(field):
    three = ("tournament", "create", "spring cup", "--game", "xo", "--format", "knockout", "--buy-in", "10",
             "--players", "3..3", "--join-for", "5m", "--round-for", "3m", "--prizes", "100")  # fmt: skip
    assert field.run("carol", *three)[0] == 0
    for name in ("alice", "bob", "carol"):
        assert field.run(name, "tournament", "join", "spring cup")[0] == 0
    field.chain.submit(ttx.start(CAROL, "spring cup"), "the start")
    out = field.run("alice", "tournament", "show", "spring cup")[1]
    assert ": 1 round through, 0 wins" in out and ": 0 rounds through, 0 wins" in out, out  # the top seed's bye
