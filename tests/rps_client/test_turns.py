"""Who must act next, and who may claim from when: read off the game alone."""

from rps_client import turns
from rps_client.turns import Step
from rps_tp.game import Settings
from tests.rps_client.plays import ALICE, BOB, NOW, commit, created, reveal, round_played, started


def test_before_play_the_game_waits_for_a_second_player_and_for_both_to_be_ready():
    game = created()
    assert turns.next_steps(game) == (Step(ALICE, turns.READY), Step(None, turns.JOIN))
    assert turns.next_steps(game._replace(state="AWAITING_HOST", host=None, players=())) == (Step(None, turns.JOIN),)
    assert turns.next_steps(None) == ()


def test_in_a_round_both_commit_then_both_reveal():
    game = started()
    assert turns.next_steps(game) == (Step(ALICE, turns.COMMIT), Step(BOB, turns.COMMIT))
    game = commit(game, ALICE, "rock")
    assert turns.next_steps(game) == (Step(BOB, turns.COMMIT),)
    game = commit(game, BOB, "paper")
    assert turns.next_steps(game) == (Step(ALICE, turns.REVEAL), Step(BOB, turns.REVEAL))
    game = reveal(game, BOB, "paper")
    assert turns.next_steps(game) == (Step(ALICE, turns.REVEAL),)


def test_the_player_who_has_taken_the_step_may_claim_once_the_phase_has_lasted_the_time_out():
    game = started(settings=Settings(points=1, timeout=60))
    assert turns.claim(game) is None  # both to commit: nobody holds the game up
    game = commit(game, BOB, "rock", now=NOW + 5)
    assert turns.claim(game) == turns.Claim(BOB, ALICE, turns.COMMIT, NOW, NOW + 60)  # from the start of play
    game = reveal(commit(game, ALICE, "scissors", now=NOW + 7), ALICE, "scissors", now=NOW + 9)
    assert turns.claim(game) == turns.Claim(ALICE, BOB, turns.REVEAL, NOW + 7, NOW + 67)  # from the second commit


def test_the_next_round_is_timed_from_the_reveal_that_scored_the_last():
    game = started(settings=Settings(points=2, timeout=60))
    game = commit(commit(game, ALICE, "rock"), BOB, "paper")
    game = commit(reveal(reveal(game, ALICE, "rock"), BOB, "paper", now=NOW + 30), BOB, "rock", now=NOW + 50)
    assert turns.claim(game) == turns.Claim(BOB, ALICE, turns.COMMIT, NOW + 30, NOW + 90)


def test_without_blockinfo_no_time_out_runs_and_no_claim_time_is_given():
    game = commit(started(now=None), ALICE, "rock", now=None)
    claim = turns.claim(game)
    assert claim is not None and (claim.claimant, claim.at) == (ALICE, None)


def test_nothing_is_awaited_once_the_game_is_over():
    game = round_played(started(), "rock", "scissors")
    assert game.state == "CONCLUDED"
    assert (turns.next_steps(game), turns.claim(game)) == ((), None)


def test_a_copied_commitment_is_seen():
    game = commit(started(), ALICE, "rock")
    copied = game.players[0].commitment
    game = game._replace(players=(game.players[0], game.players[1]._replace(commitment=copied)), waiting_since=None)
    assert turns.copied_commitment(game)
    assert not turns.copied_commitment(commit(commit(started(), ALICE, "rock"), BOB, "rock"))
