"""``rps`` end to end: two players, each running the command as a separate process, against xo-devnet with rps-tp.

A best-of-3 game to its end (with a tie), a resignation, a time-out claim, a lost
vault, a crash between the vault's write and the commit, a reveal from a fresh
process, a copied commitment, and the processor's refusals as the player reads them.
"""

from __future__ import annotations

import json
import re
import signal
import stat

import pytest

from rps_cli import rounds
from rps_cli.main import main
from rps_client.transactions import commit_moment, reveal_moment
from rps_tp.game import Settings
from rps_tp.ops import Commit, Reveal
from tests.rps_cli.table import Table
from xo_devnet.spawn import DevnetProcess


@pytest.fixture(scope="module")
def devnet(tmp_path_factory):
    with DevnetProcess(log_path=tmp_path_factory.mktemp("devnet") / "devnet.log") as running:
        yield running


@pytest.fixture(scope="module")
def table(devnet) -> Table:
    return Table(devnet.rest_url, devnet.key_dir)


def short(key: str) -> str:
    return key[:6] + "..."


def test_a_best_of_three_game_to_the_end_with_a_tie_and_a_reveal_from_a_fresh_process(table):
    created = table.ok("alice", "create", "bo3", "--first-to", "2", "--wait")
    assert created.lines()[0].startswith("Committed create game 'bo3' (first to 2 points, 5 min 0 s to act): batch ")
    table.ok("bob", "join", "bo3", "--wait")
    table.ok("alice", "ready", "bo3", "--wait")
    ready = table.ok("bob", "ready", "bo3", "--wait")
    assert ready.lines()[1] == "game 'bo3': alice and you must commit in round 1 (rps throw bo3 rock|paper|scissors)"

    alice, bob = table.throws("bo3", "rock", "scissors")
    assert (alice.code, bob.code) == (0, 0), (alice, bob)
    assert alice.lines()[0].startswith("Committed your throw in round 1 of game 'bo3': batch ")
    assert alice.lines()[1].startswith("Revealed rock in round 1 of game 'bo3': batch ")
    assert alice.lines()[2:] == [
        "Round 1 of game 'bo3': you threw rock, bob threw scissors: you won the round; score: you 1, bob 0",
        "game 'bo3': you and bob must commit in round 2 (rps throw bo3 rock|paper|scissors)",
    ]
    assert bob.lines()[2] == (
        "Round 1 of game 'bo3': alice threw rock, you threw scissors: alice won the round; score: alice 1, you 0"
    )

    # round 2, a tie: both commit only, then each reveals from a process that never saw the commit
    for who in ("alice", "bob"):
        committed = table.ok(who, "throw", "bo3", "paper", "--commit-only", "--wait")
        assert "paper" not in committed.out + committed.err, "an unrevealed throw is never printed"
    [alices_entry] = table.vault("alice").entries()
    assert stat.S_IMODE(table.vault("alice").path.stat().st_mode) == 0o600
    shown = table.ok("bob", "show", "bo3")
    assert "PLAYER 1 : alice, host: 1 point, committed" in shown.out
    assert short(table.key("alice")) not in shown.out, "a named key reads as its name alone"
    assert "paper" not in shown.out and "paper" not in table.ok("bob", "show", "bo3", "--json").out
    alice, bob = table.start("alice", "reveal", "bo3"), table.start("bob", "reveal", "bo3", "--json")
    alice, bob = alice.done(), bob.done()
    assert (alice.code, bob.code) == (0, 0), (alice, bob)
    assert alice.lines()[-2] == "Round 2 of game 'bo3': you threw paper, bob threw paper: a tie; score: you 1, bob 0"
    revealed = json.loads(bob.out)
    assert (revealed["status"], revealed["throws"], revealed["round_winner"]) == ("ROUND_COMPLETE", ["paper"] * 2, None)
    assert revealed["game"]["round"] == 3

    alice, bob = table.throws("bo3", "scissors", "rock")
    assert bob.lines()[2] == (
        "Round 3 of game 'bo3': alice threw scissors, you threw rock: you won the round; score: alice 1, you 1"
    )
    alice, bob = table.throws("bo3", "paper", "rock")
    assert alice.lines()[2:] == [
        "Round 4 of game 'bo3': you threw paper, bob threw rock: you won the round; score: you 2, bob 1",
        "game 'bo3' is over: you won 2-1",
    ]
    assert bob.lines()[-1] == "game 'bo3' is over: alice won 2-1"

    game = json.loads(table.ok("alice", "show", "bo3", "--json").out)
    assert game["state"] == "CONCLUDED" and game["conclusion_type"] == "normal"
    assert game["history"] == [["rock", "scissors"], ["paper", "paper"], ["scissors", "rock"], ["paper", "rock"]]
    assert [(r["key"], r["outcome"], r["final_score"]) for r in game["results"]] == [
        (table.key("alice"), "won", 2),
        (table.key("bob"), "lost", 1),
    ]
    assert table.vault("alice").entries() == table.vault("bob").entries() == [], "revealed salts are dropped"
    everything = alice.out + alice.err + bob.out + bob.err
    assert alices_entry.salt.hex() not in everything
    assert "delete" in table.ok("alice", "delete", "bo3", "--wait").out


