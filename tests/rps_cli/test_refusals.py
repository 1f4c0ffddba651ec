"""Ops refused before anything is signed or sent, with the processor's own reasons; and what is refused locally.

The game is put in a stand-in REST API's state exactly as the processor would have
written it (from the processor's rules); every refusal exits 1 with the line
``rps: error: ...; nothing was submitted`` and leaves the stand-in with no batch.
"""

import re
import time

import pytest

from rps_client.vault import Vault, VaultEntry
from rps_tp.family import game_address
from rps_tp.game import Settings
from tests.rps_cli.conftest import put_block_info, put_game
from tests.rps_client.plays import ALICE, BOB, NOW, SALTS, commit, created, resigned, reveal, started
from xo_core.signing import Signer


@pytest.fixture
def alice(make_player):
    return make_player("alice", Signer.from_hex("00" * 31 + "01"))


@pytest.fixture
def bob(make_player):
    return make_player("bob", Signer.from_hex("00" * 31 + "02"))


@pytest.fixture
def carol(make_player):
    return make_player("carol")


def test_the_players_keys_are_the_ones_the_games_are_made_with(alice, bob):
    assert (alice.public_key, bob.public_key) == (ALICE, BOB)


def refused(fake, run, player, *argv):
    code, out, err = run(*argv, *player.flags(fake.url))
    assert (code, out, fake.submitted) == (1, "", []), err
    assert err.startswith("rps: error: ") and err.endswith("; nothing was submitted\n"), err
    return err.removeprefix("rps: error: ").removesuffix("; nothing was submitted\n")


def test_a_throw_for_a_round_already_committed_is_refused_and_says_how_it_is_revealed(fake, run, alice):
    game = commit(started(), ALICE, "rock")
    put_game(fake, game)
    assert refused(fake, run, alice, "throw", "g1", "paper") == (
        "you have already committed in round 1 of game 'g1'; a commitment is final "
        "('rps reveal g1' tells why it cannot be revealed)"
    )
    Vault.of(alice.key_dir, ALICE).add(VaultEntry("g1", 1, "rock", SALTS[ALICE]))
    assert "('rps reveal g1' reveals it)" in refused(fake, run, alice, "throw", "g1", "paper")
    assert len(Vault.of(alice.key_dir, ALICE).entries()) == 1, "a refused throw leaves the vault as it was"


@pytest.mark.parametrize(
    ("argv", "who", "reason"),
    [
        (["throw", "g1", "rock"], "carol", "you are not a player in game 'g1'"),
        (["create", "g1"], "carol", "game 'g1' already exists"),
        (["join", "g1"], "carol", "game 'g1' has already started; it can no longer be joined"),
        (
            ["setup", "g1", "--timeout", "9"],
            "alice",
            "game 'g1' has already started; its settings can no longer change",
        ),
        (["delete", "g1"], "alice", "game 'g1' is being played; its host can delete it once it is over"),
        (["reveal", "g1"], "carol", "you are not a player in game 'g1'"),
        (["throw", "nope", "rock"], "alice", "game 'nope' does not exist; create it first"),
    ],
)
def test_ops_the_rules_forbid_are_refused_with_the_processors_reason(fake, run, alice, carol, argv, who, reason):
    put_game(fake, started())
    assert refused(fake, run, {"alice": alice, "carol": carol}[who], *argv) == reason


def test_before_play_only_the_host_sets_up_and_a_throw_must_wait(fake, run, alice, bob):
    put_game(fake, created())
    assert refused(fake, run, bob, "setup", "g1", "--timeout", "60") == (
        "only the host of game 'g1' (0279be...) can change its settings"
    )
    assert refused(fake, run, alice, "throw", "g1", "rock") == (
        "game 'g1' has not started yet: it starts once two players have joined and are ready"
    )


def test_a_claim_before_the_time_out_is_refused_with_the_time_left(fake, run, alice):
    now = int(time.time())
    put_game(fake, commit(started(settings=Settings(1, 60), now=now - 20), ALICE, "rock", now=now - 20))
    put_block_info(fake, now - 20)  # a quiet chain: the claim would land in a block of now or later
    reason = refused(fake, run, alice, "claim", "g1")
    assert re.fullmatch(r"your opponent still has (39|40) s to commit in round 1 of game 'g1'", reason)


def test_a_claim_is_judged_at_the_chains_time_when_it_is_ahead_of_the_local_clock(fake, run, alice):
    now = int(time.time())
    # Play started at now + 1000; alice committed late in the phase, which does not move its clock.
    put_game(fake, commit(started(settings=Settings(1, 60), now=now + 1000), ALICE, "rock", now=now + 1020))
    put_block_info(fake, now + 1030)
    assert refused(fake, run, alice, "claim", "g1") == (
        "your opponent still has 30 s to commit in round 1 of game 'g1'"
    )


