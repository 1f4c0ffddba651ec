"""``rps list`` and ``rps show`` against a stand-in REST API holding rps state."""

import json

from rps_tp.family import game_address
from tests.rps_cli.conftest import put_game
from tests.rps_client.plays import ALICE, BOB, commit, created, round_played, started
from xo_core.signing import Signer


def test_list_shows_every_game_sorted_with_its_players_and_what_it_waits_for(fake, run):
    for game in (round_played(started("b-done"), "rock", "scissors"), commit(started("a-duel"), BOB, "paper")):
        put_game(fake, game)
    code, out, err = run("list", "--url", fake.url)
    assert (code, err) == (0, "")
    assert [line.split()[0] for line in out.splitlines()] == ["GAME", "a-duel", "b-done"]
    assert "commit: 0279be..." in out and "over: 0279be... won 1-0" in out
    code, out, _ = run("list", "--json", "--url", fake.url)
    assert [game["name"] for game in json.loads(out)] == ["a-duel", "b-done"]


def test_data_that_is_not_an_rps_game_is_a_warning_and_the_rest_is_listed(fake, run):
    put_game(fake, created("fine"))
    fake.state["c56a0e" + "0" * 64] = b"not cbor"
    code, out, err = run("list", "--url", fake.url)
    assert code == 0
    assert "fine" in out
    assert err.startswith(f"rps: warning: state at c56a0e{'0' * 64}: ")


def test_show_json_is_the_games_object_and_a_missing_game_is_exit_1(fake, run):
    put_game(fake, started())
    code, out, _ = run("show", "g1", "--json", "--url", fake.url)
    assert code == 0
    shown = json.loads(out)
    assert (shown["name"], shown["address"], [p["key"] for p in shown["players"]]) == (
        "g1", game_address("g1"), [ALICE, BOB],
    )  # fmt: skip
    assert run("show", "g2", "--url", fake.url)[1:] == ("", "rps: error: there is no game named 'g2'\n")


def test_show_marks_your_own_key_and_names_keys_from_the_key_directory(fake, run, make_player):
    bob = make_player("bob", Signer.from_hex("00" * 31 + "02"))
    put_game(fake, started())
    code, out, _ = run("show", "g1", *bob.flags(fake.url))
    assert code == 0
    must = [
        "PLAYER 1 : 0279be..., host: 0 points, not committed",
        "PLAYER 2 : bob (you): 0 points, not committed",
        "NEXT     : 0279be... and you must commit in round 1 (rps throw g1 rock|paper|scissors)",
    ]
    assert [line for line in must if line not in out] == []
    assert [word for word in ("bob (02", "02c604") if word in out] == [], "a named key reads as its name alone"


def test_verbose_traces_each_request_under_the_commands_own_name(fake, run):
    put_game(fake, started())
    code, _, err = run("-v", "show", "g1", "--url", fake.url)
    assert code == 0
    assert err.startswith(f"rps: GET /state/{game_address('g1')} -> 200 (")