def test_a_resignation_ends_the_opponents_wait_with_the_outcome(table):
    table.started("quitter")
    waiting = table.start("alice", "throw", "quitter", "rock")
    table.committed("quitter", "alice")
    table.ok("bob", "resign", "quitter", "--wait")
    alice = waiting.done()
    assert alice.code == 0, alice
    assert alice.lines()[-1] == "game 'quitter' is over: bob resigned: you won"
    assert table.vault("alice").entries() == []


def test_a_player_who_stops_playing_is_timed_out_and_claimed_against(table):
    table.started("slow", Settings(1, 1))
    alice = table.run("alice", "throw", "slow", "rock", "--wait", "0.5")
    assert alice.code == 4, alice
    assert "stopped waiting after 0.5 s: still waiting for bob to commit in round 1 of game 'slow'" in alice.err
    assert "'rps reveal slow' reveals it later; you may claim the game from " in alice.err
    too_early = table.run("bob", "claim", "slow")
    assert too_early.code == 1 and "you cannot claim game 'slow': you have not committed" in too_early.err
    table.after_time_out("slow")
    claimed = table.ok("alice", "claim", "slow", "--wait", "--json")
    game = json.loads(claimed.out)["game"]
    assert (game["conclusion_type"], [r["outcome"] for r in game["results"]]) == ("by-timeout", ["won", "timed-out"])
    assert table.vault("alice").entries() == []


def test_a_lost_vault_says_the_round_cannot_be_revealed_and_the_opponent_claims(table):
    table.started("lost", Settings(1, 1))
    table.ok("alice", "throw", "lost", "rock", "--commit-only", "--wait")
    table.ok("bob", "throw", "lost", "paper", "--commit-only", "--wait")
    table.vault("alice").path.unlink()
    alice = table.run("alice", "reveal", "lost")
    assert alice.code == 1
    assert "your commitment in round 1 of game 'lost' cannot be revealed: the vault " in alice.err
    claim_rule = "once bob has revealed, bob may claim the game when the reveal phase has lasted its time-out (1 s)"
    assert claim_rule in alice.err
    bob = table.run("bob", "reveal", "lost", "--wait", "1")
    assert bob.code == 4 and bob.lines()[0].startswith("Revealed paper in round 1 of game 'lost'"), bob
    table.after_time_out("lost")
    claimed = table.ok("bob", "claim", "lost", "--wait")
    assert claimed.lines()[-1] == "game 'lost': over: alice timed out: you won"


