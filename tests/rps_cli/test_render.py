"""How games look: the card and the table for people, the JSON object for scripts; only what is public."""

import json

from client_core.keys import KeyNames
from rps_cli import render
from rps_client.games import game_json
from rps_client.outcome import outcome_text
from rps_tp.family import game_address
from rps_tp.game import Settings
from tests.rps_client.plays import (
    ALICE,
    BOB,
    NOW,
    claimed,
    commit,
    created,
    resigned,
    reveal,
    round_played,
    started,
)

NAMES = KeyNames({ALICE: "alice", BOB: "bob"})


def card(game, you=None, now=NOW):
    return render.game_card(game, you, NAMES, now=now)


def test_a_game_in_play_shows_scores_commitments_who_acts_next_and_when_a_claim_becomes_possible():
    game = round_played(started(settings=Settings(points=2, timeout=300)), "rock", "scissors")  # scored at NOW
    game = commit(game, ALICE, "paper", now=NOW + 10)
    shown = card(game, you=BOB, now=NOW + 40)
    assert shown.splitlines() == [
        "GAME     : g1",
        "STATE    : playing, round 2",
        "SETTINGS : first to 2 points, 300 seconds to act",
        "PLAYER 1 : alice (0279be...), host: 1 point, committed",
        "PLAYER 2 : bob (02c604...) (you): 0 points, not committed",
        "NEXT     : you must commit in round 2 (rps throw g1 rock|paper|scissors); alice may claim the game from "
        "2023-11-14 22:18:20 UTC (in 4 min 20 s)",
        "ROUNDS   : 1. alice rock, bob scissors: alice won the round",
        f"ADDRESS  : {game_address('g1')}",
    ]


def test_an_unrevealed_throw_appears_nowhere_a_revealed_one_does():
    game = commit(commit(started(), ALICE, "scissors"), BOB, "paper")
    for shown in (card(game), json.dumps(game_json(game)), render.games_table([game], NAMES)):
        assert "scissors" not in shown and "paper" not in shown
    game = reveal(game, ALICE, "scissors")
    assert "PLAYER 1 : alice (0279be...), host: 0 points, revealed scissors" in card(game)
    assert "paper" not in card(game)
    assert game_json(game)["players"][0]["throw"] == "scissors"
    assert game_json(game)["players"][1]["throw"] is None


def test_the_claim_is_said_once_due_and_when_no_time_out_can_run():
    game = commit(started(settings=Settings(points=1, timeout=60)), ALICE, "rock", now=NOW)
    assert "alice may claim the game now (since 2023-11-14 22:14:20 UTC)" in card(game, now=NOW + 61)
    assert "you may claim" in card(game, you=ALICE, now=NOW + 1)
    without = commit(started(now=None), ALICE, "rock", now=None)
    assert "no time-out is running" in card(without)


def test_a_concluded_game_shows_each_players_outcome_and_the_result():
    game = round_played(round_played(started(settings=Settings(2, 300)), "rock", "rock"), "paper", "rock")
    game = round_played(game, "scissors", "paper")
    lines = card(game, you=ALICE).splitlines()
    assert lines[1:6] == [
        "STATE    : over after round 3",
        "RESULT   : you won 2-0",
        "SETTINGS : first to 2 points, 300 seconds to act",
        "PLAYER 1 : alice (0279be...) (you), host: won, 2 points",
        "PLAYER 2 : bob (02c604...): lost, 0 points",
    ]
    assert lines[6:9] == [
        "ROUNDS   : 1. alice rock, bob rock: a tie",
        "           2. alice paper, bob rock: alice won the round",
        "           3. alice scissors, bob paper: alice won the round",
    ]
    assert not any(line.startswith("NEXT") for line in lines)


def test_resignations_and_claims_say_who_ended_the_game():
    assert outcome_text(resigned(started(), BOB), None, NAMES) == "bob resigned: alice won"
    game = commit(started(settings=Settings(1, 5)), ALICE, "rock", now=NOW)
    assert outcome_text(claimed(game, ALICE, NOW + 5), BOB, NAMES) == "you timed out: alice won"


def test_before_play_the_card_says_who_is_ready_and_that_a_seat_is_open():
    lines = card(created(), you=ALICE).splitlines()
    assert lines[3:6] == [
        "PLAYER 1 : alice (0279be...) (you), host: not ready",
        "PLAYER 2 : (open seat)",
        "NEXT     : you must get ready for first to 1 point, 300 seconds to act (rps ready g1); "
        "a second player may join",
    ]


def test_the_json_object_is_the_state_plus_what_follows_from_it():
    game = commit(started(), BOB, "rock", now=NOW)
    shown = game_json(game)
    assert list(shown) == [
        "name", "address", "state", "host", "settings", "round", "phase", "players", "history", "waiting_since",
        "conclusion_type", "results", "next", "claim",
    ]  # fmt: skip
    assert (shown["round"], shown["phase"]) == (1, "commit")  # the moment an op on it is signed for
    assert shown["players"][1]["commitment"] == game.players[1].commitment.hex()
    assert shown["next"] == [{"player": ALICE, "action": "commit"}]
    assert shown["claim"] == {"player": BOB, "against": ALICE, "from": NOW + 300}
    over = game_json(resigned(game, ALICE))
    assert (over["round"], over["phase"]) == (1, "over")
    assert over["results"] == [
        {"key": ALICE, "outcome": "resigned", "final_score": 0},
        {"key": BOB, "outcome": "won", "final_score": 0},
    ]


def test_hostile_names_are_escaped_for_people_and_exact_in_json():
    name = "\x1b[31mred\u202eevil"
    game = started(name)
    assert "\x1b" not in card(game) and "\u202e" not in card(game)
    assert "\\x1b[31mred\\u202eevil" in card(game)
    assert "\x1b" not in render.games_table([game], NAMES)
    assert game_json(game)["name"] == name
    assert "rps throw '\\x1b[31mred\\u202eevil' rock|paper|scissors" in card(game, you=ALICE)


def test_the_table_has_a_row_per_game_with_scores_and_what_it_waits_for():
    playing = commit(started("duel"), ALICE, "rock")
    over = round_played(started("done"), "rock", "scissors")
    lines = render.games_table([over, playing, created("open")], NAMES).splitlines()
    assert lines == [
        "GAME  PLAYER 1           PLAYER 2         SCORE  ROUND  STATE       NEXT",
        "done  alice (0279be...)  bob (02c604...)  1-0    1      over        over: alice won 1-0",
        "duel  alice (0279be...)  bob (02c604...)  0-0    1      playing     commit: bob",
        "open  alice (0279be...)                                 setting up  get ready: alice; join: anyone",
    ]
    assert render.games_table([], NAMES) == "No rps games yet."


def test_durations_read_as_people_say_them():
    assert [render.duration(seconds) for seconds in (0, 0.2, 42, 252, 7500, 3 * 86400 + 3600)] == [
        "0 s", "1 s", "42 s", "4 min 12 s", "2 h 5 min", "3 d 1 h",
    ]  # fmt: skip
