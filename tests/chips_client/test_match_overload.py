"""What a match does when the other side or the chain fell behind: a challenge the chain would refuse is not sent
again and again, and a conclude refused because a challenge expired gives way to the finalize the rules leave."""

from __future__ import annotations

from chips_client import moves
from chips_client import transactions as tx
from chips_client.messages import encode_message, topic
from chips_tp.channel_state import State
from chips_tp.state import CLOSED
from tests.chips_client.fakes import FakeBroker, FakeChain, Silent
from tests.chips_client.test_match import ALICE, BOB, match, terms


def played(fixed, start: State, spaces: list[int]):
    """The states after ``start`` with a mark on each of ``spaces`` in turn, each signed by its mover."""
    signers = {ALICE.public_key: ALICE, BOB.public_key: BOB}
    states, state = [], start
    for space in spaces:
        state = moves.xo_next(state, fixed, space)
        states.append((state, tx.sign_move(fixed, state, signers[fixed.participants[(state.turn + 1) % 2]])))
    return states


def test_a_challenge_the_chain_would_refuse_is_said_once_and_not_sent_until_the_channel_moves_on(tmp_path):
    channel = terms("xo")
    broker, chain = FakeBroker(), FakeChain(channel.fixed)
    said: list[str] = []
    alice = match(ALICE, channel, tmp_path, broker, chain, patience=0.0, chooser=Silent(), say=said.append)
    start = alice._decode(chain.record.state)
    _one, _two, (three, signed_three) = played(channel.fixed, start, [5, 1, 9])
    alice.store.save_state(alice.id, 3, signed_three)  # turn 3 alone: signed by its mover, two turns past the chain's
    alice.start()
    for _ in range(30):  # patience 0: every pass would challenge again
        alice.step(0)
    assert chain.submitted == [] and chain.refusals == []
    refused = [line for line in said if line.startswith("could not challenge")]
    assert len(refused) == 1 and "signed by its mover alone" in refused[0]
    [(_four, signed_four)] = played(channel.fixed, three, [2])
    broker.publish(topic(alice.id, ALICE.public_key), encode_message(signed_four))
    alice.chooser.answer = lambda: 3  # Alice plays turn 5: turns 4 and 5 together are a proof the chain takes
    for _ in range(5):
        alice.step(0)
    assert chain.submitted == ["challenge"] and chain.record.turn == 5
    assert chain.record.challenge.challenger == ALICE.public_key
    alice.session.close()


def test_a_conclude_refused_because_the_challenge_expired_finalizes_paying_the_same_balances(tmp_path):
    channel = terms("xo", rounds=1)
    broker, chain = FakeBroker(), FakeChain(channel.fixed)
    alice, bob = (match(s, channel, tmp_path, broker, chain) for s in (ALICE, BOB))
    for side in (alice, bob):
        side.start()
    for _ in range(200):  # until both hold the final state signed by both, before anyone concludes
        for side in (alice, bob):
            if not side.channel.concluded:  # a concluded side's next act would conclude on chain
                side._act()
            side._drain(0)
        if alice.channel.concluded and bob.channel.concluded:
            break
    assert alice.channel.concluded and bob.channel.concluded and chain.submitted == []
    final = alice.channel.latest.state
    settled = next(h for h in reversed(bob.channel.history) if not h.state.final)
    proof = tuple(h.signed for h in bob.channel.history if not h.state.final)[-2:]
    chain.submit(tx.challenge(BOB, channel.fixed, proof), "the challenge")  # Bob challenged with the settled state
    chain.now = chain.record.challenge.deadline + 5  # and Alice, overloaded, did not conclude in time
    outcomes = {}
    for _ in range(20):
        for name, side in (("alice", alice), ("bob", bob)):
            if name not in outcomes and (outcome := side.step(0)):
                outcomes[name] = outcome
        if len(outcomes) == 2:
            break
    assert chain.record.status == CLOSED and "finalize" in chain.submitted and "conclude" not in chain.submitted
    assert chain.record.payout == final.balances == settled.state.balances
    assert set(outcomes.values()) <= {"concluded", "finalized"} and len(outcomes) == 2
    for side in (alice, bob):
        side.session.close()
