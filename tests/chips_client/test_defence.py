"""A challenge against a player is answered with the newest state the chain will accept, wherever the loop stands.

The two sides are stepped pass by pass (:func:`tests.chips_client.fakes.step_until`) so
that each test stops the match exactly where its challenge comes: after a final state
was proposed and never countersigned, with an opponent who signed two versions of a
turn, or while the player has not answered the prompt.
"""

from __future__ import annotations

import re
import threading

import pytest

from chips_client import moves
from chips_client import transactions as tx
from chips_client.match import Match
from chips_client.messages import decode_message, encode_message, topic
from chips_tp.apps import APPS
from chips_tp.channel import mover
from chips_tp.channel_state import decode_state
from client_core.errors import TimedOut
from tests.chips_client.fakes import FakeBroker, FakeChain, Silent, step_until
from tests.chips_client.test_match import ALICE, BOB, Bot, match, terms


def final_dropped(_topic: str, payload: bytes) -> bool:
    """The broker loses every final state: a proposal never reaches the one who would countersign it."""
    return decode_state(decode_message(payload).state, APPS["xo"].decode).final


def started(*sides: Match) -> tuple[Match, ...]:
    for side in sides:
        side.start()
    return sides


@pytest.mark.parametrize("answerer", ["the match loop", "chips watch --defend"])
def test_a_proposer_waiting_for_the_countersignature_answers_a_stale_challenge_with_the_state_before_it(
    tmp_path, answerer
):
    """Issue 34, finding 1: pat proposed the final state holding quinn's move before it; quinn challenges with an
    older turn that pays quinn more. pat's answer is the checkpoint of quinn's last move."""
    channel = terms("xo", rounds=1)
    broker, chain = FakeBroker(), FakeChain(channel.fixed)
    broker.drop = final_dropped
    alice, bob = started(match(ALICE, channel, tmp_path, broker, chain), match(BOB, channel, tmp_path, broker, chain))
    step_until([alice, bob], lambda: any(side.channel.latest.state.final for side in (alice, bob)))
    pat, quinn = (alice, bob) if alice.channel.latest.state.final else (bob, alice)
    final = pat.channel.latest.state
    assert mover(final.turn) == pat.me and quinn.channel.latest.state.turn == final.turn - 1
    stale = final.turn - 3
    proof = tuple(signed for turn, signed in quinn.store.states(quinn.id, 50) if turn in (stale - 1, stale))
    chain.submit(tx.challenge(quinn.signer, channel.fixed, proof), "a stale challenge")
    if answerer == "the match loop":
        pat._next_poll = 0.0
        assert pat.step(0) is None
    else:
        tower = match(pat.signer, channel, tmp_path, FakeBroker(), chain)
        tower.defend_offline(chain.record)
    assert chain.submitted == ["challenge", "checkpoint"]
    assert chain.record.challenge is None and chain.record.turn == final.turn - 1
    assert chain.record.state == quinn.channel.latest.signed.state


def test_a_challenge_at_the_chains_own_turn_is_answered_from_the_bytes_the_chain_recorded(tmp_path):
    """Issue 34, finding 6: alice sends bob one first move, challenges with another; bob plays on from the chain's."""
    channel = terms("xo")
    broker, chain = FakeBroker(), FakeChain(channel.fixed)
    alice, bob = started(
        match(ALICE, channel, tmp_path, broker, chain), match(BOB, channel, tmp_path, broker, chain, chooser=Silent())
    )
    step_until([alice, bob], lambda: bob.channel.latest.state.turn == 1)
    sent = bob.channel.latest.state
    first = decode_state(chain.record.state, APPS["xo"].decode)
    space = next(s for s in range(1, 10) if moves.xo_next(first, channel.fixed, s).app != sent.app)
    other = tx.sign_move(channel.fixed, moves.xo_next(first, channel.fixed, space), ALICE)
    chain.submit(tx.challenge(ALICE, channel.fixed, (other,)), "a challenge with the other version")
    tower = match(BOB, channel, tmp_path, FakeBroker(), chain, chooser=Bot(3))
    tower.defend_offline(chain.record)
    assert chain.submitted == ["challenge", "respond"]
    assert chain.record.challenge is None and chain.record.turn == 2
    held = dict(tower.store.states(tower.id, 2))
    assert held[1] == (other.state, (None, None))  # the chain's bytes, and no signature made for the other version
    assert held[2].state == chain.record.state


def stalled_at_bobs_move(tmp_path, **bob_options) -> tuple[Match, Match, FakeChain, Silent, list[str]]:
    """Alice moved; Bob is asked and never answers; Alice challenges."""
    channel = terms("xo")
    broker, chain = FakeBroker(), FakeChain(channel.fixed)
    person, said = Silent(), []
    alice, bob = started(
        match(ALICE, channel, tmp_path, broker, chain),
        match(BOB, channel, tmp_path, broker, chain, chooser=person, say=said.append, **bob_options),
    )
    step_until([alice, bob], lambda: bool(person.asked))
    chain.submit(tx.challenge(ALICE, channel.fixed, alice.channel.proof()), "a challenge")
    bob._next_poll = 0.0
    bob.step(0)
    bob.step(0)
    return alice, bob, chain, person, said


