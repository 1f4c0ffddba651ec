"""A concluded rps game in words: who won and how, each player ``you``, their name, or their key's start."""

from client_core.keys import KeyNames
from rps_client.outcome import outcome_text, player_name
from rps_tp.game import Settings
from tests.rps_client.plays import ALICE, BOB, NOW, claimed, commit, resigned, round_played, started

NAMES = KeyNames({ALICE: "alice", BOB: "bob"})
ONE_POINT = Settings(points=1, timeout=60)


def test_a_player_is_you_their_name_or_the_start_of_their_key():
    assert player_name(ALICE, you=ALICE, names=NAMES) == "you"
    assert player_name(BOB, you=ALICE, names=NAMES) == "bob"
    assert player_name(BOB) == f"{BOB[:6]}..."


def test_a_game_won_on_points_gives_the_score():
    game = round_played(started(settings=ONE_POINT), "rock", "scissors")
    assert outcome_text(game, names=NAMES) == "alice won 1-0"
    assert outcome_text(game, you=BOB, names=NAMES) == "alice won 1-0"


def test_a_resignation_and_a_timeout_say_who_stopped():
    assert outcome_text(resigned(started(), BOB), you=ALICE, names=NAMES) == "bob resigned: you won"
    game = claimed(commit(started(settings=ONE_POINT), ALICE, "rock"), ALICE, NOW + 3600)
    assert outcome_text(game, names=NAMES) == "bob timed out: alice won"


def test_a_game_still_in_play_has_no_outcome():
    assert outcome_text(started(), names=NAMES) is None