def test_a_claim_on_a_network_without_blockinfo_is_refused(fake, run, alice):
    put_game(fake, commit(started(now=None), ALICE, "rock", now=None))
    reason = refused(fake, run, alice, "claim", "g1")
    assert "a time-out cannot be claimed on this network: it keeps no BlockInfo" in reason


def test_a_claim_by_the_player_who_holds_the_game_up_is_refused(fake, run, bob):
    put_game(fake, commit(started(), ALICE, "rock", now=NOW))
    put_block_info(fake, NOW + 1000)
    assert refused(fake, run, bob, "claim", "g1") == (
        "you cannot claim game 'g1': you have not committed in round 1 yourself, so your opponent is not holding "
        "the game up"
    )


def test_a_lost_salt_is_said_plainly_with_what_the_opponent_may_do(fake, run, alice, bob):
    put_game(fake, commit(commit(started(), ALICE, "rock"), BOB, "paper"))
    code, out, err = run("reveal", "g1", *alice.flags(fake.url))
    assert (code, out, fake.submitted) == (1, "", [])
    assert err.startswith(
        "rps: error: your commitment in round 1 of game 'g1' cannot be revealed: the vault "
        f"{alice.key_dir / 'rps-vault' / (ALICE + '.json')} has no throw and salt for it"
    )
    assert "once bob has revealed, bob may claim the game when the reveal phase has lasted its time-out (300 s)" in err
    assert "'rps resign g1' ends it at once" in err


def test_a_copied_commitment_is_named_as_such_to_the_copier(fake, run, bob):
    game = commit(started(), ALICE, "rock")
    copied = game._replace(
        players=(game.players[0], game.players[1]._replace(commitment=game.players[0].commitment)), waiting_since=None
    )
    put_game(fake, copied)
    code, _, err = run("reveal", "g1", *bob.flags(fake.url))
    assert code == 1
    assert "it is the same as your opponent's commitment, a copy" in err
    code, shown, _ = run("show", "g1", *bob.flags(fake.url))
    assert "NOTE     : both players hold the same commitment in round 1" in shown


def test_nothing_to_reveal_before_a_commit_or_after_a_reveal(fake, run, alice):
    put_game(fake, started())
    assert refused(fake, run, alice, "reveal", "g1").startswith("you have not committed in round 1 of game 'g1'")
    put_game(fake, reveal(commit(commit(started(), ALICE, "rock"), BOB, "paper"), ALICE, "rock"))
    assert refused(fake, run, alice, "reveal", "g1").startswith(
        "you have already revealed your throw in round 1 of game 'g1' (rock)"
    )


def test_a_game_that_is_over_takes_nothing_but_a_delete(fake, run, alice):
    put_game(fake, resigned(started(), BOB))
    for argv in (["throw", "g1", "rock"], ["resign", "g1"], ["claim", "g1"], ["ready", "g1"]):
        assert refused(fake, run, alice, *argv) == "game 'g1' is over"


def test_data_at_the_address_that_is_not_rps_state_stops_every_op(fake, run, alice):
    fake.state[game_address("g1")] = b"g1,---------,P1-NEXT,,"
    code, _, err = run("join", "g1", *alice.flags(fake.url))
    assert (code, fake.submitted) == (1, [])
    assert "game 'g1' cannot be read: state at c56a0e" in err and "not rps data" in err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["create", "g1", "--first-to", "4"], "argument --first-to: expected 1, 2 or 3 points, got '4'"),
        (["create", "g1", "--timeout", "0"], "argument --timeout: expected whole seconds from 1 to 604800, got '0'"),
        (["throw", "g1", "lizard"], "argument THROW: invalid choice: 'lizard'"),
        (["setup", "g1"], "rps setup needs --first-to or --timeout"),
        (["thorw", "g1", "rock"], "unknown command 'thorw'; did you mean 'throw'?"),
    ],
)
def test_usage_errors_exit_2_before_any_request(fake, run, alice, argv, message):
    code, out, err = run(*argv, *alice.flags(fake.url))
    assert (code, out, fake.requests) == (2, "", [])
    assert err.startswith("rps: error: ") and message in err


def test_a_name_no_game_can_have_is_refused_before_any_request(fake, run, alice):
    code, _, err = run("throw", "bad\x07name", "rock", *alice.flags(fake.url))
    assert (code, fake.requests) == (1, [])
    assert err == "rps: error: the game name must not contain control characters (U+0007 at position 4)\n"
