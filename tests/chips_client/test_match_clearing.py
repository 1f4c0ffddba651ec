"""A challenger whose opponent answered off chain clears its own challenge on chain with that answer, rather than win
by the clock a match that was being played (issue 41): the opponent's REST API is out of reach (overloaded), but
their next move comes over the broker, and the challenger checkpoints it once the opponent had a few seconds
(CLEAR_GRACE_SECONDS) to put it on chain themselves, long before the deadline."""

from __future__ import annotations

import time

import pytest

from chips_client import transactions as tx
from chips_client.match import CLEAR_GRACE_SECONDS, PASS_SECONDS, Match
from chips_client.messages import topic
from chips_tp.state import CLOSED
from client_core.errors import Rejected, Unavailable
from client_core.keys import KeyNames
from tests.chips_client.fakes import FakeBroker, FakeChain, Silent
from tests.chips_client.test_match import ALICE, BOB, match, terms
from tests.chips_client.test_match_words import NEVER

NAMES = KeyNames({ALICE.public_key: "alice", BOB.public_key: "bob"})


class Unreachable:
    """A REST API that cannot be reached: Bob's, overloaded, while the broker still carries his moves."""

    def channel(self, address: str) -> None:
        raise Unavailable("cannot reach the REST API at http://127.0.0.1:9: Connection refused")

    def submit(self, transaction: object, what: str) -> None:
        self.channel("")


def challenged_by_alice(tmp_path, said: list[str], delivered: bool = True) -> tuple[Match, Match, FakeChain]:
    """Alice plays turn 1 and challenges Bob at once (patience 0, then none); Bob's REST API is out of reach, and his
    answer (turn 2) is published to Alice but not yet taken in by her (or lost on the way, not ``delivered``)."""
    channel = terms("xo", rounds=1)
    broker, chain = FakeBroker(), FakeChain(channel.fixed)
    alice = match(ALICE, channel, tmp_path, broker, chain, say=said.append, names=NAMES)
    bob = match(BOB, channel, tmp_path, broker, chain, names=NAMES)
    for side in (alice, bob):
        side.start()
    bob.chain = Unreachable()
    alice.step(0)  # turn 1
    alice.patience = 0.0
    alice.step(0)
    alice.patience = None
    assert chain.submitted == ["challenge"] and chain.record.turn == 1
    assert chain.record.challenge.challenger == ALICE.public_key
    to_alice = topic(alice.id, ALICE.public_key)
    broker.drop = lambda where, _payload: not delivered and where == to_alice
    bob.step(0)  # Bob takes turn 1 in and answers with turn 2, over the broker only
    assert bob.channel.latest.state.turn == 2 and chain.record.challenge is not None
    return alice, bob, chain


def read_chain(side: Match) -> str | None:
    """One pass of ``side`` that reads the chain (as the block that changed the channel wakes it)."""
    side.wake()
    return side.step(0)


def played_out(alice: Match, bob: Match, chain: FakeChain) -> dict[str, str]:
    """Both sides step until each has ended, the chain's clock standing still (Bob's REST API back: he reads it again
    once his backoff is over, at most half a second on)."""
    outcomes: dict[str, str] = {}
    ends = time.monotonic() + 10.0
    while len(outcomes) < 2 and time.monotonic() < ends:
        for name, side in (("alice", alice), ("bob", bob)):
            if name not in outcomes and (outcome := side.step(0.005)):
                outcomes[name] = outcome
    for side in (alice, bob):
        side.session.close()
    return outcomes


def test_the_answer_off_chain_clears_the_challenge_after_the_grace_and_the_match_plays_on_to_conclude(tmp_path):
    said: list[str] = []
    alice, bob, chain = challenged_by_alice(tmp_path, said)
    deadline = chain.record.challenge.deadline
    alice.step(0)  # Bob's answer comes in: Alice leaves him a few seconds to put it on chain himself
    chain.now += CLEAR_GRACE_SECONDS - 1
    read_chain(alice)
    assert chain.submitted == ["challenge"]
    chain.now += 1
    read_chain(alice)
    assert chain.submitted == ["challenge", "checkpoint"] and chain.record.challenge is None
    assert chain.record.turn >= 2 and chain.now < deadline - 50  # a 60 s challenge, cleared 5 s after the answer
    [cleared] = [line for line in said if "cleared your challenge" in line]
    assert cleared.startswith("bob answered off chain: cleared your challenge at turn 1 on chain with turn ")
    bob.chain = chain  # Bob's REST API answers again
    assert played_out(alice, bob, chain) == {"alice": "concluded", "bob": "concluded"}
    assert chain.submitted == ["challenge", "checkpoint", "conclude"]
    assert chain.record.payout == alice.channel.latest.state.balances
    assert [line for line in said if NEVER.search(line)] == []


