"""Before an rps op is signed, the processor's own checks run on the game as it stands, giving its very reason."""

from rps_client.checks import payload_problem, refusal
from rps_tp.commitment import commitment
from rps_tp.game import Settings, moment_of
from rps_tp.ops import Commit, Create, Join
from tests.rps_client.plays import ALICE, BOB, SALTS, created, started


def test_a_create_with_a_good_name_passes_and_a_bad_one_is_refused_as_the_processor_would():
    assert payload_problem(Create("g1")) is None
    assert refusal(None, Create("g1"), ALICE) is None
    problem = payload_problem(Create("bad\nname"))
    assert problem is not None and "control character" in problem
    assert refusal(None, Create("bad\nname"), ALICE) == problem


def test_settings_out_of_range_are_refused_before_the_rules_run():
    problem = refusal(None, Create("g1", settings=Settings(points=9, timeout=60)), ALICE)
    assert problem == "game 'g1': 'points' must be a whole number from 1 to 3, not 9"


def test_the_rules_refuse_a_second_create_and_a_seat_taken_twice():
    game = created()
    assert refusal(game, Create("g1"), BOB) == "game 'g1' already exists"
    assert refusal(game, Join("g1", moment_of(game)), BOB) is None
    assert refusal(game, Join("g1", moment_of(game)), ALICE) == "you have already joined game 'g1'"


def test_a_commit_is_checked_against_the_round_it_was_signed_for():
    game = started()
    made = commitment("g1", game.round, ALICE, "rock", SALTS[ALICE])
    assert refusal(game, Commit("g1", moment_of(game), made), ALICE) is None
    stale = moment_of(created())
    problem = refusal(game, Commit("g1", stale, made), ALICE)
    assert problem is not None and "signed for round 0, setup phase" in problem