def test_a_crash_between_the_vault_and_the_commit_loses_nothing_and_a_later_throw_plays_the_round(
    table, monkeypatch, capsys
):
    table.started("crash")
    signer_flags = ["--url", table.url, "--key-dir", str(table.key_dir), "--username", "alice"]

    def crash(*_args, **_kwargs):
        raise KeyboardInterrupt  # the process stops after the vault's write, before anything is sent

    monkeypatch.setattr(rounds, "submit", crash)
    assert main(["throw", "crash", "scissors", *signer_flags]) == 130
    capsys.readouterr()
    [kept] = table.vault("alice").entries()
    assert (kept.name, kept.round, kept.throw) == ("crash", 1, "scissors")
    assert table.game("crash").players[0].commitment is None, "nothing reached the chain"
    monkeypatch.undo()

    alice, bob = table.throws("crash", "rock", "scissors")
    assert (alice.code, bob.code) == (0, 0), (alice, bob)
    assert alice.lines()[-1] == "game 'crash' is over: you won 1-0"
    assert table.vault("alice").entries() == [], "the entry of the commit that never made it is dropped too"


def test_a_copied_commitment_can_never_be_revealed_and_the_copier_is_claimed_against(table):
    table.started("copy", Settings(1, 1))
    table.ok("alice", "throw", "copy", "rock", "--commit-only", "--wait")
    [alices] = table.vault("alice").entries()
    copied = table.game("copy").players[0].commitment
    assert table.submit("bob", Commit("copy", commit_moment(1), copied)) == "COMMITTED", "the processor stores a copy"
    shown = table.ok("alice", "show", "copy")
    assert "NOTE     : both players hold the same commitment in round 1" in shown.out
    revealed = table.run("alice", "reveal", "copy", "--wait", "1")
    assert revealed.code == 4, revealed
    assert revealed.lines()[0].startswith("Revealed rock in round 1 of game 'copy'")
    bob = table.run("bob", "reveal", "copy")
    assert bob.code == 1 and "it is the same as your opponent's commitment, a copy" in bob.err
    refused = table.submit("bob", Reveal("copy", reveal_moment(1), "rock", alices.salt))
    assert refused == "INVALID; rock with that salt does not match your commitment in round 1 of game 'copy'"
    table.after_time_out("copy")
    claimed = table.ok("alice", "claim", "copy", "--wait")
    assert claimed.lines()[-1] == "game 'copy': over: bob timed out: you won"


def test_the_validators_own_reason_comes_back_with_no_validate(table):
    table.started("forced")
    forced = table.run("bob", "join", "forced", "--no-validate", "--wait")
    assert (forced.code, forced.out) == (1, "")
    assert forced.err.endswith(
        "rps: error: the validator rejected join game 'forced': game 'forced' has already started; it can no longer "
        "be joined\n"
    )
    table.ok("alice", "throw", "forced", "rock", "--commit-only", "--wait")
    again = table.run("alice", "throw", "forced", "paper")
    assert again.code == 1 and again.err == (
        "rps: error: you have already committed in round 1 of game 'forced'; a commitment is final "
        "('rps reveal forced' reveals it); nothing was submitted\n"
    )
    assert len(table.vault("alice").entries()) == 1
    forced = table.run("alice", "throw", "forced", "paper", "--no-validate", "--wait")
    assert forced.code == 1 and forced.err.endswith(
        "rps: error: the validator rejected this commit: you have already committed in round 1 of game 'forced'; a "
        "commitment is final; the commitment on the chain is an earlier throw of yours (rock), which "
        "'rps reveal forced' reveals\n"
    ), forced
    assert len(table.vault("alice").entries()) == 2, "the refused commit's entry stays until its round is past"
    table.ok("bob", "throw", "forced", "scissors", "--commit-only", "--wait")
    alice, bob = table.start("alice", "reveal", "forced"), table.start("bob", "reveal", "forced")
    assert alice.done().lines()[-1] == "game 'forced' is over: you won 1-0"
    assert bob.done().code == 0
    assert table.vault("alice").entries() == []


def test_a_ready_agrees_to_the_settings_shown_and_a_new_setup_asks_again(table):
    table.ok("alice", "create", "terms", "--wait")
    table.ok("bob", "join", "terms", "--wait")
    table.ok("bob", "ready", "terms", "--wait")
    setup = table.ok("alice", "setup", "terms", "--first-to", "3", "--wait")
    assert setup.lines()[0].startswith("Committed set up game 'terms' as first to 3 points, 5 min 0 s to act")
    assert setup.lines()[1] == (
        "game 'terms': you and bob must get ready for first to 3 points, 5 min 0 s to act (rps ready terms)"
    )
    ready = table.ok("bob", "ready", "terms", "--wait")
    assert ready.lines()[0].startswith("Committed ready for game 'terms' (first to 3 points, 5 min 0 s to act)")
    assert table.game("terms").settings == Settings(3, 300)