def test_a_refused_clear_is_said_and_sent_again_at_the_next_read_of_the_chain(tmp_path):
    said: list[str] = []
    alice, bob, chain = challenged_by_alice(tmp_path, said)
    submit, tried = chain.submit, []

    def busy_once(transaction, what: str) -> None:
        tried.append(what)
        if len(tried) == 1:
            raise Rejected("the REST API refused the batch: the validator's queue is full")
        submit(transaction, what)

    chain.submit = busy_once
    alice.step(0)
    chain.now += CLEAR_GRACE_SECONDS
    read_chain(alice)
    assert tried == ["the checkpoint"] and chain.record.challenge is not None
    assert any(line.startswith("could not clear your challenge at turn 1 yet: the REST API refused") for line in said)
    for _ in range(20):  # a pass waits up to PASS_SECONDS for a message: the chain is read again within a few
        alice.step(PASS_SECONDS)
        if chain.record.challenge is None:
            break
    assert tried == ["the checkpoint", "the checkpoint"] and chain.record.challenge is None
    for _ in range(10):  # once cleared, never sent again
        alice.step(0)
    assert tried == ["the checkpoint", "the checkpoint"] and chain.submitted == ["challenge", "checkpoint"]
    chain.submit = submit
    bob.chain = chain
    assert played_out(alice, bob, chain) == {"alice": "concluded", "bob": "concluded"}


@pytest.mark.parametrize("answer", ["never", "after the deadline"])
def test_without_an_answer_in_time_the_challenger_finalizes_paying_the_challenged_state(tmp_path, answer):
    said: list[str] = []
    alice, bob, chain = challenged_by_alice(tmp_path, said, delivered=answer != "never")
    chain.now = chain.record.challenge.deadline + 2
    for _ in range(20):
        if alice.step(PASS_SECONDS) == "finalized":
            break
    assert chain.record.status == CLOSED and chain.record.payout == (110, 90)  # turn 1: Alice's X for the stake
    assert chain.submitted == ["challenge", "finalize"]
    if answer == "after the deadline":  # the clear was tried, and the chain said the challenge ran out
        assert any("expired" in line and "only finalize remains" in line for line in said if "could not clear" in line)
    assert [line for line in said if NEVER.search(line)] == []
    for side in (alice, bob):
        side.session.close()


def test_chips_watch_defend_clears_the_players_own_challenge_with_the_answer_its_store_holds_and_never_finalizes(
    tmp_path,
):
    said: list[str] = []
    alice, bob, chain = challenged_by_alice(tmp_path, said)
    deadline = chain.record.challenge.deadline
    tower_said: list[str] = []
    tower = match(ALICE, alice.terms, tmp_path, FakeBroker(), chain, say=tower_said.append, names=NAMES)
    chain.now = deadline + 5
    tower.defend_offline(chain.record)  # nothing newer held: the finalize is the player's call, not the tower's
    assert chain.submitted == ["challenge"] and chain.record.challenge is not None
    chain.now = deadline - 30
    alice._drain(0)  # Alice's match takes Bob's answer in, and is stopped before it does anything more
    alice._sync()
    tower.defend_offline(chain.record)  # the tower, too, leaves Bob a few seconds to put it on chain himself
    assert chain.submitted == ["challenge"]
    chain.now += CLEAR_GRACE_SECONDS
    tower.defend_offline(chain.record)
    assert chain.submitted == ["challenge", "checkpoint"]
    assert chain.record.challenge is None and chain.record.turn == 2
    cleared = "bob answered off chain: cleared your challenge at turn 1 on chain with turn 2, and the match plays on"
    assert tower_said == [cleared]
    for side in (alice, bob):
        side.session.close()


def test_a_clear_refused_because_the_opponents_own_answer_landed_first_is_not_said_and_not_sent_again(tmp_path):
    said: list[str] = []
    alice, bob, chain = challenged_by_alice(tmp_path, said)
    alice.chooser = Silent()  # Alice does not move on: her clear is Bob's turn 2 itself, as his own answer is
    submit = chain.submit

    def bobs_first(transaction, what: str) -> None:
        if what == "the checkpoint" and "checkpoint" not in chain.submitted:  # Bob's REST API came back just before
            submit(tx.checkpoint(BOB, alice.fixed, (bob.channel.latest.signed,)), "bob's checkpoint")
        submit(transaction, what)

    chain.submit = bobs_first
    alice.step(0)
    chain.now += CLEAR_GRACE_SECONDS
    read_chain(alice)
    assert chain.submitted == ["challenge", "checkpoint"] and len(chain.refusals) == 1  # Bob's landed; Alice's not
    assert chain.record.challenge is None and chain.record.turn == 2
    assert [line for line in said if "clear" in line] == []
    for _ in range(10):
        alice.step(0)
    assert chain.submitted == ["challenge", "checkpoint"] and len(chain.refusals) == 1
    for side in (alice, bob):
        side.session.close()


def test_an_opponent_who_puts_the_answer_on_chain_within_the_grace_is_left_to_do_it_alone(tmp_path):
    """As a player whose REST API answers does: the move goes over the broker first, its checkpoint a moment later."""
    said: list[str] = []
    alice, bob, chain = challenged_by_alice(tmp_path, said)
    alice.step(0)  # Bob's answer comes in over the broker, and Alice moves on
    bob.chain, bob._chain_at = chain, 0.0  # Bob's REST API answers: he sees the challenge and checkpoints his newest
    read_chain(bob)
    assert chain.submitted == ["challenge", "checkpoint"] and chain.record.challenge is None
    chain.now += CLEAR_GRACE_SECONDS
    for _ in range(3):
        read_chain(alice)
    assert chain.submitted == ["challenge", "checkpoint"] and len(chain.refusals) == 0
    assert [line for line in said if "clear" in line] == []
    assert played_out(alice, bob, chain) == {"alice": "concluded", "bob": "concluded"}
    assert chain.submitted == ["challenge", "checkpoint", "conclude"]