def test_a_challenge_waiting_on_the_players_move_is_said_loudly_and_the_computer_plays_it_at_half_the_time_left(
    tmp_path,
):
    _alice, bob, chain, person, said = stalled_at_bobs_move(tmp_path, stand_in=Bot(5))
    deadline = chain.record.challenge.deadline
    asked = person.asked[-1]
    assert asked.deadline == deadline and asked.computer_at == pytest.approx(chain.now + 30)
    (loud,) = [line for line in said if "CHALLENGED YOU" in line]
    assert re.search(r"\d\d:\d\d:\d\d( \w+)? \(60 s left\)", loud) and str(deadline) not in loud
    bob.step(0)
    assert chain.submitted == ["challenge"]  # not before half the time left
    chain.now = asked.computer_at
    bob.step(0)
    assert chain.submitted == ["challenge", "respond"]
    assert chain.record.challenge is None and chain.record.turn == 2
    assert any("the computer plays" in line for line in said) and person.withdrawn


def test_without_a_stand_in_the_challenge_is_lost_and_the_player_is_told_what_it_cost(tmp_path):
    alice, bob, chain, person, said = stalled_at_bobs_move(tmp_path)
    assert person.asked[-1].computer_at is None
    chain.now = chain.record.challenge.deadline + 2
    alice._next_poll = 0.0
    assert alice.step(0) == "finalized"
    bob._next_poll = 0.0
    assert bob.step(0) == "finalized"
    (lost,) = [line for line in said if "LOST THE CHALLENGE" in line]
    paid = chain.record.payout[1]
    assert f"{paid} to you" in lost and "you paid 100 in" in lost and f"{100 - paid} chips down" in lost
    assert person.withdrawn[-1] == "the channel is finalized"


def test_a_rest_api_out_of_reach_is_said_once_and_a_challenge_raised_meanwhile_is_answered_once_it_is_back(tmp_path):
    channel = terms("xo")
    broker, chain = FakeBroker(), FakeChain(channel.fixed)
    person, said = Silent(), []
    alice, bob = started(
        match(ALICE, channel, tmp_path, broker, chain),
        match(BOB, channel, tmp_path, broker, chain, chooser=person, say=said.append, stand_in=Bot(5)),
    )
    step_until([alice, bob], lambda: bool(person.asked))
    chain.away = True
    for _ in range(3):
        bob._next_poll = bob._chain_at = 0.0
        assert bob.step(0) is None
    chain.away = False
    chain.submit(tx.challenge(ALICE, channel.fixed, alice.channel.proof()), "a challenge while bob cannot see it")
    assert [line for line in said if "cannot reach the REST API" in line] == [
        "cannot reach the REST API at http://127.0.0.1:9: Connection refused; retrying (the play off chain goes on)"
    ]
    bob._next_poll = bob._chain_at = 0.0
    bob.step(0)
    assert "the REST API answers again: resuming" in said and bob._due is not None
    chain.now = bob._due.computer_at
    bob.step(0)
    assert chain.submitted == ["challenge", "respond"] and chain.record.challenge is None


def test_after_a_reconnection_to_the_broker_the_match_publishes_its_latest_state_again(tmp_path):
    channel = terms("xo")
    broker, chain = FakeBroker(), FakeChain(channel.fixed)
    (bob,) = started(match(BOB, channel, tmp_path, broker, chain))
    before = len(broker.published)
    back = threading.Thread(target=bob.session.on_reconnect)  # called on the transport's thread
    back.start()
    back.join(5)
    bob.step(0)
    assert broker.published[before:] == [(topic(bob.id, ALICE.public_key), encode_message(bob.channel.latest.signed))]


def test_an_answer_not_seen_to_commit_is_looked_at_again_and_sent_once_the_chain_answers(tmp_path):
    channel = terms("xo", rounds=1)
    broker, chain = FakeBroker(), FakeChain(channel.fixed)
    broker.drop = final_dropped
    said: list[str] = []
    alice, bob = started(
        match(ALICE, channel, tmp_path, broker, chain, say=said.append), match(BOB, channel, tmp_path, broker, chain)
    )
    step_until([alice, bob], lambda: alice.channel.latest.state.turn >= 3 and not alice.channel.my_move)
    chain.submit(tx.challenge(BOB, channel.fixed, tx.chain_turn_zero(chain.record.state)), "a stale challenge")
    submit, calls = chain.submit, []

    def pending_once(transaction, what):
        calls.append(what)
        if len(calls) == 1:
            raise TimedOut(f"{what} is still PENDING after 120 s (batch 1234)")
        submit(transaction, what)

    chain.submit = pending_once
    alice._next_poll = 0.0
    assert alice.step(0) is None
    assert any("still PENDING after 120 s (batch 1234); retrying" in line for line in said)
    alice._next_poll = alice._chain_at = 0.0
    alice.step(0)
    assert calls == ["the checkpoint", "the checkpoint"]
    assert chain.record.challenge is None and chain.record.turn == alice.channel.latest.state.turn
