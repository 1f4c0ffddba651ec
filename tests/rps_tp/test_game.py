"""The game's vocabulary: who beats whom, who is holding the game up, names, settings and consistency."""

import pytest

from rps_tp.game import (
    AWAITING_GAME,
    CONCLUDED,
    DEFAULT_SETTINGS,
    PLAYING_GAME,
    Game,
    Player,
    Result,
    Settings,
    consistency_problem,
    describe_settings,
    laggard,
    name_problem,
    new_game,
    normal_outcomes,
    round_winner,
    scores_from,
    settings_problem,
)
from tests.rps_tp.fakes import public_key

ALICE = public_key(1)
BOB = public_key(2)
DIGEST = bytes(32)


@pytest.mark.parametrize(
    ("throws", "winner"),
    [
        (("rock", "scissors"), 0),
        (("scissors", "paper"), 0),
        (("paper", "rock"), 0),
        (("scissors", "rock"), 1),
        (("paper", "scissors"), 1),
        (("rock", "paper"), 1),
        (("rock", "rock"), None),
        (("paper", "paper"), None),
        (("scissors", "scissors"), None),
    ],
)
def test_rock_beats_scissors_beats_paper_beats_rock(throws, winner):
    assert round_winner(throws) == winner


def test_scores_count_rounds_won_and_ties_score_nothing():
    assert scores_from((("rock", "scissors"), ("rock", "rock"), ("rock", "paper"), ("paper", "rock"))) == (2, 1)


def test_normal_outcomes_follow_the_scores():
    assert normal_outcomes((3, 1)) == ("won", "lost")
    assert normal_outcomes((0, 2)) == ("lost", "won")
    assert normal_outcomes((1, 1)) == ("drew", "drew")


def in_play(first: Player, second: Player, waiting_since: int | None = None) -> Game:
    return Game("g1", PLAYING_GAME, ALICE, DEFAULT_SETTINGS, (first, second), 1, (), waiting_since, None, None)


@pytest.mark.parametrize(
    ("first", "second", "expected"),
    [
        (Player(ALICE, True), Player(BOB, True), None),
        (Player(ALICE, True, 0, DIGEST), Player(BOB, True), 1),
        (Player(ALICE, True), Player(BOB, True, 0, DIGEST), 0),
        (Player(ALICE, True, 0, DIGEST), Player(BOB, True, 0, DIGEST), None),
        (Player(ALICE, True, 0, DIGEST, "rock"), Player(BOB, True, 0, DIGEST), 1),
        (Player(ALICE, True, 0, DIGEST), Player(BOB, True, 0, DIGEST, "rock"), 0),
    ],
)
def test_the_laggard_is_the_one_player_who_has_not_taken_the_current_step(first, second, expected):
    assert laggard(in_play(first, second)) == expected


def test_nobody_is_a_laggard_outside_play():
    assert laggard(new_game("g1")) is None


def test_settings_in_words():
    assert describe_settings(Settings(1, 1)) == "first to 1 point, 1 s to act"
    assert describe_settings(Settings(3, 120)) == "first to 3 points, 2 min 0 s to act"


def test_settings_out_of_range():
    assert settings_problem(Settings(0, 300)) == "the points objective must be 1, 2 or 3, not 0"
    assert settings_problem(Settings(1, 0)) == "the time-out must be from 1 to 604800 seconds, not 0"
    assert settings_problem(Settings(3, 604800)) is None


def test_a_lone_surrogate_is_no_name():
    assert name_problem("a\ud800") == "the game name must be Unicode text (a lone surrogate U+D800 at position 2)"
    assert name_problem("☃" * 42) is None


CONSISTENT = in_play(Player(ALICE, True, 0, DIGEST), Player(BOB, True), waiting_since=10)
LOBBY = Game("g1", AWAITING_GAME, ALICE, DEFAULT_SETTINGS, (Player(ALICE),), 0, (), None, None, None)
ALICE_WON = in_play(Player(ALICE, True, 1), Player(BOB, True))._replace(
    state=CONCLUDED,
    history=(("rock", "scissors"),),
    conclusion_type="normal",
    results=(Result("won", 1), Result("lost", 0)),
)


@pytest.mark.parametrize(
    ("game", "problem"),
    [
        (CONSISTENT._replace(state="PLAYING"), "unknown state 'PLAYING'"),
        (CONSISTENT._replace(players=(Player(ALICE, True), Player(ALICE, True))), "a player holds both seats"),
        (CONSISTENT._replace(waiting_since=None, round=2), "0 completed rounds in round 2"),
        (CONSISTENT._replace(players=(Player(ALICE, True, 1), Player(BOB, True))), "scores that do not match"),
        (
            in_play(Player(ALICE, True, 0, DIGEST, "rock"), Player(BOB, True)),
            "a throw revealed before both players committed",
        ),
        (
            in_play(Player(ALICE, True, 0, DIGEST, "rock"), Player(BOB, True, 0, DIGEST, "paper")),
            "a round with both throws revealed but not scored",
        ),
        (LOBBY._replace(host=BOB), "the host is not the first player"),
        (
            LOBBY._replace(players=(Player(ALICE, True), Player(BOB, True))),
            "both players ready but the game not started",
        ),
        (
            ALICE_WON._replace(results=(Result("lost", 1), Result("won", 0))),
            "outcomes that do not match the scores",
        ),
        (
            ALICE_WON._replace(conclusion_type="by-timeout"),
            "1 completed rounds in a game that ended during round 1",
        ),
        (
            ALICE_WON._replace(
                players=(Player(ALICE, True), Player(BOB, True)),
                history=(),
                conclusion_type="by-timeout",
                results=(Result("won", 0), Result("resigned", 0)),
            ),
            "outcomes ('won', 'resigned') for a game that ended by-timeout",
        ),
        (ALICE_WON._replace(waiting_since=5), "a concluded game with a round in progress"),
    ],
)  # fmt: skip
def test_inconsistent_games_are_named(game, problem):
    assert problem in (consistency_problem(game) or "")


def test_a_consistent_game_has_no_problem():
    both_to_act = in_play(Player(ALICE, True), Player(BOB, True), waiting_since=10)  # a phase's clock runs
    for game in (CONSISTENT, both_to_act, LOBBY, ALICE_WON, new_game("g1")):
        assert consistency_problem(game) is None
