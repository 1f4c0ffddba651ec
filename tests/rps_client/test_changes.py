"""What happened between two records of a game, read off the records alone, even when a block holds several ops."""

from client_core.blocks import BlockRef
from client_core.keys import KeyNames
from rps_cli import feed
from rps_client import changes
from rps_client.changes import Change, game_changes
from rps_tp import rules
from rps_tp.game import Settings, moment_of
from rps_tp.ops import Ready, Setup
from tests.rps_client.plays import ALICE, BOB, NOW, claimed, commit, created, resigned, reveal, round_played, started

NAMES = KeyNames({ALICE: "alice", BOB: "bob"})
BLOCK = BlockRef("b" * 128, 7)


def kinds(found: list[Change]) -> list[tuple]:
    return [(change.kind, change.player, change.round, change.throws) for change in found]


def lines(found: list[Change], you=None) -> list[str]:
    return [feed.change_line(BLOCK, change, NAMES, you).removeprefix("block 7: ") for change in found]


def test_a_game_created_joined_and_started_in_one_block():
    game = started()
    assert kinds(game_changes(None, game)) == [
        (changes.CREATED, None, None, None),
        (changes.JOINED, ALICE, None, None),
        (changes.JOINED, BOB, None, None),
        (changes.READY, ALICE, None, None),
        (changes.READY, BOB, None, None),
        (changes.STARTED, None, 1, None),
    ]
    assert lines(game_changes(None, game))[:3] == [
        "game 'g1' created: first to 1 point, 5 min 0 s to act",
        "game 'g1': alice joined as host",
        "game 'g1': bob joined",
    ]


def test_commitments_then_reveals_then_the_round_one_block_at_a_time():
    game = started(settings=Settings(2, 300))
    one = commit(game, ALICE, "rock")
    two = commit(one, BOB, "scissors")
    three = reveal(two, BOB, "scissors")
    four = reveal(three, ALICE, "rock")
    assert kinds(game_changes(game, one)) == [(changes.COMMITTED, ALICE, 1, None)]
    assert kinds(game_changes(two, three)) == [(changes.REVEALED, BOB, 1, ("scissors",))]
    assert kinds(game_changes(three, four)) == [
        (changes.REVEALED, ALICE, 1, ("rock",)),
        (changes.ROUND, None, 1, ("rock", "scissors")),
    ]
    assert lines(game_changes(three, four), you=ALICE) == [
        "game 'g1': alice revealed rock in round 1",
        "game 'g1': round 1: alice rock, bob scissors: alice won the round; score: alice 1, bob 0",
    ]


def test_a_whole_round_in_one_block_shows_every_step_and_the_last_round_ends_the_game():
    game = started()
    after = round_played(game, "paper", "scissors")
    assert kinds(game_changes(game, after)) == [
        (changes.COMMITTED, ALICE, 1, None),
        (changes.COMMITTED, BOB, 1, None),
        (changes.REVEALED, ALICE, 1, ("paper",)),
        (changes.REVEALED, BOB, 1, ("scissors",)),
        (changes.ROUND, None, 1, ("paper", "scissors")),
        (changes.ENDED, None, None, None),
    ]
    assert lines(game_changes(game, after))[-1] == "game 'g1' is over: bob won 1-0"


def test_a_tie_moves_the_game_to_the_next_round():
    game = started()
    after = commit(round_played(game, "rock", "rock"), BOB, "paper")
    assert kinds(game_changes(game, after))[-2:] == [
        (changes.ROUND, None, 1, ("rock", "rock")),
        (changes.COMMITTED, BOB, 2, None),
    ]
    assert "round 1: alice rock, bob rock: a tie; score: alice 0, bob 0" in lines(game_changes(game, after))[-2]


def test_resignations_and_claims_name_who_did_them():
    game = commit(started(settings=Settings(1, 5)), ALICE, "rock", now=NOW)
    assert kinds(game_changes(game, resigned(game, BOB))) == [(changes.RESIGNED_CHANGE, BOB, None, None)]
    assert kinds(game_changes(game, claimed(game, ALICE, NOW + 5))) == [(changes.CLAIMED, ALICE, None, None)]
    assert lines(game_changes(game, claimed(game, ALICE, NOW + 5))) == ["game 'g1' is over: bob timed out: alice won"]


def test_a_game_deleted_and_created_again_in_one_block_is_told_as_both():
    game = round_played(started(), "rock", "scissors")
    again = created()
    assert kinds(game_changes(game, again))[:3] == [
        (changes.DELETED, None, None, None),
        (changes.CREATED, None, None, None),
        (changes.JOINED, ALICE, None, None),
    ]
    assert kinds(game_changes(game, None)) == [(changes.DELETED, None, None, None)]


def test_a_new_setup_then_a_ready_for_it():
    game = created()
    setup = rules.apply_op(game, Setup("g1", moment_of(game), Settings(3, 60)), ALICE, NOW)
    ready = rules.apply_op(setup, Ready("g1", moment_of(setup), Settings(3, 60)), ALICE, NOW)
    assert kinds(game_changes(game, setup)) == [(changes.SET_UP, ALICE, None, None)]
    assert lines(game_changes(game, setup)) == [
        "game 'g1': alice set it up as first to 3 points, 60 s to act; every player must be ready again"
    ]
    assert kinds(game_changes(setup, ready)) == [(changes.READY, ALICE, None, None)]
