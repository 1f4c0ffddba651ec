"""Property: overload never decides a match (issue 41). However often a player challenges an opponent whose REST API
is out of reach, and wherever the match stands when it does, every answer that comes off chain clears that challenge
on chain (a checkpoint, or the conclude of the final state both signed), and the match ends in one conclude: never a
finalize, which would pay an older state than both signed since.

Hypothesis picks the game, the seeds, and at each of the challenger's passes whether it
challenges (patience 0) or waits; the opponent moves at once, over the broker only, and
the chain's clock moves on so that a challenge left standing would run out mid-match.
"""

from __future__ import annotations

from pathlib import Path

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from chips_client.match import CONCLUDE_GRACE_SECONDS
from chips_tp.state import CLOSED
from tests.chips_client.fakes import FakeBroker, FakeChain
from tests.chips_client.test_defence_property import store_dir
from tests.chips_client.test_match import ALICE, BOB, Bot, match, terms
from tests.chips_client.test_match_clearing import Unreachable

#: The chain's clock moves on this much each pass: a challenge left standing runs out within a dozen passes.
SECONDS_A_PASS = 5


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    app=st.sampled_from(["xo", "rps"]),
    seed=st.integers(0, 1000),
    challenger_seat=st.sampled_from([0, 1]),
    impatience=st.lists(st.booleans(), min_size=1, max_size=64),
)
def test_every_challenge_answered_off_chain_is_cleared_on_chain_and_the_match_concludes(
    app, seed, challenger_seat, impatience
):
    with store_dir() as directory:
        check(Path(directory), app, seed, challenger_seat, impatience)


def check(directory: Path, app: str, seed: int, challenger_seat: int, impatience: list[bool]) -> None:
    channel = terms(app, rounds=2)
    broker, chain = FakeBroker(), FakeChain(channel.fixed)
    signers = (ALICE, BOB)
    challenger = match(signers[challenger_seat], channel, directory, broker, chain, chooser=Bot(seed))
    opponent = match(signers[1 - challenger_seat], channel, directory, broker, chain, chooser=Bot(seed + 1))
    challenger.start(), opponent.start()
    opponent.chain = Unreachable()
    for passes in range(400):
        challenger.step(0)  # the opponent's move comes in, and the challenger's own goes out
        if impatience[passes % len(impatience)]:  # before the opponent is heard again: challenged
            challenger.patience = 0.0
            challenger.step(0)
            challenger.patience = None
        if challenger.channel.concluded and opponent.channel.concluded:
            break
        opponent.step(0)
        chain.now += SECONDS_A_PASS
    assert challenger.channel.concluded and opponent.channel.concluded
    chain.now += CONCLUDE_GRACE_SECONDS + 1  # the proposer may be the opponent, whose REST API is away: after its grace
    ended = None
    for _ in range(3):
        challenger._next_poll = challenger._chain_at = 0.0
        if ended := challenger.step(0):
            break
    challenges, checkpoints = chain.submitted.count("challenge"), chain.submitted.count("checkpoint")
    event(f"{challenges} challenges" if challenges < 3 else "3 challenges or more")
    event("the last challenge ended by the conclude" if challenges > checkpoints else "every challenge checkpointed")
    assert ended == "concluded" and chain.record.status == CLOSED, chain.submitted
    assert "finalize" not in chain.submitted and chain.submitted[-1] == "conclude"
    assert chain.record.payout == challenger.channel.latest.state.balances
    assert checkpoints + 1 >= challenges  # each cleared (the last one perhaps by the conclude)
    for side in (challenger, opponent):
        side.session.close()