def test_watch_of_a_mistyped_name_names_the_likely_game_on_its_first_line_then_waits(table):
    table.ok("alice", "create", "round1", "--wait")
    watching = table.start("bob", "watch", "rnd1")
    try:
        first = watching.process.stdout.readline()  # bounded by the test's time-out
        assert watching.process.poll() is None, "it waits for the name typed"
    finally:
        watching.process.send_signal(signal.SIGINT)
    assert re.fullmatch(
        r"block \d+: there is no game 'rnd1' yet; did you mean 'round1'\? \(games now: .*'round1'.*\); "
        r"waiting for it to be created \(Ctrl-C stops\)\n",
        first,
    ), first
    stopped = watching.done()
    assert (stopped.code, stopped.err) == (130, "")


def test_watch_tells_a_game_op_by_op_and_ends_with_it(table):
    watching = table.start("bob", "watch", "seen")
    first = watching.process.stdout.readline()  # bounded by the test's time-out
    assert ": there is no game 'seen' yet" in first  # then the games of other tests, if any
    assert first.endswith("; waiting for it to be created (Ctrl-C stops)\n")
    table.started("seen")
    for alices, bobs in (("rock", "rock"), ("paper", "rock")):
        assert [done.code for done in table.throws("seen", alices, bobs)] == [0, 0]
    watched = watching.done()
    assert watched.code == 0, watched
    lines = [line.split(": ", 1)[1] for line in watched.lines()]
    assert lines[:6] == [
        "game 'seen' created: first to 1 point, 5 min 0 s to act",
        "game 'seen': alice joined as host",
        "game 'seen': bob joined",
        "game 'seen': alice ready",
        "game 'seen': bob ready",
        "game 'seen': play starts, round 1",
    ]
    assert "game 'seen': round 1: alice rock, bob rock: a tie; score: alice 0, bob 0" in lines
    assert lines[-2:] == [
        "game 'seen': round 2: alice paper, bob rock: alice won the round; score: alice 1, bob 0",
        "game 'seen' is over: alice won 1-0",
    ]
    steps = [line.removeprefix("game 'seen': ") for line in lines if "committed in" in line or " revealed " in line]
    assert sorted(steps) == sorted(
        [f"{who} committed in round {n}" for who in ("alice", "bob") for n in (1, 2)]
        + ["alice revealed rock in round 1", "bob revealed rock in round 1"]
        + ["alice revealed paper in round 2", "bob revealed rock in round 2"]
    )


@pytest.mark.parametrize(
    ("signum", "code", "said"), [(signal.SIGINT, 130, "interrupted"), (signal.SIGTERM, 143, "terminated (SIGTERM)")]
)
def test_stopping_a_throw_while_it_waits_keeps_the_commitment_for_a_later_reveal(table, signum, code, said):
    name = f"stopped-{code}"
    table.started(name)
    waiting = table.start("alice", "throw", name, "scissors")
    said_before = []
    while not (line := waiting.process.stderr.readline()).startswith("rps: waiting for bob"):  # bounded by the
        assert line, said_before  # test's time-out; once said, the command waits for a block that does not come
        said_before.append(line)
    waiting.process.send_signal(signum)
    stopped = waiting.done()
    assert stopped.code == code, stopped
    assert stopped.err.splitlines()[-1] == (
        f"rps: error: {said} while waiting for bob to commit in round 1 of game '{name}': your throw stays "
        f"committed and in the vault; 'rps reveal {name}' reveals it later"
    )
    table.ok("bob", "throw", name, "paper", "--commit-only", "--wait")
    alice, bob = table.start("alice", "reveal", name), table.start("bob", "reveal", name)
    assert alice.done().lines()[-1] == f"game '{name}' is over: you won 1-0"
    assert bob.done().code == 0
